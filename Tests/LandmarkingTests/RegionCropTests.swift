import Foundation
@testable import Landmarking
import VideoIO
import XCTest

/// Crops equal OpenCV's fixed-point warp (as MediaPipe's ImageToTensorCalculator runs it), pixel by pixel.
final class RegionCropTests: XCTestCase {
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
