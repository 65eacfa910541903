@testable import Extraction
import XCTest

/// The cores dealt among a run's workers, and dealt again among the others when one has no file left.
final class CoreSharesTests: XCTestCase {
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
}
