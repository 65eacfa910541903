#if HANDPOSE_AVX512
import Kernels

/// Convolution of an input with few channels into 17 to 32 (the models' first layers, on RGB),
/// read in place: for each group of four output pixels of one row, every tap (ky, kx, ci)
/// broadcasts one input value per pixel against the two 16-wide weight vectors of the two panels,
/// eight accumulators in all. The weights are `Conv2D`'s packed panels, whose k order (ky, kx, ci)
/// is the patch order. Taps outside the input are skipped (zero padding).
/// AVX-512 only: with 8-wide vectors the same tile needs sixteen accumulators, more than AVX2's
/// registers, and measured no faster than im2col and GEMM.
/// Static functions, not a struct holding its arguments: a struct's value-copying helper would be a weak
/// symbol shared by name with other modules (see KernelVariantBuildTests).
enum DirectConv {
    static func run(_ conv: Conv2D, x: UnsafePointer<Float>, y: UnsafeMutablePointer<Float>, epilogue: Epilogue, pixels: Range<Int>) {
        let w = conv.window, inW = conv.input.w, inH = conv.input.h, outW = conv.output.w
        // Output columns whose taps all lie inside the input horizontally.
        let oxFirst = min(outW, (w.padLeft + w.sw - 1) / w.sw)
        let oxEnd = max(oxFirst, min(outW, (inW - (w.kw - 1) * w.dw + w.padLeft - 1) / w.sw + 1))
        var p = pixels.lowerBound
        while p < pixels.upperBound {
            let oy = p / outW, ox = p % outW
            let iy0 = oy * w.sh - w.padTop
            let kyLo = max(0, (-iy0 + w.dh - 1) / w.dh)
            let kyHi = max(kyLo, min(w.kh, (inH - iy0 + w.dh - 1) / w.dh))
            let rowEnd = min(pixels.upperBound, p - ox + outW)
            if ox >= oxFirst && ox + 4 <= min(oxEnd, ox + rowEnd - p) {
                // The models' first layers (3x3 and 5x5 on RGB), specialised so the tap loops unroll.
                let (kw, cin) = (w.kw, conv.input.c)
                if kw == 3 && cin == 3 { group(conv, x: x, y: y, epilogue: epilogue, pixel: p, ox: ox, iy0: iy0, ky: kyLo..<kyHi, kw: 3, cin: 3) }
                else if kw == 5 && cin == 3 { group(conv, x: x, y: y, epilogue: epilogue, pixel: p, ox: ox, iy0: iy0, ky: kyLo..<kyHi, kw: 5, cin: 3) }
                else { group(conv, x: x, y: y, epilogue: epilogue, pixel: p, ox: ox, iy0: iy0, ky: kyLo..<kyHi, kw: kw, cin: cin) }
                p += 4
            } else {
                let ix0 = ox * w.sw - w.padLeft
                let kxLo = max(0, (-ix0 + w.dw - 1) / w.dw), kxHi = max(kxLo, min(w.kw, (inW - ix0 + w.dw - 1) / w.dw))
                for panel in 0..<conv.weights.panels {
                    single(conv, x: x, y: y, epilogue: epilogue, pixel: p, ox: ox, iy0: iy0, ky: kyLo..<kyHi, kx: kxLo..<kxHi, panel: panel)
                }
                p += 1
            }
        }
    }

    /// Four pixels by both panels of a 17-32 channel output: each broadcast feeds two FMAs.
    @inline(__always)
    static func group(_ conv: Conv2D, x: UnsafePointer<Float>, y: UnsafeMutablePointer<Float>, epilogue: Epilogue, pixel p: Int, ox: Int, iy0: Int, ky kys: Range<Int>, kw: Int, cin: Int) {
        let w = conv.window, inW = conv.input.w, k = conv.weights.k
        let wp0 = UnsafePointer(conv.weights.data.pointer), wp1 = wp0 + k * 16
        let bias = UnsafePointer(conv.weights.bias.pointer)
        let step = w.sw * cin, ix0 = ox * w.sw - w.padLeft
        let b0 = load16(bias), b1 = load16(bias + 16)
        var a0 = b0, a1 = b0, a2 = b0, a3 = b0, c0 = b1, c1 = b1, c2 = b1, c3 = b1
        for ky in kys {
            let row = x + ((iy0 + ky * w.dh) * inW + ix0) * cin
            var kk = ky * kw * cin
            for kx in 0..<kw {
                let tap = row + kx * w.dw * cin
                for ci in 0..<cin {
                    let u = load16(wp0 + kk * 16), v = load16(wp1 + kk * 16)
                    let x0 = SIMD16(repeating: tap[ci]), x1 = SIMD16(repeating: tap[step + ci])
                    let x2 = SIMD16(repeating: tap[2 * step + ci]), x3 = SIMD16(repeating: tap[3 * step + ci])
                    a0 = fma16(a0, x0, u); c0 = fma16(c0, x0, v)
                    a1 = fma16(a1, x1, u); c1 = fma16(c1, x1, v)
                    a2 = fma16(a2, x2, u); c2 = fma16(c2, x2, v)
                    a3 = fma16(a3, x3, u); c3 = fma16(c3, x3, v)
                    kk += 1
                }
            }
        }
        let width = conv.weights.n - 16, ldc = conv.output.c
        Gemm.store(halves(a0), row: p, col: 0, width: 16, c: y, ldc: ldc, epilogue: epilogue)
        Gemm.store(halves(a1), row: p + 1, col: 0, width: 16, c: y, ldc: ldc, epilogue: epilogue)
        Gemm.store(halves(a2), row: p + 2, col: 0, width: 16, c: y, ldc: ldc, epilogue: epilogue)
        Gemm.store(halves(a3), row: p + 3, col: 0, width: 16, c: y, ldc: ldc, epilogue: epilogue)
        Gemm.store(halves(c0), row: p, col: 16, width: width, c: y, ldc: ldc, epilogue: epilogue)
        Gemm.store(halves(c1), row: p + 1, col: 16, width: width, c: y, ldc: ldc, epilogue: epilogue)
        Gemm.store(halves(c2), row: p + 2, col: 16, width: width, c: y, ldc: ldc, epilogue: epilogue)
        Gemm.store(halves(c3), row: p + 3, col: 16, width: width, c: y, ldc: ldc, epilogue: epilogue)
    }

    /// One pixel, taps clipped to `kx` horizontally.
    @inline(__always)
    static func single(_ conv: Conv2D, x: UnsafePointer<Float>, y: UnsafeMutablePointer<Float>, epilogue: Epilogue, pixel p: Int, ox: Int, iy0: Int, ky kys: Range<Int>, kx kxs: Range<Int>, panel: Int) {
        let w = conv.window, cin = conv.input.c, inW = conv.input.w, k = conv.weights.k
        let wp = UnsafePointer(conv.weights.data.pointer + panel * k * 16)
        let bias = UnsafePointer(conv.weights.bias.pointer + panel * 16)
        let ix0 = ox * w.sw - w.padLeft
        var lo = load8(bias), hi = load8(bias + 8)
        for ky in kys {
            let row = x + ((iy0 + ky * w.dh) * inW + ix0) * cin
            for kx in kxs {
                let tap = row + kx * w.dw * cin
                let kk = (ky * w.kw + kx) * cin
                for ci in 0..<cin {
                    let q = wp + (kk + ci) * 16
                    let v = Float8(repeating: tap[ci])
                    lo = fma8(lo, v, load8(q))
                    hi = fma8(hi, v, load8(q + 8))
                }
            }
        }
        let col = panel * 16
        Gemm.store(lo, hi, row: p, col: col, width: min(16, conv.weights.n - col), c: y, ldc: conv.output.c, epilogue: epilogue)
    }
}
#endif
