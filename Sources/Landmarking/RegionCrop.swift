import CCrop
import Foundation
import Inference
import VideoIO

/// Cuts a rotated region out of a frame into a model's input tensor: RGB floats in [0, 1], NHWC.
///
/// MediaPipe's `ImageToTensorCalculator` (OpenCV path: `warpPerspective`, INTER_LINEAR, on the 8-bit
/// frame) maps the region's corners onto the tensor's corners, so tensor pixel (u, v) reads the frame at
/// `centre + R(rotation) * ((u / width - 0.5) * regionWidth, (v / height - 0.5) * regionHeight)`,
/// frame pixel centres at integer coordinates. Its fixed-point arithmetic is reproduced exactly:
/// on the corpus photos our landmarks then equal MediaPipe's to 1e-4 palm sizes.
public enum RegionCrop {
    public enum Border: Sendable { case zero, replicate }

    /// How a crop is computed: the same bits each way. `perPixel` is Swift, one tensor pixel at a time;
    /// `avx2` and `avx512` are C (`CCrop`), 8 or 16 pixels at a time with the CPU's gathers.
    enum Sampler: Sendable {
        case perPixel, avx2, avx512

        /// The sampler for the kernels' instruction set.
        init(_ isa: ISA) {
            switch isa {
            case .avx512: self = .avx512
            case .avx2: self = .avx2
            case .baseline: self = .perPixel
            }
        }
    }

    /// The fastest sampler this CPU runs, under the kernels' cap (`HANDPOSE_MAX_ISA`), chosen once.
    static let fastest = Sampler((try? KernelSelection.best()) ?? .baseline)

    /// The samplers this CPU runs (the cap not applied: tests run them all).
    static var runnable: [Sampler] { KernelSelection.runnable.map(Sampler.init) }

    /// Where tensor pixel (u, v) reads the frame: `origin + u * du + v * dv`, in frame pixels.
    static func placement(_ frame: VideoFrame, region: RegionOfInterest, size: Int) -> (origin: SIMD2<Float>, du: SIMD2<Float>, dv: SIMD2<Float>) {
        let W = Float(frame.width), H = Float(frame.height)
        let cx = region.xCenter * W, cy = region.yCenter * H
        let rw = region.width * W, rh = region.height * H
        let c = cos(region.rotation), s = sin(region.rotation)
        let du = SIMD2<Float>(c * rw, s * rw) / Float(size)
        let dv = SIMD2<Float>(-s * rh, c * rh) / Float(size)
        return (SIMD2<Float>(cx, cy) - 0.5 * SIMD2(c * rw, s * rw) - 0.5 * SIMD2(-s * rh, c * rh), du, dv)
    }

    /// Whether the C samplers take this crop: they index the frame with 32-bit offsets (gathers), so frames
    /// under 2 GiB, as every video is, whose buffer holds exactly their pixels.
    static func gathers(_ frame: VideoFrame, size: Int) -> Bool {
        let limit = Int(Int32.max) - 16
        let (area, overflow) = frame.width.multipliedReportingOverflow(by: frame.height)
        return frame.width >= 1 && frame.height >= 1 && !overflow && area <= limit / 3
            && area * 3 == frame.pixels.count && size <= limit / 3
    }

    /// Fills `tensor` (`size * size * 3` floats).
    public static func sample(_ frame: VideoFrame, region: RegionOfInterest, size: Int, border: Border,
                              into tensor: UnsafeMutablePointer<Float>) {
        sample(frame, region: region, size: size, border: border, into: tensor, using: fastest)
    }

    static func sample(_ frame: VideoFrame, region: RegionOfInterest, size: Int, border: Border,
                       into tensor: UnsafeMutablePointer<Float>, using sampler: Sampler) {
        let (origin, du, dv) = placement(frame, region: region, size: size)
        let w = frame.width, h = frame.height, count = frame.pixels.count
        #if arch(x86_64)
        if sampler != .perPixel, Self.gathers(frame, size: size) {
            let geometry = handpose_crop_geometry(origin_x: origin.x, origin_y: origin.y, du_x: du.x, du_y: du.y, dv_x: dv.x, dv_y: dv.y)
            frame.pixels.withUnsafeBufferPointer { px in
                let run = sampler == .avx512 ? handpose_crop_avx512 : handpose_crop_avx2
                run(px.baseAddress!, Int32(w), Int32(h), geometry, Int32(size), border == .replicate ? 1 : 0, tensor)
            }
            return
        }
        #endif
        let scale: Float = 1 / 255
        // OpenCV's fixed-point bilinear warp on 8-bit images, which MediaPipe's tensors come from:
        // source positions rounded to 1/32 pixel, weights in 1/32768ths summing exactly to one,
        // results rounded back to 8 bits before scaling to [0, 1].
        //
        // Positions are worked out eight at a time, rounded to 1/32 pixel without a library call:
        // adding and taking away 1.5 * 2^23 rounds a float of magnitude below 2^22 to the nearest
        // integer, ties to even (the default rounding mode), and leaves that integer in the low bits.
        // Positions are first clamped to +-125,000 pixels (4,000,000 / 32, outside any frame), NaN to the low end.
        let lanes = SIMD8<Float>(0, 1, 2, 3, 4, 5, 6, 7)
        let magic: Float = 12_582_912, limit: Float = 4_000_000
        frame.pixels.withUnsafeBufferPointer { px in
            Self.fixedPointWeights.withUnsafeBufferPointer { table in
                let p = px.baseAddress!, weights = table.baseAddress!
                for v in 0..<size {
                    var out = tensor + v * size * 3
                    let rowX = Float(v) * dv.x, rowY = Float(v) * dv.y
                    var u0 = 0
                    while u0 < size {
                        // The same arithmetic, lane by lane, as origin + Float(u) * du + Float(v) * dv.
                        let us = lanes + Float(u0)
                        let fx = ((origin.x + us * du.x) + rowX) * 32, fy = ((origin.y + us * du.y) + rowY) * 32
                        func fixed(_ f: SIMD8<Float>) -> SIMD8<Int32> {
                            let c = f.replacing(with: -limit, where: .!(f .>= -limit)).replacing(with: limit, where: f .> limit)
                            return unsafeBitCast(c + magic, to: SIMD8<Int32>.self) &- unsafeBitCast(SIMD8<Float>(repeating: magic), to: SIMD8<Int32>.self)
                        }
                        let X = fixed(fx), Y = fixed(fy)
                        for lane in 0..<min(8, size - u0) {
                            let x0 = Int(X[lane] >> 5), y0 = Int(Y[lane] >> 5)
                            let wt = weights[Int((Y[lane] & 31) << 5 | (X[lane] & 31))]
                            // Products of a byte and a weight, and their sums, are integers below 2^24:
                            // exact in floats, which this build's baseline SIMD multiplies fast (32-bit
                            // integer lanes it does not).
                            var acc = SIMD4<Float>(repeating: 16384)
                            if x0 >= 0 && y0 >= 0 && x0 + 1 < w && y0 + 1 < h {
                                let o00 = (y0 &* w &+ x0) &* 3, o01 = o00 &+ w &* 3
                                acc += Self.texel(p, o00, count) * wt[0]
                                acc += Self.texel(p, o00 &+ 3, count) * wt[1]
                                acc += Self.texel(p, o01, count) * wt[2]
                                acc += Self.texel(p, o01 &+ 3, count) * wt[3]
                            } else {
                                // Outside the frame: zeros, or the nearest edge pixel.
                                for corner in 0..<4 {
                                    var xx = x0 + (corner & 1), yy = y0 + (corner >> 1)
                                    if xx < 0 || yy < 0 || xx >= w || yy >= h {
                                        if border == .zero { continue }
                                        xx = min(max(xx, 0), w - 1); yy = min(max(yy, 0), h - 1)
                                    }
                                    acc += Self.texel(p, (yy * w + xx) * 3, count) * wt[corner]
                                }
                            }
                            // acc >> 15: acc / 2^15 has at most 8 integer and 15 fraction bits, so taking
                            // away 0.5 - 2^-16 is exact, and rounding to the nearest integer (the 1.5 * 2^23
                            // step, never a tie) then gives its floor.
                            let q: SIMD4<Float> = acc * (1 / 32768 as Float) - (0.5 - 1 / 65536 as Float)
                            let v8: SIMD4<Float> = (q + magic) - magic
                            out[0] = v8[0] * scale
                            out[1] = v8[1] * scale
                            out[2] = v8[2] * scale
                            out += 3
                        }
                        u0 += 8
                    }
                }
            }
        }
    }

    /// The pixel at byte `o` as floats (R, G, B, unused): one four-byte load, except at the buffer's
    /// last pixel. Bytes become floats by putting them under the exponent of 2^23 and taking 2^23 away.
    @inline(__always)
    private static func texel(_ p: UnsafePointer<UInt8>, _ o: Int, _ count: Int) -> SIMD4<Float> {
        let bytes: SIMD4<UInt8>
        if o + 4 <= count {
            bytes = unsafeBitCast(UnsafeRawPointer(p + o).loadUnaligned(as: UInt32.self), to: SIMD4<UInt8>.self)
        } else {
            bytes = SIMD4(p[o], p[o + 1], p[o + 2], 0)
        }
        let bits = SIMD4<UInt32>(truncatingIfNeeded: bytes) | 0x4B00_0000
        return unsafeBitCast(bits, to: SIMD4<Float>.self) - 8_388_608
    }

    /// OpenCV's bilinear weight table (imgproc `initInterTab2D`): for each 1/32-pixel fraction pair,
    /// the four weights in units of 1/32768, rounded, with the rounding error given to the largest
    /// so they sum to exactly 32768.
    static let fixedPointWeights: [SIMD4<Float>] = (0..<32 * 32).map { i in
        let fy = Float(i / 32) / 32, fx = Float(i % 32) / 32
        let f = [(1 - fx) * (1 - fy), fx * (1 - fy), (1 - fx) * fy, fx * fy]
        var q = f.map { Int32(($0 * 32768).rounded(.toNearestOrEven)) }
        let error = 32768 - q.reduce(0, +)
        if error != 0 { q[q.indices.max { q[$0] < q[$1] }!] += error }
        return SIMD4(Float(q[0]), Float(q[1]), Float(q[2]), Float(q[3]))
    }

    /// The region covering the whole frame, widened on its short side to a square so the frame keeps
    /// its aspect ratio (letterbox); `padding` is the normalised margin on each side (x, y).
    public static func letterbox(width: Int, height: Int) -> (region: RegionOfInterest, padding: SIMD2<Float>) {
        let W = Float(width), H = Float(height)
        if W >= H {
            return (RegionOfInterest(xCenter: 0.5, yCenter: 0.5, width: 1, height: W / H, rotation: 0), SIMD2(0, (1 - H / W) / 2))
        }
        return (RegionOfInterest(xCenter: 0.5, yCenter: 0.5, width: H / W, height: 1, rotation: 0), SIMD2((1 - W / H) / 2, 0))
    }
}
