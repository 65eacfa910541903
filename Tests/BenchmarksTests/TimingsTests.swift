import Benchmarks
import XCTest

/// The order statistics the bench commands report, on lists whose answers are known by hand.
final class TimingsTests: XCTestCase {
    func testMedianOfAnOddCountIsTheMiddleTimeWhateverTheOrder() {
        let t = Timings([5, 1, 4, 2, 3])
        XCTAssertEqual(t.sorted, [1, 2, 3, 4, 5])
        XCTAssertEqual(t.median, 3)
        XCTAssertEqual(t.lowerPercentile(0.5), 3, "both rules agree on an odd count")
    }

    func testEvenCountsTakeTheHigherOrTheLowerMiddleTime() {
        let t = Timings([40, 10, 30, 20])
        XCTAssertEqual(t.median, 30, "index n/2: the higher middle time (bench models, bench profile)")
        XCTAssertEqual(t.lowerPercentile(0.5), 20, "index (n-1)/2: the lower middle time (the fusion comparison)")
    }

    func testPercentilesOfOneToTen() {
        let t = Timings((1...10).reversed().map(Double.init))
        XCTAssertEqual(t.percentile(0.9), 10, "index 9 of 10")
        XCTAssertEqual(t.percentile(0.1), 2, "index 1 of 10")
        XCTAssertEqual(t.percentile(1), 10, "capped at the last time")
        XCTAssertEqual(t.percentile(0), 1)
        XCTAssertEqual(t.lowerPercentile(0.1), 1, "index floor(9 x 0.1) = 0")
        XCTAssertEqual(t.lowerPercentile(0.9), 9, "index floor(9 x 0.9) = 8")
        XCTAssertEqual(t.lowerPercentile(1), 10)
    }

    func testOneTimeIsEveryStatistic() {
        let t = Timings([2.5])
        for q in [0, 0.1, 0.5, 0.9, 1] {
            XCTAssertEqual(t.percentile(q), 2.5)
            XCTAssertEqual(t.lowerPercentile(q), 2.5)
        }
    }

    func testEveryFigureIsAMeasuredTime() {
        let times = [0.31, 0.29, 0.35, 0.3, 0.5, 0.28, 0.33]
        let t = Timings(times)
        for q in stride(from: 0.0, through: 1.0, by: 0.05) {
            XCTAssertTrue(times.contains(t.percentile(q)), "\(q)")
            XCTAssertTrue(times.contains(t.lowerPercentile(q)), "\(q)")
            XCTAssertLessThanOrEqual(t.lowerPercentile(q), t.percentile(q), "\(q)")
        }
    }

    func testAQuantileOutOfRangeTakesTheNearestEnd() {
        let t = Timings([3, 1, 2])
        XCTAssertEqual(t.percentile(7), 3)
        XCTAssertEqual(t.percentile(-1), 1)
        XCTAssertEqual(t.percentile(.nan), 1)
        XCTAssertEqual(t.lowerPercentile(.infinity), 3)
        XCTAssertEqual(t.lowerPercentile(-.infinity), 1)
    }
}
