@testable import Extraction
import XCTest

/// The cores dealt among a run's workers, and dealt again among the others when one has no file left.
final class CoreSharesTests: XCTestCase {
    /// What a worker heard.
    final class Heard: ShareListener {
        var shares: [Int] = []
        func tell(share: Int) { shares.append(share) }
    }

    func testCoresAreDealtEvenlyWithTheRemainderToTheFirst() {
        XCTAssertEqual(CoreShares.deal(8, among: 3), [3, 3, 2])
        XCTAssertEqual(CoreShares.deal(2, among: 2), [1, 1])
        XCTAssertEqual(CoreShares.deal(2, among: 1), [2])
        XCTAssertEqual(CoreShares.deal(2, among: 5), [1, 1, 1, 1, 1], "more jobs than cores: one thread each")
        XCTAssertEqual(CoreShares.deal(64, among: 0), [])
        for cores in 1...70 {
            for count in 1...cores { XCTAssertEqual(CoreShares.deal(cores, among: count).reduce(0, +), cores, "\(cores) among \(count)") }
        }
    }

    func testALeavingWorkersCoresGoToTheOthers() {
        let shares = CoreShares(cores: 16, slots: 3)
        XCTAssertEqual((0..<3).map(shares.share), [6, 5, 5])
        shares.leave(0)
        XCTAssertEqual([1, 2].map(shares.share), [8, 8])
        XCTAssertEqual(shares.share(0), 1, "a slot that has left has no share")
        shares.leave(2)
        XCTAssertEqual(shares.share(1), 16)
    }

    /// A worker started on a share another worker's leaving has since raised is told at once.
    func testAWorkerAttachedAfterALeaveIsToldItsNewShare() {
        let shares = CoreShares(cores: 2, slots: 2)
        let started = shares.share(1)
        XCTAssertEqual(started, 1)
        shares.leave(0)
        let worker = Heard()
        shares.attach(worker, to: 1, share: started)
        XCTAssertEqual(worker.shares, [2])
        let other = Heard()
        shares.attach(other, to: 1, share: 2)
        XCTAssertEqual(other.shares, [], "started on its share: nothing to tell")
    }

    /// Each worker still working is told its new share once when another leaves.
    func testWorkersStillWorkingAreToldOnce() {
        let shares = CoreShares(cores: 8, slots: 3)
        let workers = (0..<3).map { _ in Heard() }
        for (slot, w) in workers.enumerated() { shares.attach(w, to: slot, share: shares.share(slot)) }
        shares.leave(2)
        XCTAssertEqual(workers.map(\.shares), [[4], [4], []])
        shares.leave(0)
        XCTAssertEqual(workers.map(\.shares), [[4], [4, 8], []])
    }
}
