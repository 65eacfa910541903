import Landmarking
import XCTest

/// Projection through a region of interest.
final class RegionOfInterestTests: XCTestCase {
    func testProjectionMapsRegionCornersAndScalesDepth() {
        let r = RegionOfInterest(xCenter: 0.5, yCenter: 0.5, width: 0.2, height: 0.4, rotation: 0)
        XCTAssertEqual(r.project(Point3(0, 0, 1)), Point3(0.4, 0.3, 0.2))
        XCTAssertEqual(r.project(Point3(0.5, 0.5, 0)), Point3(0.5, 0.5, 0))
        // Turned 90 degrees clockwise: the crop's top-left corner lands at the top-right.
        let t = RegionOfInterest(xCenter: 0.5, yCenter: 0.5, width: 0.2, height: 0.2, rotation: .pi / 2)
        let p = t.project(Point3(0, 0, 0))
        XCTAssertEqual(p.x, 0.6, accuracy: 1e-6)
        XCTAssertEqual(p.y, 0.4, accuracy: 1e-6)
    }
}
