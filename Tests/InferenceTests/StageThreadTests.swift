import Foundation
@testable import Inference
import XCTest

/// `StageThread` on its own: work runs on one other thread, one piece at a time in the order handed over,
/// and comes back in that order, errors in their place; `poll` never blocks; `stop` ends the thread once
/// the work in flight has ended. (Holistic's and `--body`'s use of it: `HolisticStagesTests`.)
final class StageThreadTests: XCTestCase {
    /// What the work saw, under a lock: each piece's number as it started and ended, and its thread.
    private final class Log: @unchecked Sendable {
        private let lock = NSLock()
        private var events: [String] = []
        private var threads: Set<ObjectIdentifier> = []
        func note(_ event: String) {
            lock.withLock {
                events.append(event)
                threads.insert(ObjectIdentifier(Thread.current))
            }
        }
        var seen: ([String], Set<ObjectIdentifier>) { lock.withLock { (events, threads) } }
    }

    struct Refused: Error, Equatable { let piece: Int }

    func testPiecesRunOneAtATimeInOrderOnOneOtherThread() {
        let stage = StageThread<Int>()
        defer { stage.stop() }
        let log = Log()
        let pieces = 12
        for i in 0..<pieces {
            stage.start {
                log.note("start \(i)")
                // Uneven lengths, so pieces run at once would interleave their events.
                usleep(UInt32((pieces - i) % 4) * 500)
                log.note("end \(i)")
                if i % 5 == 3 { throw Refused(piece: i) }
                return i * i
            }
            XCTAssertEqual(stage.inFlight, i + 1)
        }
        for i in 0..<pieces {
            switch stage.wait() {
            case .success(let v): XCTAssertEqual(v, i * i, "piece \(i)")
            case .failure(let e): XCTAssertEqual(e as? Refused, Refused(piece: i), "piece \(i)'s error, in its place")
            }
        }
        XCTAssertEqual(stage.inFlight, 0)
        let (events, threads) = log.seen
        XCTAssertEqual(events, (0..<pieces).flatMap { ["start \($0)", "end \($0)"] }, "one at a time, in order")
        XCTAssertEqual(threads.count, 1, "every piece on the one thread")
        XCTAssertFalse(threads.contains(ObjectIdentifier(Thread.current)), "and not on the caller's")
    }

    func testPollNeverBlocksAndGivesValuesInOrder() {
        let stage = StageThread<String>()
        defer { stage.stop() }
        XCTAssertNil(stage.poll(), "nothing in flight")
        let gate = DispatchSemaphore(value: 0)
        stage.start { gate.wait(); return "first" }
        stage.start { "second" }
        // The first piece cannot end before the gate opens, so neither can be taken yet.
        for _ in 0..<3 { XCTAssertNil(stage.poll()) }
        XCTAssertEqual(stage.inFlight, 2, "a poll that finds nothing takes nothing")
        gate.signal()
        XCTAssertEqual(try stage.wait().get(), "first")
        // The second piece ends on its own; poll until it has (each poll returns at once).
        var second: Result<String, Error>?
        while second == nil {
            second = stage.poll()
            if second == nil { usleep(200) }
        }
        XCTAssertEqual(try second?.get(), "second")
        XCTAssertEqual(stage.inFlight, 0)
        XCTAssertNil(stage.poll())
    }

    func testStopWaitsForTheWorkInFlightAndEndsTheThread() {
        let ran = Log()
        weak var released: StageThread<Void>?
        do {
            let stage = StageThread<Void>()
            released = stage
            for i in 0..<5 { stage.start { usleep(1000); ran.note("\(i)") } }
            stage.stop()
            XCTAssertEqual(ran.seen.0, ["0", "1", "2", "3", "4"], "stop returned after every piece handed over had run")
            XCTAssertEqual(stage.inFlight, 0)
        }
        // The thread holds its StageThread until it leaves its loop: once it has, nothing holds it.
        var polls = 0
        while released != nil, polls < 10_000 {
            usleep(1000)
            polls += 1
        }
        XCTAssertNil(released, "the thread ended after stop")
    }

    func testACapInsideTheWorkHoldsOnItsThreadOnly() {
        let stage = StageThread<Int>()
        defer { stage.stop() }
        ThreadShare.set(4)
        defer { ThreadShare.reset() }
        stage.start { ThreadShare.capped(1) { ThreadShare.forThisThread } }
        stage.start { ThreadShare.forThisThread }
        let here = ThreadShare.capped(3) { ThreadShare.forThisThread }
        XCTAssertEqual(try stage.wait().get(), 1)
        XCTAssertEqual(try stage.wait().get(), 4, "a cap ends with its call, and the caller's never reaches the stage's thread")
        XCTAssertEqual(here, 3)
    }

    func testASplitMakesTheStageOnceGivesHalfAndNotesTheShare() {
        var held: StageThread<Int>?
        ThreadShare.resetUsage()
        defer { ThreadShare.resetUsage(); held?.stop() }
        let (first, second) = StageThread.split(&held, share: 3)
        XCTAssertTrue(held === first, "the stage is kept for the next frame")
        XCTAssertEqual(second, 1, "the second part: half of 3, rounded down; the caller keeps 2")
        XCTAssertEqual(ThreadShare.usage, 3...3, "the frame ran on the whole share")
        let (again, half) = StageThread.split(&held, share: 2)
        XCTAssertTrue(again === first, "made on first need only")
        XCTAssertEqual(half, 1)
        XCTAssertEqual(ThreadShare.usage, 2...3)
        first.start { 7 }
        XCTAssertEqual(try first.wait().get(), 7)
    }
}
