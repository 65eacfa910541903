import Foundation
import VideoIO

/// An RGB float canvas with anti-aliased shapes drawn by signed distance (one pixel of edge blend).
public struct Canvas {
    public let width: Int
    public let height: Int
    /// Row-major RGB, 0...255 per channel.
    public var pixels: [SIMD3<Float>]

    /// A canvas of at least one pixel each way: a size computed from an empty list never traps.
    public init(width: Int, height: Int, fill: SIMD3<Float> = .zero) {
        self.width = max(width, 1)
        self.height = max(height, 1)
        pixels = Array(repeating: fill, count: self.width * self.height)
    }

    /// Blends `color` with `coverage(x, y)` (0...1) over the box `x0...x1, y0...y1`.
    mutating func shade(_ x0: Float, _ y0: Float, _ x1: Float, _ y1: Float, color: SIMD3<Float>, coverage: (SIMD2<Float>) -> Float) {
        // Clamped to the canvas before converting: a point far outside it (or NaN) draws nothing, never traps.
        func pixel(_ v: Float, _ limit: Int) -> Int { v.isNaN ? -2 : Int(min(max(v, -2), Float(limit + 2))) }
        let xs = max(0, pixel(x0.rounded(.down), width) - 1), xe = min(width - 1, pixel(x1.rounded(.up), width) + 1)
        let ys = max(0, pixel(y0.rounded(.down), height) - 1), ye = min(height - 1, pixel(y1.rounded(.up), height) + 1)
        guard xs <= xe, ys <= ye else { return }
        for y in ys...ye {
            for x in xs...xe {
                let a = coverage(SIMD2(Float(x), Float(y)))
                if a <= 0 { continue }
                let i = y * width + x
                pixels[i] = pixels[i] + min(a, 1) * (color - pixels[i])
            }
        }
    }

    /// A capsule: the segment `a`-`b` thickened to radius `ra` at `a` and `rb` at `b`.
    public mutating func capsule(_ a: SIMD2<Float>, _ b: SIMD2<Float>, ra: Float, rb: Float, color: SIMD3<Float>) {
        let r = max(ra, rb)
        let ab = b - a, len2 = max((ab * ab).sum(), 1e-6)
        shade(min(a.x, b.x) - r, min(a.y, b.y) - r, max(a.x, b.x) + r, max(a.y, b.y) + r, color: color) { p in
            let t = min(max(((p - a) * ab).sum() / len2, 0), 1)
            let d = p - (a + t * ab)
            return 0.5 - ((d * d).sum().squareRoot() - (ra + t * (rb - ra)))
        }
    }

    /// A filled convex polygon (points in order).
    public mutating func polygon(_ pts: [SIMD2<Float>], color: SIMD3<Float>) {
        guard pts.count >= 3 else { return }
        let lo = pts.reduce(pts[0]) { pointwiseMin($0, $1) }, hi = pts.reduce(pts[0]) { pointwiseMax($0, $1) }
        // Orientation so that "inside" is the positive side of every edge.
        var area: Float = 0
        for i in pts.indices { let a = pts[i], b = pts[(i + 1) % pts.count]; area += a.x * b.y - b.x * a.y }
        let sign: Float = area >= 0 ? 1 : -1
        shade(lo.x, lo.y, hi.x, hi.y, color: color) { p in
            var inside = Float.greatestFiniteMagnitude
            for i in pts.indices {
                let a = pts[i], b = pts[(i + 1) % pts.count], e = b - a
                let n = SIMD2(-e.y, e.x) * sign / max((e * e).sum().squareRoot(), 1e-6)
                inside = min(inside, ((p - a) * n).sum())
            }
            return 0.5 + inside
        }
    }

    public mutating func disc(_ c: SIMD2<Float>, radius: Float, color: SIMD3<Float>) {
        capsule(c, c, ra: radius, rb: radius, color: color)
    }

    /// A 3x3 box blur, softening edges the way a camera does.
    public mutating func blur() {
        var out = pixels
        for y in 1..<(height - 1) {
            for x in 1..<(width - 1) {
                var s = SIMD3<Float>.zero
                for dy in -1...1 { for dx in -1...1 { s += pixels[(y + dy) * width + x + dx] } }
                out[y * width + x] = s / 9
            }
        }
        pixels = out
    }

    /// Adds Gaussian-ish sensor noise of standard deviation `sigma` (0...255 units).
    public mutating func noise<G: RandomNumberGenerator>(sigma: Float, rng: inout G) {
        for i in pixels.indices {
            // Sum of uniforms approximates a Gaussian (Irwin-Hall with 4 terms).
            var n: Float = 0
            for _ in 0..<4 { n += Float.random(in: -1...1, using: &rng) }
            pixels[i] += SIMD3(repeating: n * sigma * 0.866)
        }
    }

    /// The canvas as an 8-bit frame.
    public func frame(index: Int = 0, time: Double = 0) -> VideoFrame {
        var bytes = [UInt8](repeating: 0, count: width * height * 3)
        for (i, p) in pixels.enumerated() {
            let c = pointwiseMin(pointwiseMax(p, .zero), SIMD3(repeating: 255))
            bytes[3 * i] = UInt8(c.x.rounded()); bytes[3 * i + 1] = UInt8(c.y.rounded()); bytes[3 * i + 2] = UInt8(c.z.rounded())
        }
        return VideoFrame(index: index, time: time, width: width, height: height, pixels: bytes)
    }
}
