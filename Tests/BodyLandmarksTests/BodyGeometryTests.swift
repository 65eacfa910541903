@testable import BodyLandmarks
import Landmarking
import XCTest

/// The body pipeline's small steps against values worked out by hand from MediaPipe's definitions.
final class BodyGeometryTests: XCTestCase {
    func testAnchorsAreTasksSSDGrid() {
        let d = BodyDetector.self
        XCTAssertEqual(d.inputSize, 224)
        let anchors = SSDAnchors.centres(size: 224, grids: [(8, 2), (16, 2), (32, 6)])
        XCTAssertEqual(anchors.count, 2254)
        // First cell of the stride-8 grid, then the last anchor of the stride-32 grid.
        XCTAssertEqual(anchors[0], SIMD2(0.5 / 28, 0.5 / 28))
        XCTAssertEqual(anchors[1], anchors[0])
        XCTAssertEqual(anchors[1568], SIMD2(0.5 / 14, 0.5 / 14))
        XCTAssertEqual(anchors[2253], SIMD2(6.5 / 7, 6.5 / 7))
    }

    func testRegionIsSquareAroundHipsTurnedUpright() {
        // Hips at (320, 240) of 640x480, the extent point 100 px straight up: upright, side 2.5 x 100 px.
        let r = BodyRegion.aligned(centre: SIMD2(0.5, 0.5), scale: SIMD2(0.5, 140.0 / 480), width: 640, height: 480)
        XCTAssertEqual(r.xCenter, 0.5, accuracy: 1e-6)
        XCTAssertEqual(r.yCenter, 0.5, accuracy: 1e-6)
        XCTAssertEqual(r.width * 640, 250, accuracy: 1e-3)
        XCTAssertEqual(r.height * 480, 250, accuracy: 1e-3)
        XCTAssertEqual(r.rotation, 0, accuracy: 1e-6)
        // The extent point to the right of the hips: the body lies on its side, turned a quarter.
        let side = BodyRegion.aligned(centre: SIMD2(0.5, 0.5), scale: SIMD2(420.0 / 640, 0.5), width: 640, height: 480)
        XCTAssertEqual(side.rotation, .pi / 2, accuracy: 1e-5)
        XCTAssertEqual(side.width * 640, 250, accuracy: 1e-3)
    }

    func testHeatmapRefinementTakesWeightedMeanOfConfidentWindow() {
        // One landmark at the centre of cell (10, 20) of a 64x64 heatmap; two confident cells either side
        // in x pull it to their mean; a second landmark whose window is all below 0.5 does not move.
        let side = 64, channels = 2
        var heat = [Float](repeating: -20, count: side * side * channels)
        heat[(20 * side + 9) * channels] = 20
        heat[(20 * side + 12) * channels] = 20
        var points = [Point3((10 + 0.5) / 64, (20 + 0.5) / 64, 0.3), Point3(0.5, 0.5, 0.1)]
        heat.withUnsafeBufferPointer { BodyLandmarker.refine(&points, heatmap: $0, side: side) }
        XCTAssertEqual(points[0].x, 10.5 / 64, accuracy: 1e-4)
        XCTAssertEqual(points[0].y, 20.0 / 64, accuracy: 1e-4)
        XCTAssertEqual(points[0].z, 0.3)
        XCTAssertEqual(points[1], Point3(0.5, 0.5, 0.1))
    }

    func testOneEuroFilterFollowsMediaPipe() {
        // MediaPipe 1.2's quirks: the first call starts the filter, even at time 0; while the last time is
        // 0 the rate stays at 30 Hz; then it comes from the last two timestamps.
        var f = OneEuroFilter(frequency: 30, minCutoff: 1, beta: 0, derivateCutoff: 1)
        XCTAssertEqual(f.apply(time: 0, valueScale: 1, 5), 5)
        // At 30 Hz, cutoff 1: alpha = 1 / (1 + (1 / 2 pi) * 30), blending 10 with the 5 before.
        let alpha30 = 1 / (1 + 30 / (2 * Double.pi))
        XCTAssertEqual(f.apply(time: 100_000_000, valueScale: 1, 10), Double(Float(alpha30 * 10 + (1 - alpha30) * 5)), accuracy: 1e-5)
        let second = Double(Float(alpha30 * 10 + (1 - alpha30) * 5))
        // Then at 10 Hz (100 ms apart).
        let alpha10 = 1 / (1 + 10 / (2 * Double.pi))
        XCTAssertEqual(f.apply(time: 200_000_000, valueScale: 1, 20), Double(Float(alpha10 * 20 + (1 - alpha10) * second)), accuracy: 1e-5)
        // A timestamp not after the last passes the value through.
        XCTAssertEqual(f.apply(time: 200_000_000, valueScale: 1, 99), 99)
        // A filter first called later than 0 passes its first value and takes its rate from the next.
        var g = OneEuroFilter(frequency: 30, minCutoff: 1, beta: 0, derivateCutoff: 1)
        XCTAssertEqual(g.apply(time: 500_000_000, valueScale: 1, 5), 5)
        XCTAssertEqual(g.apply(time: 600_000_000, valueScale: 1, 10), Double(Float(alpha10 * 10 + (1 - alpha10) * 5)), accuracy: 1e-5)
    }

    func testVisibilityLowPass() {
        var v = VisibilitySmoother()
        XCTAssertEqual(v.apply([1, 0]), [1, 0])
        let second = v.apply([0, 1])
        XCTAssertEqual(second[0], 0.9, accuracy: 1e-6)
        XCTAssertEqual(second[1], 0.1, accuracy: 1e-6)
    }
}
