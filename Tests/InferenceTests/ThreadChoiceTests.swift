import Foundation
@testable import Inference
import XCTest

/// A plan of more than one thread keeps its threads only while timing shows they pay, and its outputs do not
/// depend on which way it ran.
final class ThreadChoiceTests: XCTestCase {
    /// Runs `choice` through `count` runs, each taking `threads` or `alone` seconds by its mode; the modes run.
    @discardableResult
    private func drive(_ choice: inout ThreadChoice, runs count: Int, threads: Double, alone: Double) -> [ThreadChoice.Mode] {
        (0..<count).map { _ in
            let mode = choice.next()
            if choice.inTrial { choice.record(mode, seconds: mode == .threads ? threads : alone) }
            return mode
        }
    }

    private var trialLength: Int { 2 * ThreadChoice.trialRuns }

    func testWarmUpThenATrialThatAlternatesTheModes() {
        var choice = ThreadChoice()
        for _ in 0..<ThreadChoice.warmUpRuns {
            XCTAssertEqual(choice.next(), .threads)
            XCTAssertFalse(choice.inTrial, "warm-up runs are not timed")
        }
        let modes = drive(&choice, runs: trialLength, threads: 1, alone: 2)
        XCTAssertEqual(modes, (0..<trialLength).map { $0 % 2 == 0 ? .threads : .alone })
        XCTAssertEqual(choice.trials, 1)
        XCTAssertFalse(choice.inTrial)
    }

    func testTheThreadsStayOnlyWhenTheySaveATenth() {
        for (threads, alone, expected) in [(1.0, 2.0, ThreadChoice.Mode.threads), (2.0, 1.0, .alone), (0.95, 1.0, .alone),
                                           (0.85, 1.0, .threads), (1.0, 1.0, .alone)] {
            var choice = ThreadChoice()
            drive(&choice, runs: ThreadChoice.warmUpRuns + trialLength, threads: threads, alone: alone)
            XCTAssertEqual(choice.decided, expected, "threads \(threads) s, alone \(alone) s")
            // Between trials every run takes the decided way, untimed.
            let between = drive(&choice, runs: 50, threads: threads, alone: alone)
            XCTAssertEqual(Set(between), [expected])
        }
    }

    func testOneSlowRunDoesNotDecide() {
        var choice = ThreadChoice()
        drive(&choice, runs: ThreadChoice.warmUpRuns, threads: 1, alone: 2)
        var threadRuns = 0
        for _ in 0..<trialLength {
            let mode = choice.next()
            var seconds = mode == .threads ? 1.0 : 2.0
            if mode == .threads { threadRuns += 1; if threadRuns == 2 { seconds = 50 } }   // descheduled once
            choice.record(mode, seconds: seconds)
        }
        XCTAssertEqual(choice.decided, .threads)
    }

    func testTrialsComeSoonAfterAChangeAndRarerWhileTheChoiceHolds() {
        var choice = ThreadChoice()
        drive(&choice, runs: ThreadChoice.warmUpRuns + trialLength, threads: 2, alone: 1)
        XCTAssertEqual(choice.decided, .alone)
        // Each trial that confirms the choice doubles the runs before the next.
        var interval = ThreadChoice.firstInterval
        for trials in 2...4 {
            XCTAssertEqual(Set(drive(&choice, runs: interval, threads: 2, alone: 1)), [.alone])
            XCTAssertEqual(choice.trials, trials - 1, "no trial before \(interval) runs")
            drive(&choice, runs: trialLength, threads: 2, alone: 1)
            XCTAssertEqual(choice.trials, trials)
            interval *= 2
        }
        // The machine changes: now two threads pay. The choice stands until the next trial, which finds it out.
        XCTAssertEqual(Set(drive(&choice, runs: interval, threads: 1, alone: 2)), [.alone])
        drive(&choice, runs: trialLength, threads: 1, alone: 2)
        XCTAssertEqual(choice.decided, .threads)
        // After a change, the next trial comes after firstInterval runs again.
        XCTAssertEqual(Set(drive(&choice, runs: ThreadChoice.firstInterval, threads: 1, alone: 2)), [.threads])
        _ = choice.next()
        XCTAssertTrue(choice.inTrial)
    }

    func testTheIntervalStopsGrowing() {
        var choice = ThreadChoice()
        var runs = 0
        while choice.trials < 12 {
            let mode = choice.next()
            if choice.inTrial { choice.record(mode, seconds: mode == .threads ? 1 : 2) }
            runs += 1
        }
        let before = choice.trials
        drive(&choice, runs: ThreadChoice.longestInterval + trialLength + 1, threads: 1, alone: 2)
        XCTAssertEqual(choice.trials, before + 1, "one trial in longestInterval runs, after \(runs) runs")
    }

    /// A real model's two-thread plan, run through its warm-up, its trial and on: every run's outputs equal a
    /// one-thread plan's bit for bit, whichever way each run went.
    func testAPlanGivesTheSameBitsWhicheverWayItRuns() throws {
        for name in ["hand_recrop", "face_landmark", "hand_landmark_full", "palm_detection_lite"] {
            let model = try TFLiteModel(path: try Fixtures.modelPath(name))
            let inputs = SameBits.inputs(model, seed: 91)
            let one = try ExecutionPlan(model: model, threads: 1)
            let two = try ExecutionPlan(model: model, threads: 2)
            XCTAssertFalse(two.threadsDecided)
            XCTAssertTrue(one.threadsDecided)
            XCTAssertEqual(one.threadsInUse, 1)
            let expected = try inputs.map { try SameBits.outputs(one, $0) }
            for run in 0..<(ThreadChoice.warmUpRuns + trialLength + 6) {
                let i = run % inputs.count
                let found = try zip(SameBits.outputs(two, inputs[i]), expected[i]).map(SameBits.differing)
                XCTAssertEqual(found.reduce(0) { $0 + $1.count }, 0, "\(name), run \(run)")
            }
            XCTAssertTrue(two.threadsDecided)
            // The trial's runs alone, and those after it if it chose so.
            XCTAssertEqual(two.runsAlone, ThreadChoice.trialRuns + (two.threadsInUse == 1 ? 6 : 0))
            print("\(name): two-thread plan uses \(two.threadsInUse) after its trial")

            // A plan told not to choose runs every run on its threads.
            let pinned = try ExecutionPlan(model: model, threads: 2)
            pinned.choosesThreads = false
            for run in 0..<(ThreadChoice.warmUpRuns + trialLength) {
                let found = try zip(SameBits.outputs(pinned, inputs[run % 2]), expected[run % 2]).map(SameBits.differing)
                XCTAssertEqual(found.reduce(0) { $0 + $1.count }, 0, "\(name), pinned, run \(run)")
            }
            XCTAssertEqual(pinned.runsAlone, 0)
            XCTAssertEqual(pinned.threadsInUse, 2)
        }
    }
}
