import Landmarking
import XCTest

/// Hand-computed cases for the detection steps every detector shares: anchors, SSD decoding, weighted
/// non-max suppression, letterbox removal.
final class DetectionTests: XCTestCase {
    func palm(_ score: Float, _ x0: Float, _ y0: Float, _ x1: Float, _ y1: Float) -> Detection {
        Detection(score: score, box: Box(xMin: x0, yMin: y0, xMax: x1, yMax: y1),
                      keypoints: [SIMD2(x0, y0), SIMD2(x1, y1)])
    }

    func testWeightedNMSAveragesOverlapsByScore() {
        // Two boxes with IoU 0.6 merge; the far one stays apart.
        let out = Detection.weightedNonMaxSuppression(
            [palm(0.6, 0.1, 0.0, 1.1, 1.0), palm(0.9, 0, 0, 1, 1), palm(0.7, 2, 2, 3, 3)], iouThreshold: 0.3)
        XCTAssertEqual(out.count, 2)
        XCTAssertEqual(out[0].score, 0.9)
        XCTAssertEqual(out[0].box.xMin, (0.9 * 0 + 0.6 * 0.1) / 1.5, accuracy: 1e-6)
        XCTAssertEqual(out[0].box.xMax, (0.9 * 1 + 0.6 * 1.1) / 1.5, accuracy: 1e-6)
        XCTAssertEqual(out[0].keypoints[0].x, (0.6 * 0.1) / 1.5, accuracy: 1e-6)
        XCTAssertEqual(out[1].score, 0.7)
        XCTAssertEqual(out[1].box, Box(xMin: 2, yMin: 2, xMax: 3, yMax: 3))
    }

    func testIoU() {
        let a = Box(xMin: 0, yMin: 0, xMax: 2, yMax: 2), b = Box(xMin: 1, yMin: 1, xMax: 3, yMax: 3)
        XCTAssertEqual(a.iou(b), 1.0 / 7.0, accuracy: 1e-6)
        XCTAssertEqual(a.iou(Box(xMin: 5, yMin: 5, xMax: 6, yMax: 6)), 0)
    }
    func testAnchorsOfLayersSharingAStrideShareTheirGrid() {
        // The pose detector's layout: 28x28x2 + 14x14x2 + 7x7x6 = 2254.
        let anchors = SSDAnchors.centres(size: 224, grids: [(8, 2), (16, 2), (32, 6)])
        XCTAssertEqual(anchors.count, 2254)
        XCTAssertEqual(anchors[0], SIMD2(0.5 / 28, 0.5 / 28))
        XCTAssertEqual(anchors[28 * 28 * 2], SIMD2(0.5 / 14, 0.5 / 14))
        XCTAssertEqual(anchors[2253], SIMD2(6.5 / 7, 6.5 / 7))
        // A size that is no multiple of the stride rounds the grid up.
        XCTAssertEqual(SSDAnchors.centres(size: 20, grids: [(8, 1)]).count, 9)
    }

    func testSSDDecodingAroundAnchors() {
        // Two anchors, one keypoint each; rows x, y, w, h, kx, ky in input pixels (size 100).
        let anchors: [SIMD2<Float>] = [SIMD2(0.25, 0.25), SIMD2(0.75, 0.75)]
        let boxes: [Float] = [10, -5, 20, 40, 0, 10,
                              0, 0, -1, 10, 0, 0]
        // The first scores sigmoid(0) = 0.5; the second's logit is clipped to 100 but its width is negative.
        let scores: [Float] = [0, 1000]
        let out = boxes.withUnsafeBufferPointer { b in
            scores.withUnsafeBufferPointer { s in
                Detection.decodeSSD(boxes: b, scores: s, anchors: anchors, keypoints: 1, inputSize: 100, minScore: 0.5)
            }
        }
        XCTAssertEqual(out.count, 1)
        XCTAssertEqual(out[0].score, 0.5)
        XCTAssertEqual(out[0].box.xMin, 0.35 - 0.1, accuracy: 1e-6)
        XCTAssertEqual(out[0].box.yMax, 0.2 + 0.2, accuracy: 1e-6)
        XCTAssertEqual(out[0].keypoints[0].x, 0.25, accuracy: 1e-6)
        XCTAssertEqual(out[0].keypoints[0].y, 0.35, accuracy: 1e-6)
        // Below the minimum score nothing is kept.
        let none = boxes.withUnsafeBufferPointer { b in
            scores.withUnsafeBufferPointer { s in
                Detection.decodeSSD(boxes: b, scores: s, anchors: anchors, keypoints: 1, inputSize: 100, minScore: 0.6)
            }
        }
        XCTAssertTrue(none.isEmpty)
    }

    func testLetterboxRemovalUndoesThePadding() {
        // A 200x100 frame letterboxed to a square has a quarter of padding above and below.
        let d = Detection(score: 1, box: Box(xMin: 0, yMin: 0.25, xMax: 1, yMax: 0.75), keypoints: [SIMD2(0.5, 0.5), SIMD2(0.5, 0.25)])
        let out = d.removingLetterbox(padding: SIMD2(0, 0.25))
        XCTAssertEqual(out.box, Box(xMin: 0, yMin: 0, xMax: 1, yMax: 1))
        XCTAssertEqual(out.keypoints, [SIMD2(0.5, 0.5), SIMD2(0.5, 0)])
        XCTAssertEqual(out.score, 1)
    }
}
