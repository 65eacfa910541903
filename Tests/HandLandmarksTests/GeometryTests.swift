import Foundation
import XCTest
@testable import HandLandmarks
import VideoIO

/// Hand-computed cases for anchors, decoding, NMS, region geometry and projection.
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

    func palm(_ score: Float, _ x0: Float, _ y0: Float, _ x1: Float, _ y1: Float) -> PalmDetection {
        PalmDetection(score: score, box: Box(xMin: x0, yMin: y0, xMax: x1, yMax: y1),
                      keypoints: [SIMD2(x0, y0), SIMD2(x1, y1)])
    }

    func testWeightedNMSAveragesOverlapsByScore() {
        // Two boxes with IoU 0.6 merge; the far one stays apart.
        let out = PalmDetector.weightedNonMaxSuppression(
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

    func testPalmRegionIsShiftedSquaredAndScaled() {
        // A 0.1 x 0.1 palm box centred at (0.5, 0.5) in a 200x100 frame, wrist straight below the
        // middle MCP: no rotation. The region moves up half its height, squares on the long side
        // (0.1 * 200 = 20 px) and grows 2.6x.
        let p = PalmDetection(score: 1, box: Box(xMin: 0.45, yMin: 0.45, xMax: 0.55, yMax: 0.55),
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
        let p = PalmDetection(score: 1, box: Box(xMin: 0.4, yMin: 0.4, xMax: 0.6, yMax: 0.6),
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
        let p = PalmDetection(score: 1, box: Box(xMin: 0.45, yMin: 0.45, xMax: 0.55, yMax: 0.55),
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

    func testCropSamplesLikeOpenCVsFixedPointWarp() {
        // A 3x3 frame, black in column 0, white in columns 1 and 2; a one-pixel tensor reading at
        // (1/3, 1). OpenCV rounds the position to 11/32 pixel and the weights to 1/32768ths, and the
        // result to 8 bits: (255 * 11264 + 16384) >> 15 = 88, where exact bilinear would give 85.
        var frame = VideoFrame(width: 3, height: 3)
        for y in 0..<3 { for x in 1..<3 { for k in 0..<3 { frame.pixels[(y * 3 + x) * 3 + k] = 255 } } }
        let region = RegionOfInterest(xCenter: (1.0 / 3 + 0.5) / 3, yCenter: 0.5, width: 1.0 / 3, height: 1.0 / 3, rotation: 0)
        var out = [Float](repeating: -1, count: 3)
        out.withUnsafeMutableBufferPointer { RegionCrop.sample(frame, region: region, size: 1, border: .zero, into: $0.baseAddress!) }
        XCTAssertEqual(out, [88, 88, 88].map { Float($0) / 255 })
        // Reading at x = 2.5, half on the last column and half beyond the frame: zeros beyond with
        // .zero ((255 * 16384 + 16384) >> 15 = 128), the edge pixel with .replicate (255).
        let outside = RegionOfInterest(xCenter: 1, yCenter: 0.5, width: 1.0 / 3, height: 1.0 / 3, rotation: 0)
        var z = [Float](repeating: -1, count: 3), r = z
        z.withUnsafeMutableBufferPointer { RegionCrop.sample(frame, region: outside, size: 1, border: .zero, into: $0.baseAddress!) }
        r.withUnsafeMutableBufferPointer { RegionCrop.sample(frame, region: outside, size: 1, border: .replicate, into: $0.baseAddress!) }
        XCTAssertEqual(z, [128, 128, 128].map { Float($0) / 255 })
        XCTAssertEqual(r, [1, 1, 1])
    }

    /// The sampler works out positions eight at a time and rounds them without a library call; here it
    /// is held to the plain per-pixel formula (OpenCV's arithmetic, written out below), bit for bit, on
    /// random frames and regions: rotated, partly or wholly outside the frame, reaching its last pixel,
    /// tensors whose width is not a multiple of eight, both borders.
    func testCropEqualsThePerPixelFormula() {
        var rng = SystemRandomNumberGenerator()
        var cases = 0, outside = 0
        for trial in 0..<300 {
            let w = Int.random(in: 1...41, using: &rng), h = Int.random(in: 1...29, using: &rng)
            let frame = VideoFrame(index: 0, time: 0, width: w, height: h,
                                   pixels: (0..<w * h * 3).map { _ in UInt8.random(in: 0...255, using: &rng) })
            // Every fifth region ends on the frame's bottom-right corner, where a pixel is the buffer's last.
            let centre = trial % 5 == 0 ? SIMD2<Float>(1, 1) : SIMD2(Float.random(in: -0.5...1.5), Float.random(in: -0.5...1.5))
            let region = RegionOfInterest(xCenter: centre.x, yCenter: centre.y, width: Float.random(in: 0.05...2),
                                          height: Float.random(in: 0.05...2), rotation: Float.random(in: -4...4))
            let size = Int.random(in: 1...37, using: &rng)
            for border in [RegionCrop.Border.zero, .replicate] {
                var got = [Float](repeating: -1, count: size * size * 3)
                got.withUnsafeMutableBufferPointer { RegionCrop.sample(frame, region: region, size: size, border: border, into: $0.baseAddress!) }
                let want = Self.perPixelCrop(frame, region: region, size: size, border: border)
                if let i = got.indices.first(where: { got[$0].bitPattern != want.crop[$0].bitPattern }) {
                    XCTFail("\(w)x\(h) frame, \(region), size \(size), \(border): value \(i) is \(got[i]), the formula gives \(want.crop[i])")
                }
                cases += 1
                outside += want.outside
            }
        }
        XCTAssertEqual(cases, 600)
        XCTAssertGreaterThan(outside, 1000, "the regions must reach outside the frame")
        // Far outside (up to about 80,000 pixels away, beyond the range the first regions reach), the
        // same bits; a region of NaNs reads as wholly outside: zeros, or the frame's first pixel.
        var frame = VideoFrame(width: 5, height: 4)
        for i in frame.pixels.indices { frame.pixels[i] = UInt8(truncatingIfNeeded: i &* 37 &+ 11) }
        for far: Float in [-2000, -300, 300, 2000] {
            let region = RegionOfInterest(xCenter: far, yCenter: -far / 2, width: 3, height: 2, rotation: 0.3)
            for border in [RegionCrop.Border.zero, .replicate] {
                var got = [Float](repeating: -1, count: 11 * 11 * 3)
                got.withUnsafeMutableBufferPointer { RegionCrop.sample(frame, region: region, size: 11, border: border, into: $0.baseAddress!) }
                XCTAssertEqual(got.map(\.bitPattern), Self.perPixelCrop(frame, region: region, size: 11, border: border).crop.map(\.bitPattern), "\(region), \(border)")
            }
        }
        let nan = RegionOfInterest(xCenter: .nan, yCenter: .nan, width: .nan, height: .nan, rotation: .nan)
        var zero = [Float](repeating: -1, count: 9 * 9 * 3), edge = zero
        zero.withUnsafeMutableBufferPointer { RegionCrop.sample(frame, region: nan, size: 9, border: .zero, into: $0.baseAddress!) }
        edge.withUnsafeMutableBufferPointer { RegionCrop.sample(frame, region: nan, size: 9, border: .replicate, into: $0.baseAddress!) }
        XCTAssertEqual(zero, [Float](repeating: 0, count: 9 * 9 * 3))
        XCTAssertEqual(edge, (0..<9 * 9).flatMap { _ in frame.pixels[0..<3].map { Float($0) * (1 / 255 as Float) } })
    }

    /// One tensor pixel at a time: the position rounded to 1/32 pixel, OpenCV's weights, 8-bit result.
    /// Also counts the pixels that read outside the frame.
    static func perPixelCrop(_ frame: VideoFrame, region: RegionOfInterest, size: Int, border: RegionCrop.Border) -> (crop: [Float], outside: Int) {
        let W = Float(frame.width), H = Float(frame.height)
        let c = cos(region.rotation), s = sin(region.rotation)
        let rw = region.width * W, rh = region.height * H
        let du = SIMD2<Float>(c * rw, s * rw) / Float(size), dv = SIMD2<Float>(-s * rh, c * rh) / Float(size)
        let origin = SIMD2<Float>(region.xCenter * W, region.yCenter * H) - 0.5 * SIMD2(c * rw, s * rw) - 0.5 * SIMD2(-s * rh, c * rh)
        var crop: [Float] = [], outside = 0
        for v in 0..<size {
            for u in 0..<size {
                let pos = origin + Float(u) * du + Float(v) * dv
                let X = Int((pos.x * 32).rounded(.toNearestOrEven)), Y = Int((pos.y * 32).rounded(.toNearestOrEven))
                let wt = RegionCrop.fixedPointWeights[(Y & 31) * 32 + (X & 31)]
                var sum = [Int32](repeating: 1 << 14, count: 3)
                for corner in 0..<4 {
                    var x = (X >> 5) + corner % 2, y = (Y >> 5) + corner / 2
                    if x < 0 || y < 0 || x >= frame.width || y >= frame.height {
                        outside += 1
                        if border == .zero { continue }
                        x = min(max(x, 0), frame.width - 1); y = min(max(y, 0), frame.height - 1)
                    }
                    let p = frame[x, y]
                    for (k, value) in [p.r, p.g, p.b].enumerated() { sum[k] += Int32(value) * Int32(wt[corner]) }
                }
                crop += sum.map { Float(min(max($0 >> 15, 0), 255)) * (1 / 255 as Float) }
            }
        }
        return (crop, outside)
    }

    func testLetterboxPadsTheShortSide() {
        let (r, pad) = RegionCrop.letterbox(width: 200, height: 100)
        XCTAssertEqual(r.height, 2)
        XCTAssertEqual(pad, SIMD2(0, 0.25))
    }
}
