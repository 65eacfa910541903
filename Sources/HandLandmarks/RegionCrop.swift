import Foundation
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

    /// Fills `tensor` (`size * size * 3` floats).
    public static func sample(_ frame: VideoFrame, region: RegionOfInterest, size: Int, border: Border,
                              into tensor: UnsafeMutablePointer<Float>) {
        let W = Float(frame.width), H = Float(frame.height)
        let cx = region.xCenter * W, cy = region.yCenter * H
        let rw = region.width * W, rh = region.height * H
        let c = cos(region.rotation), s = sin(region.rotation)
        // Frame position of tensor pixel (u, v) is origin + u * du + v * dv.
        let du = SIMD2<Float>(c * rw, s * rw) / Float(size)
        let dv = SIMD2<Float>(-s * rh, c * rh) / Float(size)
        let origin = SIMD2<Float>(cx, cy) - 0.5 * SIMD2(c * rw, s * rw) - 0.5 * SIMD2(-s * rh, c * rh)
        let w = frame.width, h = frame.height
        let scale: Float = 1 / 255
        // OpenCV's fixed-point bilinear warp on 8-bit images, which MediaPipe's tensors come from:
        // source positions rounded to 1/32 pixel, weights in 1/32768ths summing exactly to one,
        // results rounded back to 8 bits before scaling to [0, 1].
        let weights = Self.fixedPointWeights
        frame.pixels.withUnsafeBufferPointer { px in
            let p = px.baseAddress!
            for v in 0..<size {
                var out = tensor + v * size * 3
                for u in 0..<size {
                    let pos = origin + Float(u) * du + Float(v) * dv
                    let X = Int((pos.x * 32).rounded(.toNearestOrEven)), Y = Int((pos.y * 32).rounded(.toNearestOrEven))
                    let x0 = X >> 5, y0 = Y >> 5
                    let wt = weights[(Y & 31) * 32 + (X & 31)]
                    var acc = SIMD4<Int32>(repeating: 1 << 14)
                    @inline(__always) func add(_ o: Int, _ weight: Int32) {
                        acc &+= SIMD4(Int32(p[o]), Int32(p[o + 1]), Int32(p[o + 2]), 0) &* weight
                    }
                    if x0 >= 0 && y0 >= 0 && x0 + 1 < w && y0 + 1 < h {
                        let o00 = (y0 * w + x0) * 3, o01 = o00 + w * 3
                        add(o00, wt.0); add(o00 + 3, wt.1); add(o01, wt.2); add(o01 + 3, wt.3)
                    } else {
                        // Outside the frame: zeros, or the nearest edge pixel.
                        for (dx, dy, weight) in [(0, 0, wt.0), (1, 0, wt.1), (0, 1, wt.2), (1, 1, wt.3)] {
                            var xx = x0 + dx, yy = y0 + dy
                            if xx < 0 || yy < 0 || xx >= w || yy >= h {
                                if border == .zero { continue }
                                xx = min(max(xx, 0), w - 1); yy = min(max(yy, 0), h - 1)
                            }
                            add((yy * w + xx) * 3, weight)
                        }
                    }
                    let v8 = acc &>> 15
                    out[0] = Float(min(max(v8[0], 0), 255)) * scale
                    out[1] = Float(min(max(v8[1], 0), 255)) * scale
                    out[2] = Float(min(max(v8[2], 0), 255)) * scale
                    out += 3
                }
            }
        }
    }

    /// OpenCV's bilinear weight table (imgproc `initInterTab2D`): for each 1/32-pixel fraction pair,
    /// the four weights in units of 1/32768, rounded, with the rounding error given to the largest
    /// so they sum to exactly 32768.
    static let fixedPointWeights: [(Int32, Int32, Int32, Int32)] = (0..<32 * 32).map { i in
        let fy = Float(i / 32) / 32, fx = Float(i % 32) / 32
        let f = [(1 - fx) * (1 - fy), fx * (1 - fy), (1 - fx) * fy, fx * fy]
        var q = f.map { Int32(($0 * 32768).rounded(.toNearestOrEven)) }
        let error = 32768 - q.reduce(0, +)
        if error != 0 { q[q.indices.max { q[$0] < q[$1] }!] += error }
        return (q[0], q[1], q[2], q[3])
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
