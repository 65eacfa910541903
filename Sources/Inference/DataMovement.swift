#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CPrefetch

/// Operators that move values, interpolate or reduce, in plain scalar code: too small a share of a
/// run to need a kernel per instruction set.
public enum DataMovement {
    /// Mean over height and width: `[H, W, C]` to `[C]`.
    public static func meanHW(input x: UnsafePointer<Float>, shape: HWC, output y: UnsafeMutablePointer<Float>) {
        let c = shape.c
        y.update(repeating: 0, count: c)
        for p in 0..<(shape.h * shape.w) {
            let row = x + p * c
            for ch in 0..<c { y[ch] += row[ch] }
        }
        let scale = 1 / Float(shape.h * shape.w)
        for ch in 0..<c { y[ch] *= scale }
    }

    /// Logistic sigmoid `1 / (1 + exp(-x))`.
    public static func logistic(_ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, count: Int) {
        for i in 0..<count { y[i] = 1 / (1 + expf(-x[i])) }
    }

    /// `x < 0 ? 0 : x`, as TFLite's reference RELU and the kernels' fused clamp: -0 and NaN stay as they are
    /// (`max(0, x)` turned NaN into 0).
    public static func relu(_ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, count: Int) {
        for i in 0..<count { let v = x[i]; y[i] = v < 0 ? 0 : v }
    }

    /// The values of `x` (shape `slice.sizes`) that `slice` picks, in row-major order.
    public static func stridedSlice(_ x: UnsafePointer<Float>, _ slice: StridedSlice.Dimensions, _ y: UnsafeMutablePointer<Float>) {
        let d = slice.padded
        var strides = [1, 1, 1, 1]
        for k in stride(from: 2, through: 0, by: -1) { strides[k] = strides[k + 1] * d[k + 1].size }
        var o = 0
        for i0 in 0..<d[0].count {
            let p0 = (d[0].begin + i0 * d[0].stride) * strides[0]
            for i1 in 0..<d[1].count {
                let p1 = p0 + (d[1].begin + i1 * d[1].stride) * strides[1]
                for i2 in 0..<d[2].count {
                    let p2 = p1 + (d[2].begin + i2 * d[2].stride) * strides[2]
                    for i3 in 0..<d[3].count {
                        y[o] = x[p2 + d[3].begin + i3 * d[3].stride]
                        o += 1
                    }
                }
            }
        }
    }

    /// Zero padding of a 4-D tensor; `pads[d]` is (before, after) for dimension d.
    public static func pad(_ x: UnsafePointer<Float>, shape: [Int], pads: [(Int, Int)], _ y: UnsafeMutablePointer<Float>) {
        let out = zip(shape, pads).map { $0 + $1.0 + $1.1 }
        y.update(repeating: 0, count: out.reduce(1, *))
        let (n, h, w, c) = (shape[0], shape[1], shape[2], shape[3])
        for b in 0..<n {
            for i in 0..<h {
                for j in 0..<w {
                    let src = x + ((b * h + i) * w + j) * c
                    let dst = y + (((b + pads[0].0) * out[1] + i + pads[1].0) * out[2] + j + pads[2].0) * out[3] + pads[3].0
                    dst.update(from: src, count: c)
                }
            }
        }
    }

    /// Zero padding of the last dimension only, pixels `pixels` of `[pixels, channels]`, in vector moves of
    /// eight floats (one pixel's values, then its zeros; a last part of under eight, one float at a time).
    /// (A memmove and two memsets a pixel took 0.029 ms for the recrop model's 64x64 pad of 8 to 16 channels on
    /// a Zen 3 core, 4% of the model, and 0.036 for the face detector's 24 to 28; now 0.014 and 0.031, about
    /// what moving those bytes through the cache takes.)
    public static func padChannels(_ x: UnsafePointer<Float>, channels c: Int, before: Int, after: Int,
                                   _ y: UnsafeMutablePointer<Float>, pixels: Range<Int>) {
        let outC = before + c + after
        for p in pixels {
            let dst = y + p * outC
            zero(dst, count: before)
            copy(x + p * c, to: dst + before, count: c)
            zero(dst + before + c, count: after)
        }
    }

    @inline(__always)
    private static func copy(_ source: UnsafePointer<Float>, to target: UnsafeMutablePointer<Float>, count: Int) {
        var i = 0
        while i + 8 <= count {
            handpose_store8(target + i, UnsafeRawPointer(source + i).loadUnaligned(as: SIMD8<Float>.self))
            i += 8
        }
        while i < count { target[i] = source[i]; i += 1 }
    }

    @inline(__always)
    private static func zero(_ target: UnsafeMutablePointer<Float>, count: Int) {
        var i = 0
        while i + 8 <= count { handpose_store8(target + i, SIMD8<Float>(repeating: 0)); i += 8 }
        while i < count { target[i] = 0; i += 1 }
    }

    /// Concatenation along `axis`: each input is `outer x (its size on axis) x inner`.
    public static func concat(_ inputs: [(pointer: UnsafePointer<Float>, axisSize: Int)], outer: Int, inner: Int,
                              _ y: UnsafeMutablePointer<Float>) {
        let total = inputs.reduce(0) { $0 + $1.axisSize }
        for o in 0..<outer {
            var offset = 0
            for (p, size) in inputs {
                (y + (o * total + offset) * inner).update(from: p + o * size * inner, count: size * inner)
                offset += size
            }
        }
    }

    /// Bilinear resize of `[H, W, C]`, following TFLite's `ResizeBilinear` (align_corners and
    /// half_pixel_centers as in its reference kernel: the lower index clamped at 0, the upper at size-1).
    public static func resizeBilinear(_ x: UnsafePointer<Float>, input: HWC, outH: Int, outW: Int,
                                      alignCorners: Bool, halfPixelCenters: Bool, _ y: UnsafeMutablePointer<Float>,
                                      rows: Range<Int>) {
        func scale(_ i: Int, _ o: Int) -> Float {
            alignCorners && o > 1 ? Float(i - 1) / Float(o - 1) : Float(i) / Float(o)
        }
        let sy = scale(input.h, outH), sx = scale(input.w, outW)
        let c = input.c
        func source(_ v: Int, _ s: Float, _ size: Int) -> (Int, Int, Float) {
            let f = halfPixelCenters ? (Float(v) + 0.5) * s - 0.5 : Float(v) * s
            let lo = max(Int(f.rounded(.down)), 0)
            let hi = min(Int(f.rounded(.up)), size - 1)
            return (lo, hi, f - Float(lo))
        }
        for oy in rows {
            let (y0, y1, dy) = source(oy, sy, input.h)
            for ox in 0..<outW {
                let (x0, x1, dx) = source(ox, sx, input.w)
                let p00 = x + (y0 * input.w + x0) * c, p01 = x + (y0 * input.w + x1) * c
                let p10 = x + (y1 * input.w + x0) * c, p11 = x + (y1 * input.w + x1) * c
                let out = y + (oy * outW + ox) * c
                let w00 = (1 - dy) * (1 - dx), w01 = (1 - dy) * dx, w10 = dy * (1 - dx), w11 = dy * dx
                for ch in 0..<c {
                    out[ch] = p00[ch] * w00 + p01[ch] * w01 + p10[ch] * w10 + p11[ch] * w11
                }
            }
        }
    }
}

/// What a STRIDED_SLICE takes of each dimension.
public enum StridedSlice {
    public struct Dimension: Sendable, Equatable {
        public var size: Int, begin: Int, stride: Int, count: Int
    }
    public struct Dimensions: Sendable {
        public private(set) var all: [Dimension] = []
        public init() {}
        public mutating func append(size: Int, begin: Int, stride: Int, count: Int) {
            all.append(Dimension(size: size, begin: begin, stride: stride, count: count))
        }
        /// Leading dimensions of size 1 added to make four.
        var padded: [Dimension] {
            Array(repeating: Dimension(size: 1, begin: 0, stride: 1, count: 1), count: max(0, 4 - all.count)) + all
        }
        public var outputCount: Int { all.reduce(1) { $0 * $1.count } }
    }
}
