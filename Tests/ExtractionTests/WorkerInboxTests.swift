@testable import Extraction
import Inference
import Synchronization
import XCTest

/// A worker's input: jobs in order, shares applied as they come (capped at the plans' threads), a share
/// line that is not a number ignored, and the end of input seen once the jobs are taken.
final class WorkerInboxTests: XCTestCase {
    override func tearDown() { ThreadShare.reset() }

    /// An inbox reading `lines`, then the end of its input.
    func inbox(_ lines: [String], threads: Int) -> WorkerInbox {
        let left = Mutex(lines[...])
        let inbox = WorkerInbox(readLine: { left.withLock { $0.popFirst() } }, threads: threads)
        inbox.start()
        return inbox
    }

    func testJobsComeInOrderAndSharesApplyAsTheyArrive() {
        ThreadShare.reset()
        let box = inbox(["share 2", "{\"job\":1}", "share 3", "{\"job\":2}", "share 9"], threads: 4)
        XCTAssertEqual(box.next(), "{\"job\":1}")
        XCTAssertEqual(box.next(), "{\"job\":2}")
        XCTAssertNil(box.next(), "the input ended: no more jobs, and no wait")
        XCTAssertNil(box.next())
        XCTAssertEqual(ThreadShare.current, 4, "the last share, capped at the plans' threads")
    }

    func testASharesLineThatIsNotAWholeNumberOfAtLeastOneIsIgnored() {
        ThreadShare.set(2)
        let box = WorkerInbox(readLine: { nil }, threads: 8)
        for line in ["share x", "share 0", "share -3", "share ", "share 2.5", "share 99999999999999999999999"] {
            box.take(line)
            XCTAssertEqual(ThreadShare.current, 2, line)
        }
        box.take("share 5")
        XCTAssertEqual(ThreadShare.current, 5)
    }

    func testAnInputThatEndsAtOnceEndsTheJobs() {
        XCTAssertNil(inbox([], threads: 2).next())
    }
}
