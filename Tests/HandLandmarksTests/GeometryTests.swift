import Foundation
@testable import HandLandmarks
import Landmarking
import XCTest

/// Hand-computed cases for the palm anchors and the hand's regions (from a palm, from landmarks).
final class GeometryTests: XCTestCase {
    func testAnchorsFollowMediaPipesLayout() {
        let anchors = PalmDetector.makeAnchors()
        XCTAssertEqual(anchors.count, 2016)
        // Stride 8: 24x24 cells, 2 anchors each, first cell centre (0.5/24, 0.5/24).
        XCTAssertEqual(anchors[0], SIMD2(0.5 / 24, 0.5 / 24))
        XCTAssertEqual(anchors[1], anchors[0])
        XCTAssertEqual(anchors[2], SIMD2(1.5 / 24, 0.5 / 24))
        XCTAssertEqual(anchors[1151], SIMD2(23.5 / 24, 23.5 / 24))
        // Stride 16: 12x12 cells, 6 anchors each.
        XCTAssertEqual(anchors[1152], SIMD2(0.5 / 12, 0.5 / 12))
        XCTAssertEqual(anchors[1157], SIMD2(0.5 / 12, 0.5 / 12))
        XCTAssertEqual(anchors[1158], SIMD2(1.5 / 12, 0.5 / 12))
        XCTAssertEqual(anchors[2015], SIMD2(11.5 / 12, 11.5 / 12))
    }

    func palm(_ score: Float, _ x0: Float, _ y0: Float, _ x1: Float, _ y1: Float) -> Detection {
        Detection(score: score, box: Box(xMin: x0, yMin: y0, xMax: x1, yMax: y1),
                      keypoints: [SIMD2(x0, y0), SIMD2(x1, y1)])
    }

    func testPalmRegionIsShiftedSquaredAndScaled() {
        // A 0.1 x 0.1 palm box centred at (0.5, 0.5) in a 200x100 frame, wrist straight below the
        // middle MCP: no rotation. The region moves up half its height, squares on the long side
        // (0.1 * 200 = 20 px) and grows 2.6x.
        let p = Detection(score: 1, box: Box(xMin: 0.45, yMin: 0.45, xMax: 0.55, yMax: 0.55),
                              keypoints: [SIMD2(0.5, 0.54), SIMD2(0.5, 0.5), SIMD2(0.5, 0.46)] + Array(repeating: SIMD2(0.5, 0.5), count: 4))
        let r = RegionOfInterest.fromPalm(p, imageWidth: 200, imageHeight: 100)
        XCTAssertEqual(r.rotation, 0, accuracy: 1e-6)
        XCTAssertEqual(r.xCenter, 0.5, accuracy: 1e-6)
        XCTAssertEqual(r.yCenter, 0.5 - 0.05, accuracy: 1e-6)
        XCTAssertEqual(r.width * 200, 20 * 2.6, accuracy: 1e-4)
        XCTAssertEqual(r.height * 100, 20 * 2.6, accuracy: 1e-4)
    }

    func testRotationPointsFingersUp() {
        // Fingers pointing right (middle MCP right of the wrist): the hand is turned 90 degrees clockwise
        // from upright, so the region's rotation is +pi/2, and the shift moves the centre right.
        let p = Detection(score: 1, box: Box(xMin: 0.4, yMin: 0.4, xMax: 0.6, yMax: 0.6),
                              keypoints: [SIMD2(0.45, 0.5), SIMD2(0.5, 0.5), SIMD2(0.55, 0.5)] + Array(repeating: SIMD2(0.5, 0.5), count: 4))
        let r = RegionOfInterest.fromPalm(p, imageWidth: 100, imageHeight: 100)
        XCTAssertEqual(r.rotation, .pi / 2, accuracy: 1e-5)
        XCTAssertEqual(r.xCenter, 0.5 + 0.5 * 0.2, accuracy: 1e-5)
        XCTAssertEqual(r.yCenter, 0.5, accuracy: 1e-5)
    }

    func testTasksPalmRegionTurnsTowardsNinetyRadians() {
        // The upright palm of testPalmRegionIsShiftedSquaredAndScaled, square frame: the legacy region is
        // not turned; Tasks' is turned 90 - pi/2 (mod 2 pi) radians, and its centre moves along the turned
        // shift (half the palm box's height "up" the region), while the size is unchanged.
        let p = Detection(score: 1, box: Box(xMin: 0.45, yMin: 0.45, xMax: 0.55, yMax: 0.55),
                              keypoints: [SIMD2(0.5, 0.54), SIMD2(0.5, 0.5), SIMD2(0.5, 0.46)] + Array(repeating: SIMD2(0.5, 0.5), count: 4))
        let legacy = RegionOfInterest.fromPalm(p, imageWidth: 100, imageHeight: 100, target: .legacy)
        let tasks = RegionOfInterest.fromPalm(p, imageWidth: 100, imageHeight: 100, target: .tasks)
        let turn = Float(90 - 28.5 * Double.pi)  // 90 radians less the upright pi/2, wrapped (14 turns)
        XCTAssertEqual(legacy.rotation, 0, accuracy: 1e-6)
        XCTAssertEqual(tasks.rotation, turn, accuracy: 1e-5)
        XCTAssertEqual(tasks.rotation, 0.4646, accuracy: 1e-4)
        XCTAssertEqual(tasks.xCenter, 0.5 + 0.05 * sin(turn), accuracy: 1e-5)
        XCTAssertEqual(tasks.yCenter, 0.5 - 0.05 * cos(turn), accuracy: 1e-5)
        XCTAssertEqual(tasks.width, legacy.width, accuracy: 1e-6)
        XCTAssertEqual(tasks.height, legacy.height, accuracy: 1e-6)
    }

    func testRegionFromLandmarksOfAnUprightHand() {
        // An upright hand: wrist at the bottom, all tracking points in a 40 x 80 px box in a 400x400 frame.
        var lm = [Point3](repeating: Point3(0.5, 0.5, 0), count: 21)
        lm[0] = Point3(0.5, 0.6, 0)
        for (k, j) in [1, 2, 3, 5, 6, 9, 10, 13, 14, 17, 18].enumerated() {
            lm[j] = Point3(0.45 + Float(k % 5) * 0.025, 0.4 + Float(k / 5) * 0.05, 0)
        }
        lm[9] = Point3(0.5, 0.45, 0); lm[5] = Point3(0.47, 0.46, 0); lm[13] = Point3(0.53, 0.46, 0)
        let r = RegionOfInterest.fromLandmarks(lm, imageWidth: 400, imageHeight: 400)
        XCTAssertEqual(r.rotation, 0, accuracy: 1e-5)
        XCTAssertEqual(r.width, r.height, accuracy: 1e-6)
        // Long side 0.2 (0.4..0.6 in y), scaled 2x; centre 0.5 moved up by 0.1 x 0.2.
        XCTAssertEqual(r.height, 0.4, accuracy: 1e-5)
        XCTAssertEqual(r.yCenter, 0.5 - 0.02, accuracy: 1e-5)
    }
}
