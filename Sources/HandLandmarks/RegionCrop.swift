import Foundation
import VideoIO

/// Cuts a rotated region out of a frame into a model's input tensor: RGB floats in [0, 1], NHWC.
///
/// MediaPipe's `ImageToTensorCalculator` (OpenCV path) maps the region's corners onto the tensor's
/// corners and warps with bilinear sampling, so tensor pixel (u, v) reads the frame at
/// `centre + R(rotation) * ((u / width - 0.5) * regionWidth, (v / height - 0.5) * regionHeight)`,
/// frame pixel centres at integer coordinates.
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
        frame.pixels.withUnsafeBufferPointer { px in
            let p = px.baseAddress!
            for v in 0..<size {
                var pos = origin + Float(v) * dv
                var out = tensor + v * size * 3
                for _ in 0..<size {
                    let fx = pos.x.rounded(.down), fy = pos.y.rounded(.down)
                    let ax = pos.x - fx, ay = pos.y - fy
                    let x0 = Int(fx), y0 = Int(fy)
                    var rgb = SIMD4<Float>()
                    if x0 >= 0 && y0 >= 0 && x0 + 1 < w && y0 + 1 < h {
                        let o00 = (y0 * w + x0) * 3, o10 = o00 + 3, o01 = o00 + w * 3, o11 = o01 + 3
                        for k in 0..<3 {
                            let top = Float(p[o00 + k]) * (1 - ax) + Float(p[o10 + k]) * ax
                            let bottom = Float(p[o01 + k]) * (1 - ax) + Float(p[o11 + k]) * ax
                            rgb[k] = top * (1 - ay) + bottom * ay
                        }
                    } else {
                        for (dx, dy, weight) in [(0, 0, (1 - ax) * (1 - ay)), (1, 0, ax * (1 - ay)), (0, 1, (1 - ax) * ay), (1, 1, ax * ay)] {
                            var xx = x0 + dx, yy = y0 + dy
                            if xx < 0 || yy < 0 || xx >= w || yy >= h {
                                if border == .zero { continue }
                                xx = min(max(xx, 0), w - 1); yy = min(max(yy, 0), h - 1)
                            }
                            let o = (yy * w + xx) * 3
                            rgb[0] += Float(p[o]) * weight; rgb[1] += Float(p[o + 1]) * weight; rgb[2] += Float(p[o + 2]) * weight
                        }
                    }
                    out[0] = rgb[0] * scale; out[1] = rgb[1] * scale; out[2] = rgb[2] * scale
                    out += 3
                    pos += du
                }
            }
        }
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
