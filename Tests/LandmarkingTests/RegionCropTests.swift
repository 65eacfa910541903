import CCrop
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

    /// Every sampler this CPU runs (Swift's, which works out positions eight at a time and rounds them
    /// without a library call, and the C ones with gathers) is held to the plain per-pixel formula
    /// (OpenCV's arithmetic, written out below), bit for bit, on random frames and regions: rotated,
    /// partly or wholly outside the frame, reaching its last pixel, tensors whose width is not a multiple
    /// of eight or sixteen, both borders.
    func testCropEqualsThePerPixelFormula() {
        print("samplers run: \(RegionCrop.runnable)")
        for sampler in RegionCrop.runnable { checkCropEqualsThePerPixelFormula(sampler) }
    }

    func checkCropEqualsThePerPixelFormula(_ sampler: RegionCrop.Sampler) {
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
            if sampler != .perPixel {
                XCTAssertTrue(RegionCrop.gathers(frame, size: size), "\(sampler) must take a \(w)x\(h) frame, size \(size)")
            }
            for border in [RegionCrop.Border.zero, .replicate] {
                var got = [Float](repeating: -1, count: size * size * 3)
                got.withUnsafeMutableBufferPointer { RegionCrop.sample(frame, region: region, size: size, border: border, into: $0.baseAddress!, using: sampler) }
                let want = Self.perPixelCrop(frame, region: region, size: size, border: border)
                if let i = got.indices.first(where: { got[$0].bitPattern != want.crop[$0].bitPattern }) {
                    XCTFail("\(sampler): \(w)x\(h) frame, \(region), size \(size), \(border): value \(i) is \(got[i]), the formula gives \(want.crop[i])")
                }
                cases += 1
                outside += want.outside
            }
        }
        XCTAssertEqual(cases, 600)
        XCTAssertGreaterThan(outside, 1000, "the regions must reach outside the frame")
        // Far outside (up to about 80,000 pixels away, beyond the range the first regions reach, and past
        // the positions' clamp at 125,000 pixels), the same bits; a region of NaNs reads as wholly outside:
        // zeros, or the frame's first pixel.
        var frame = VideoFrame(width: 5, height: 4)
        for i in frame.pixels.indices { frame.pixels[i] = UInt8(truncatingIfNeeded: i &* 37 &+ 11) }
        for far: Float in [-1e30, -1e5, -2000, -300, 300, 2000, 1e5, 1e30] {
            let region = RegionOfInterest(xCenter: far, yCenter: -far / 2, width: 3, height: 2, rotation: 0.3)
            for border in [RegionCrop.Border.zero, .replicate] {
                var got = [Float](repeating: -1, count: 11 * 11 * 3)
                got.withUnsafeMutableBufferPointer { RegionCrop.sample(frame, region: region, size: 11, border: border, into: $0.baseAddress!, using: sampler) }
                XCTAssertEqual(got.map(\.bitPattern), Self.perPixelCrop(frame, region: region, size: 11, border: border).crop.map(\.bitPattern), "\(sampler), \(region), \(border)")
            }
        }
        let nan = RegionOfInterest(xCenter: .nan, yCenter: .nan, width: .nan, height: .nan, rotation: .nan)
        var zero = [Float](repeating: -1, count: 9 * 9 * 3), edge = zero
        zero.withUnsafeMutableBufferPointer { RegionCrop.sample(frame, region: nan, size: 9, border: .zero, into: $0.baseAddress!, using: sampler) }
        edge.withUnsafeMutableBufferPointer { RegionCrop.sample(frame, region: nan, size: 9, border: .replicate, into: $0.baseAddress!, using: sampler) }
        XCTAssertEqual(zero, [Float](repeating: 0, count: 9 * 9 * 3), "\(sampler)")
        XCTAssertEqual(edge, (0..<9 * 9).flatMap { _ in frame.pixels[0..<3].map { Float($0) * (1 / 255 as Float) } }, "\(sampler)")
    }

    /// The C samplers take only frames whose buffer holds exactly their pixels, under 2 GiB.
    func testGathersTakeOnlyConsistentFrames() {
        var frame = VideoFrame(width: 4, height: 3)
        XCTAssertTrue(RegionCrop.gathers(frame, size: 224))
        frame.width = 5
        XCTAssertFalse(RegionCrop.gathers(frame, size: 224), "a buffer smaller than width x height x 3")
        frame.width = Int.max / 2
        XCTAssertFalse(RegionCrop.gathers(frame, size: 224), "width x height past Int")
        frame.width = 0
        XCTAssertFalse(RegionCrop.gathers(frame, size: 224))
        frame.width = 4
        XCTAssertFalse(RegionCrop.gathers(frame, size: Int(Int32.max)))
    }

    #if arch(x86_64)
    /// The gathers read four bytes a texel, one more than a pixel: at the frame's last pixel that would
    /// pass the buffer's end. Here the frame ends where an unreadable page begins, and crops that read its
    /// last pixel (both borders, every C sampler the CPU runs) must neither fault nor differ from the formula.
    func testGathersStopAtTheFramesEnd() throws {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        guard let memory = mmap(nil, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), memory != MAP_FAILED else {
            return XCTFail("mmap failed")
        }
        defer { munmap(memory, 2 * page) }
        XCTAssertEqual(mprotect(memory + page, page, PROT_NONE), 0)
        let samplers = RegionCrop.runnable.filter { $0 != .perPixel }
        if samplers.isEmpty { throw XCTSkip("this CPU runs neither AVX2 nor AVX-512, so no gather sampler") }
        var checked = 0
        for (w, h) in [(1, 1), (7, 5), (16, 3), (33, 9)] {
            let bytes = w * h * 3
            let start = (memory + page - bytes).assumingMemoryBound(to: UInt8.self)
            for i in 0..<bytes { start[i] = UInt8(truncatingIfNeeded: i &* 53 &+ 7) }
            let frame = VideoFrame(index: 0, time: 0, width: w, height: h, pixels: Array(UnsafeBufferPointer(start: start, count: bytes)))
            // Regions centred on the bottom-right corner and on the whole frame, the corner inside both.
            for region in [RegionOfInterest(xCenter: 1, yCenter: 1, width: 0.5, height: 0.5, rotation: 0.2),
                           RegionOfInterest(xCenter: 0.5, yCenter: 0.5, width: 1.2, height: 1.2, rotation: 0)] {
                let size = 19
                for border in [RegionCrop.Border.zero, .replicate] {
                    let want = Self.perPixelCrop(frame, region: region, size: size, border: border).crop
                    let geometry = Self.geometry(frame, region: region, size: size)
                    for sampler in samplers {
                        var got = [Float](repeating: -1, count: size * size * 3)
                        got.withUnsafeMutableBufferPointer {
                            let run = sampler == .avx512 ? handpose_crop_avx512 : handpose_crop_avx2
                            run(start, Int32(w), Int32(h), geometry, Int32(size), border == .replicate ? 1 : 0, $0.baseAddress!)
                        }
                        XCTAssertEqual(got.map(\.bitPattern), want.map(\.bitPattern), "\(sampler), \(w)x\(h), \(region), \(border)")
                        checked += 1
                    }
                }
            }
        }
        XCTAssertEqual(checked, 16 * samplers.count)
    }

    /// The geometry `RegionCrop.sample` hands the C samplers.
    static func geometry(_ frame: VideoFrame, region: RegionOfInterest, size: Int) -> handpose_crop_geometry {
        let (origin, du, dv) = RegionCrop.placement(frame, region: region, size: size)
        return handpose_crop_geometry(origin_x: origin.x, origin_y: origin.y, du_x: du.x, du_y: du.y, dv_x: dv.x, dv_y: dv.y)
    }
    #endif

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
                // Positions clamped to 125,000 pixels either way (in 1/32 pixels), far outside any frame.
                func fixed(_ f: Float) -> Int { Int(min(max(f * 32, -4_000_000), 4_000_000).rounded(.toNearestOrEven)) }
                let X = fixed(pos.x), Y = fixed(pos.y)
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
