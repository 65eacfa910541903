import CPrefetch
import Kernels

extension Epilogue {
    @inline(__always)
    func apply(_ v: Float, row: Int, column: Int, ldc: Int) -> Float {
        var v = activation.apply(v)
        if let residual {
            v += residual[row * ldc + column]
            v = residualActivation.apply(v)
        }
        if let alpha, v < 0 { v *= alpha[column] }
        return v
    }
}

/// The epilogue made ready for straight-line vector code, once per product: activations as clamps, so
/// that storing a tile is a few vector operations and no call (the branching form was too large for the
/// optimiser to inline: some thirty calls a tile, 10% of a model's time). File-private, as everything that
/// takes it: an internal struct's value-copying helper would be a weak symbol shared by name with other
/// modules (see KernelVariantBuildTests); `DirectConv` lives in this file for that reason.
/// `min` in the GEMM's driver: the optimiser left the standard library's a call there, to a
/// specialisation every module emits under one name (see KernelVariantBuildTests).
@_transparent
fileprivate func smaller(_ a: Int, _ b: Int) -> Int { a < b ? a : b }

fileprivate struct VectorEpilogue {
    let epilogue: Epilogue
    let lo: Float8, hi: Float8, residualLo: Float8, residualHi: Float8
    let bounds: (lo: Float, hi: Float), residualBounds: (lo: Float, hi: Float)

    @inline(__always)
    init(_ e: Epilogue) {
        epilogue = e
        bounds = e.activation.bounds
        residualBounds = e.residualActivation.bounds
        lo = Float8(repeating: bounds.lo); hi = Float8(repeating: bounds.hi)
        residualLo = Float8(repeating: residualBounds.lo); residualHi = Float8(repeating: residualBounds.hi)
    }

    @inline(__always)
    func apply(_ v: Float8, row: Int, column: Int, ldc: Int) -> Float8 {
        var v = clamp8(v, lo, hi)
        if let residual = epilogue.residual {
            v = clamp8(v + load8(residual + (row &* ldc &+ column)), residualLo, residualHi)
        }
        if let alpha = epilogue.alpha { v = v.replacing(with: v * load8(alpha + column), where: v .< 0) }
        return v
    }

    #if HANDPOSE_AVX512
    @_transparent
    func apply(_ v: SIMD16<Float>, row: Int, column: Int, ldc: Int) -> SIMD16<Float> {
        var v = clamp16(v, bounds.lo, bounds.hi)
        if let residual = epilogue.residual {
            v = clamp16(v + load16(residual + (row &* ldc &+ column)), residualBounds.lo, residualBounds.hi)
        }
        if let alpha = epilogue.alpha { v = prelu16(v, load16(alpha + column)) }
        return v
    }
    #endif
}

enum Gemm {
    /// Rows `rows` of `C = A * W` with the epilogue, the columns of panels `panels` (all of them when nil).
    /// `A` rows are `lda` floats apart, `C` rows `ldc`. The residual of the epilogue, when set, has the layout of `C`.
    static func run(a: UnsafePointer<Float>, lda: Int, rows: Range<Int>, panels: Range<Int>? = nil, weights w: PackedWeights,
                           c: UnsafeMutablePointer<Float>, ldc: Int, epilogue: Epilogue) {
        let panels = panels ?? 0..<w.panels
        let chunk = 96
        let epilogue = VectorEpilogue(epilogue)
        var r0 = rows.lowerBound
        while r0 < rows.upperBound {
            let r1 = smaller(r0 + chunk, rows.upperBound)
            for p in panels {
                var r = r0
                // The next panel's weights, fetched a line a step while this panel's tiles run: a layer with
                // few rows and many weights (the 7x7 layers: 49 rows, 0.9 MB of weights) otherwise waits on
                // memory (measured: the same product with its weights already in the cache took 55% of the time).
                // (After the last panel, the first again when another chunk of rows follows.)
                let following = p + 1 < panels.upperBound ? p + 1 : (r1 < rows.upperBound ? panels.lowerBound : p)
                let next = UnsafePointer(w.data.pointer + following * w.k * 16)
                #if HANDPOSE_AVX512
                while r + 12 <= r1 {
                    microKernel12x16(a: a, lda: lda, row: r, w: w, panel: p, next: next, c: c, ldc: ldc, epilogue: epilogue)
                    r += 12
                }
                #endif
                // The last panel of a layer 8 or fewer wide past a multiple of 16 (24 and 40 outputs in the
                // landmark model, 2 and 6 in the palm model's heads): half the products.
                if w.n - p * 16 <= 8 {
                    while r + 2 < r1 {
                        microKernel6x8(a: a, lda: lda, row: r, rowCount: smaller(6, r1 - r), w: w, panel: p,
                                       c: c, ldc: ldc, epilogue: epilogue)
                        r += 6
                    }
                }
                while r + 2 < r1 {
                    microKernel6x16(a: a, lda: lda, row: r, rowCount: smaller(6, r1 - r), w: w, panel: p, next: next,
                                    c: c, ldc: ldc, epilogue: epilogue)
                    r += 6
                }
                // A tail of one or two rows (the landmark model's 7x7 layers: 49 = 8 x 6 + 1) in a
                // kernel a third the size, not in a six-row one repeating its last row.
                if r < r1 {
                    microKernel2x16(a: a, lda: lda, row: r, rowCount: r1 - r, w: w, panel: p, c: c, ldc: ldc, epilogue: epilogue)
                }
            }
            r0 = r1
        }
    }

    /// The six rows a six-row kernel reads: rows past `rowCount` repeat the last valid row.
    @inline(__always)
    fileprivate static func sixRows(_ a: UnsafePointer<Float>, lda: Int, row: Int, rowCount: Int)
        -> (UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>) {
        let last = rowCount - 1
        return (a + row * lda, a + (row + min(1, last)) * lda, a + (row + min(2, last)) * lda,
                a + (row + min(3, last)) * lda, a + (row + min(4, last)) * lda, a + (row + min(5, last)) * lda)
    }

    /// Six rows by sixteen columns: 12 accumulators in registers, one broadcast and two weight loads a step.
    /// Rows past `rowCount` repeat the last valid row and are not stored.
    @inline(__always)
    fileprivate static func microKernel6x16(a: UnsafePointer<Float>, lda: Int, row: Int, rowCount: Int, w: PackedWeights,
                                panel: Int, next: UnsafePointer<Float>, c: UnsafeMutablePointer<Float>, ldc: Int, epilogue: VectorEpilogue) {
        let k = w.k
        let (a0, a1, a2, a3, a4, a5) = sixRows(a, lda: lda, row: row, rowCount: rowCount)
        let col = panel * 16
        let b0 = load8(w.bias.pointer + col), b1 = load8(w.bias.pointer + col + 8)
        var c00 = b0, c01 = b1, c10 = b0, c11 = b1, c20 = b0, c21 = b1
        var c30 = b0, c31 = b1, c40 = b0, c41 = b1, c50 = b0, c51 = b1
        var wp = UnsafePointer(w.data.pointer + panel * k * 16), ahead = next
        for kk in 0..<k {
            let w0 = load8(wp), w1 = load8(wp + 8)
            handpose_prefetch(ahead)
            ahead += 16
            var x = Float8(repeating: a0[kk]); c00 = fma8(c00, x, w0); c01 = fma8(c01, x, w1)
            x = Float8(repeating: a1[kk]); c10 = fma8(c10, x, w0); c11 = fma8(c11, x, w1)
            x = Float8(repeating: a2[kk]); c20 = fma8(c20, x, w0); c21 = fma8(c21, x, w1)
            x = Float8(repeating: a3[kk]); c30 = fma8(c30, x, w0); c31 = fma8(c31, x, w1)
            x = Float8(repeating: a4[kk]); c40 = fma8(c40, x, w0); c41 = fma8(c41, x, w1)
            x = Float8(repeating: a5[kk]); c50 = fma8(c50, x, w0); c51 = fma8(c51, x, w1)
            wp += 16
        }
        let width = min(16, w.n - col)
        if width == 16 && rowCount == 6 {
            storeFull(c00, c01, row: row, col: col, c: c, ldc: ldc, epilogue: epilogue)
            storeFull(c10, c11, row: row + 1, col: col, c: c, ldc: ldc, epilogue: epilogue)
            storeFull(c20, c21, row: row + 2, col: col, c: c, ldc: ldc, epilogue: epilogue)
            storeFull(c30, c31, row: row + 3, col: col, c: c, ldc: ldc, epilogue: epilogue)
            storeFull(c40, c41, row: row + 4, col: col, c: c, ldc: ldc, epilogue: epilogue)
            storeFull(c50, c51, row: row + 5, col: col, c: c, ldc: ldc, epilogue: epilogue)
            return
        }
        store(c00, c01, row: row, col: col, width: width, c: c, ldc: ldc, epilogue: epilogue)
        if rowCount > 1 { store(c10, c11, row: row + 1, col: col, width: width, c: c, ldc: ldc, epilogue: epilogue) }
        if rowCount > 2 { store(c20, c21, row: row + 2, col: col, width: width, c: c, ldc: ldc, epilogue: epilogue) }
        if rowCount > 3 { store(c30, c31, row: row + 3, col: col, width: width, c: c, ldc: ldc, epilogue: epilogue) }
        if rowCount > 4 { store(c40, c41, row: row + 4, col: col, width: width, c: c, ldc: ldc, epilogue: epilogue) }
        if rowCount > 5 { store(c50, c51, row: row + 5, col: col, width: width, c: c, ldc: ldc, epilogue: epilogue) }
    }

    /// Six rows by the first eight columns of a panel: six accumulators, one weight load a step.
    /// Rows past `rowCount` repeat the last valid row and are not stored.
    @inline(never)
    fileprivate static func microKernel6x8(a: UnsafePointer<Float>, lda: Int, row: Int, rowCount: Int, w: PackedWeights,
                                           panel: Int, c: UnsafeMutablePointer<Float>, ldc: Int, epilogue: VectorEpilogue) {
        let k = w.k
        let (a0, a1, a2, a3, a4, a5) = sixRows(a, lda: lda, row: row, rowCount: rowCount)
        let col = panel * 16
        let b0 = load8(w.bias.pointer + col)
        var c0 = b0, c1 = b0, c2 = b0, c3 = b0, c4 = b0, c5 = b0
        var wp = UnsafePointer(w.data.pointer + panel * k * 16)
        for kk in 0..<k {
            let w0 = load8(wp)
            c0 = fma8(c0, Float8(repeating: a0[kk]), w0)
            c1 = fma8(c1, Float8(repeating: a1[kk]), w0)
            c2 = fma8(c2, Float8(repeating: a2[kk]), w0)
            c3 = fma8(c3, Float8(repeating: a3[kk]), w0)
            c4 = fma8(c4, Float8(repeating: a4[kk]), w0)
            c5 = fma8(c5, Float8(repeating: a5[kk]), w0)
            wp += 16
        }
        let width = w.n - col, zero = Float8()
        if width == 8 && rowCount == 6 {
            storeEight(c0, row: row, col: col, c: c, ldc: ldc, epilogue: epilogue)
            storeEight(c1, row: row + 1, col: col, c: c, ldc: ldc, epilogue: epilogue)
            storeEight(c2, row: row + 2, col: col, c: c, ldc: ldc, epilogue: epilogue)
            storeEight(c3, row: row + 3, col: col, c: c, ldc: ldc, epilogue: epilogue)
            storeEight(c4, row: row + 4, col: col, c: c, ldc: ldc, epilogue: epilogue)
            storeEight(c5, row: row + 5, col: col, c: c, ldc: ldc, epilogue: epilogue)
            return
        }
        store(c0, zero, row: row, col: col, width: width, c: c, ldc: ldc, epilogue: epilogue)
        if rowCount > 1 { store(c1, zero, row: row + 1, col: col, width: width, c: c, ldc: ldc, epilogue: epilogue) }
        if rowCount > 2 { store(c2, zero, row: row + 2, col: col, width: width, c: c, ldc: ldc, epilogue: epilogue) }
        if rowCount > 3 { store(c3, zero, row: row + 3, col: col, width: width, c: c, ldc: ldc, epilogue: epilogue) }
        if rowCount > 4 { store(c4, zero, row: row + 4, col: col, width: width, c: c, ldc: ldc, epilogue: epilogue) }
        if rowCount > 5 { store(c5, zero, row: row + 5, col: col, width: width, c: c, ldc: ldc, epilogue: epilogue) }
    }

    /// One or two rows by sixteen columns: four accumulators; a single row is computed twice, stored once.
    @inline(never)
    fileprivate static func microKernel2x16(a: UnsafePointer<Float>, lda: Int, row: Int, rowCount: Int, w: PackedWeights,
                                            panel: Int, c: UnsafeMutablePointer<Float>, ldc: Int, epilogue: VectorEpilogue) {
        let k = w.k
        let a0 = a + row * lda, a1 = a + (row + min(1, rowCount - 1)) * lda
        let col = panel * 16
        let b0 = load8(w.bias.pointer + col), b1 = load8(w.bias.pointer + col + 8)
        var c00 = b0, c01 = b1, c10 = b0, c11 = b1
        var wp = UnsafePointer(w.data.pointer + panel * k * 16)
        for kk in 0..<k {
            let w0 = load8(wp), w1 = load8(wp + 8)
            var x = Float8(repeating: a0[kk]); c00 = fma8(c00, x, w0); c01 = fma8(c01, x, w1)
            x = Float8(repeating: a1[kk]); c10 = fma8(c10, x, w0); c11 = fma8(c11, x, w1)
            wp += 16
        }
        let width = min(16, w.n - col)
        if width == 16 {
            storeFull(c00, c01, row: row, col: col, c: c, ldc: ldc, epilogue: epilogue)
            if rowCount > 1 { storeFull(c10, c11, row: row + 1, col: col, c: c, ldc: ldc, epilogue: epilogue) }
            return
        }
        store(c00, c01, row: row, col: col, width: width, c: c, ldc: ldc, epilogue: epilogue)
        if rowCount > 1 { store(c10, c11, row: row + 1, col: col, width: width, c: c, ldc: ldc, epilogue: epilogue) }
    }

    #if HANDPOSE_AVX512
    /// Twelve rows by sixteen columns in one 16-wide register each (AVX-512): 12 accumulators,
    /// one weight load and twelve broadcasts a step.
    @inline(__always)
    fileprivate static func microKernel12x16(a: UnsafePointer<Float>, lda: Int, row: Int, w: PackedWeights,
                                 panel: Int, next: UnsafePointer<Float>, c: UnsafeMutablePointer<Float>, ldc: Int, epilogue: VectorEpilogue) {
        let k = w.k
        let a0 = a + row * lda
        let col = panel * 16
        let bias = load16(w.bias.pointer + col)
        var c0 = bias, c1 = bias, c2 = bias, c3 = bias, c4 = bias, c5 = bias
        var c6 = bias, c7 = bias, c8 = bias, c9 = bias, c10 = bias, c11 = bias
        var wp = UnsafePointer(w.data.pointer + panel * k * 16)
        let l2 = 2 * lda, l3 = 3 * lda, l4 = 4 * lda, l5 = 5 * lda, l6 = 6 * lda
        let l7 = 7 * lda, l8 = 8 * lda, l9 = 9 * lda, l10 = 10 * lda, l11 = 11 * lda
        var ahead = next
        for kk in 0..<k {
            let wv = UnsafeRawPointer(wp).loadUnaligned(as: SIMD16<Float>.self)
            handpose_prefetch(ahead)
            ahead += 16
            let p = a0 + kk
            c0 = fma16(c0, SIMD16(repeating: p[0]), wv)
            c1 = fma16(c1, SIMD16(repeating: p[lda]), wv)
            c2 = fma16(c2, SIMD16(repeating: p[l2]), wv)
            c3 = fma16(c3, SIMD16(repeating: p[l3]), wv)
            c4 = fma16(c4, SIMD16(repeating: p[l4]), wv)
            c5 = fma16(c5, SIMD16(repeating: p[l5]), wv)
            c6 = fma16(c6, SIMD16(repeating: p[l6]), wv)
            c7 = fma16(c7, SIMD16(repeating: p[l7]), wv)
            c8 = fma16(c8, SIMD16(repeating: p[l8]), wv)
            c9 = fma16(c9, SIMD16(repeating: p[l9]), wv)
            c10 = fma16(c10, SIMD16(repeating: p[l10]), wv)
            c11 = fma16(c11, SIMD16(repeating: p[l11]), wv)
            wp += 16
        }
        let width = min(16, w.n - col)
        if width == 16 {
            // A full panel: one 16-wide store per row.
            let out = c + row * ldc + col
            store16(epilogue.apply(c0, row: row, column: col, ldc: ldc), out)
            store16(epilogue.apply(c1, row: row + 1, column: col, ldc: ldc), out + ldc)
            store16(epilogue.apply(c2, row: row + 2, column: col, ldc: ldc), out + 2 * ldc)
            store16(epilogue.apply(c3, row: row + 3, column: col, ldc: ldc), out + 3 * ldc)
            store16(epilogue.apply(c4, row: row + 4, column: col, ldc: ldc), out + 4 * ldc)
            store16(epilogue.apply(c5, row: row + 5, column: col, ldc: ldc), out + 5 * ldc)
            store16(epilogue.apply(c6, row: row + 6, column: col, ldc: ldc), out + 6 * ldc)
            store16(epilogue.apply(c7, row: row + 7, column: col, ldc: ldc), out + 7 * ldc)
            store16(epilogue.apply(c8, row: row + 8, column: col, ldc: ldc), out + 8 * ldc)
            store16(epilogue.apply(c9, row: row + 9, column: col, ldc: ldc), out + 9 * ldc)
            store16(epilogue.apply(c10, row: row + 10, column: col, ldc: ldc), out + 10 * ldc)
            store16(epilogue.apply(c11, row: row + 11, column: col, ldc: ldc), out + 11 * ldc)
            return
        }
        // Unrolled: an array of the accumulators would be a heap allocation per tile.
        store(halves(c0), row: row, col: col, width: width, c: c, ldc: ldc, epilogue: epilogue)
        store(halves(c1), row: row + 1, col: col, width: width, c: c, ldc: ldc, epilogue: epilogue)
        store(halves(c2), row: row + 2, col: col, width: width, c: c, ldc: ldc, epilogue: epilogue)
        store(halves(c3), row: row + 3, col: col, width: width, c: c, ldc: ldc, epilogue: epilogue)
        store(halves(c4), row: row + 4, col: col, width: width, c: c, ldc: ldc, epilogue: epilogue)
        store(halves(c5), row: row + 5, col: col, width: width, c: c, ldc: ldc, epilogue: epilogue)
        store(halves(c6), row: row + 6, col: col, width: width, c: c, ldc: ldc, epilogue: epilogue)
        store(halves(c7), row: row + 7, col: col, width: width, c: c, ldc: ldc, epilogue: epilogue)
        store(halves(c8), row: row + 8, col: col, width: width, c: c, ldc: ldc, epilogue: epilogue)
        store(halves(c9), row: row + 9, col: col, width: width, c: c, ldc: ldc, epilogue: epilogue)
        store(halves(c10), row: row + 10, col: col, width: width, c: c, ldc: ldc, epilogue: epilogue)
        store(halves(c11), row: row + 11, col: col, width: width, c: c, ldc: ldc, epilogue: epilogue)
    }
    #endif

    @inline(__always)
    fileprivate static func store(_ v: (Float8, Float8), row: Int, col: Int, width: Int,
                      c: UnsafeMutablePointer<Float>, ldc: Int, epilogue: VectorEpilogue) {
        store(v.0, v.1, row: row, col: col, width: width, c: c, ldc: ldc, epilogue: epilogue)
    }

    /// Sixteen values of row `row` from column `col`, `width` of them kept.
    @inline(__always)
    fileprivate static func store(_ v0: Float8, _ v1: Float8, row: Int, col: Int, width: Int,
                      c: UnsafeMutablePointer<Float>, ldc: Int, epilogue: VectorEpilogue) {
        if width == 16 {
            storeFull(v0, v1, row: row, col: col, c: c, ldc: ldc, epilogue: epilogue)
        } else {
            storePartial(v0, v1, row: row, col: col, width: width, c: c, ldc: ldc, epilogue: epilogue)
        }
    }

    /// Sixteen values of row `row` from column `col`, all kept. Straight-line (the optimiser leaves
    /// `apply` a call here) and small, so that it inlines into the kernels: `store` with its partial
    /// branch stayed a call, and a call spills every accumulator of the tile still to be stored.
    @_transparent
    fileprivate static func storeFull(_ v0: Float8, _ v1: Float8, row: Int, col: Int,
                                      c: UnsafeMutablePointer<Float>, ldc: Int, epilogue: VectorEpilogue) {
        var x = clamp8(v0, epilogue.lo, epilogue.hi), y = clamp8(v1, epilogue.lo, epilogue.hi)
        if let residual = epilogue.epilogue.residual {
            let r = residual + (row &* ldc &+ col)
            x = clamp8(x + load8(r), epilogue.residualLo, epilogue.residualHi)
            y = clamp8(y + load8(r + 8), epilogue.residualLo, epilogue.residualHi)
        }
        if let alpha = epilogue.epilogue.alpha {
            x = x.replacing(with: x * load8(alpha + col), where: x .< 0)
            y = y.replacing(with: y * load8(alpha + (col &+ 8)), where: y .< 0)
        }
        let out = c + (row &* ldc &+ col)
        store8(x, out)
        store8(y, out + 8)
    }

    /// Eight values of row `row` from column `col`, all kept (a last panel eight wide: 24-, 40-wide
    /// layers), inlined as `storeFull` is.
    @_transparent
    fileprivate static func storeEight(_ v: Float8, row: Int, col: Int, c: UnsafeMutablePointer<Float>, ldc: Int,
                                       epilogue: VectorEpilogue) {
        var x = clamp8(v, epilogue.lo, epilogue.hi)
        if let residual = epilogue.epilogue.residual {
            x = clamp8(x + load8(residual + (row &* ldc &+ col)), epilogue.residualLo, epilogue.residualHi)
        }
        if let alpha = epilogue.epilogue.alpha { x = x.replacing(with: x * load8(alpha + col), where: x .< 0) }
        store8(x, c + (row &* ldc &+ col))
    }

    /// A partial panel (the last of a layer whose width is not a multiple of 16): a full first half as a
    /// vector, the rest one value at a time, only `width` columns touched. Out of line: it is rare.
    @inline(never)
    fileprivate static func storePartial(_ v0: Float8, _ v1: Float8, row: Int, col: Int, width: Int,
                             c: UnsafeMutablePointer<Float>, ldc: Int, epilogue: VectorEpilogue) {
        let out = c + row * ldc + col
        var j = 0
        if width >= 8 {
            store8(epilogue.apply(v0, row: row, column: col, ldc: ldc), out)
            j = 8
        }
        while j < width {
            out[j] = epilogue.epilogue.apply(j < 8 ? v0[j] : v1[j - 8], row: row, column: col + j, ldc: ldc)
            j += 1
        }
    }
}

#if HANDPOSE_AVX512 || HANDPOSE_AVX2
/// Convolution of an input with few channels into 17 to 32 (the models' first layers, on RGB),
/// read in place: for each group of output pixels of one row (four, or two below), every tap (ky, kx, ci)
/// broadcasts one input value per pixel against the weight vectors of the two panels. The weights are
/// `Conv2D`'s packed panels, whose k order (ky, kx, ci) is the patch order, so the sums are formed in
/// the GEMM's order. Taps outside the input are skipped (zero padding).
/// AVX-512: four pixels, two 16-wide vectors a pixel, eight accumulators. AVX2 (8-wide vectors): four
/// pixels of up to 24 outputs (twelve accumulators; the landmark model's first layer, whose im2col ran
/// at 15 GFLOP/s: the patch copies and a two-thirds-empty second panel cost more than the products),
/// or two pixels of up to 32 (eight; four pixels would need sixteen, more than AVX2's registers).
/// Static functions, not a struct holding its arguments: a struct's value-copying helper would be a weak
/// symbol shared by name with other modules (see KernelVariantBuildTests).
enum DirectConv {
    static func run(_ conv: Conv2D, x: UnsafePointer<Float>, y: UnsafeMutablePointer<Float>, epilogue plain: Epilogue, pixels: Range<Int>) {
        let epilogue = VectorEpilogue(plain)
        let w = conv.window, inW = conv.input.w, inH = conv.input.h, outW = conv.output.w
        // Output pixels done together: AVX2 has registers for four pixels of up to 24 outputs, two of 32.
        #if HANDPOSE_AVX512
        let groupSize = 4
        #else
        let groupSize = conv.weights.n <= 24 ? 4 : 2
        #endif
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
            // The end of the pixels a group may cover in this row, and where this call's part of the row
            // starts. A row's last group that would run past the end is moved back to end there: it
            // recomputes a few pixels this call already wrote, to the same bits (every pixel's sum is formed
            // in the same order, whichever path forms it), rather than leave up to three of them to
            // `single`, which is eight times slower a pixel (the landmark models' first layer: 4 of every
            // 112 pixels, a quarter of the layer's time).
            let groupEnd = min(oxEnd, ox + rowEnd - p), ownFirst = max(oxFirst, ox - (p - pixels.lowerBound))
            if ox >= oxFirst && ox + groupSize > groupEnd && ox < groupEnd && groupEnd - groupSize >= ownFirst {
                let back = ox + groupSize - groupEnd
                p -= back
                continue
            }
            if ox >= oxFirst && ox + groupSize <= groupEnd {
                // The models' first layers (3x3 and 5x5 on RGB), specialised so the tap loops unroll.
                let (kw, cin) = (w.kw, conv.input.c)
                #if HANDPOSE_AVX512
                if kw == 3 && cin == 3 { group(conv, x: x, y: y, epilogue: epilogue, pixel: p, ox: ox, iy0: iy0, ky: kyLo..<kyHi, kw: 3, cin: 3) }
                else if kw == 5 && cin == 3 { group(conv, x: x, y: y, epilogue: epilogue, pixel: p, ox: ox, iy0: iy0, ky: kyLo..<kyHi, kw: 5, cin: 3) }
                else { group(conv, x: x, y: y, epilogue: epilogue, pixel: p, ox: ox, iy0: iy0, ky: kyLo..<kyHi, kw: kw, cin: cin) }
                #else
                if groupSize == 4 {
                    if kw == 3 && cin == 3 { group24(conv, x: x, y: y, epilogue: epilogue, pixel: p, ox: ox, iy0: iy0, ky: kyLo..<kyHi, kw: 3, cin: 3) }
                    else if kw == 5 && cin == 3 { group24(conv, x: x, y: y, epilogue: epilogue, pixel: p, ox: ox, iy0: iy0, ky: kyLo..<kyHi, kw: 5, cin: 3) }
                    else { group24(conv, x: x, y: y, epilogue: epilogue, pixel: p, ox: ox, iy0: iy0, ky: kyLo..<kyHi, kw: kw, cin: cin) }
                } else {
                    if kw == 3 && cin == 3 { pair32(conv, x: x, y: y, epilogue: epilogue, pixel: p, ox: ox, iy0: iy0, ky: kyLo..<kyHi, kw: 3, cin: 3) }
                    else if kw == 5 && cin == 3 { pair32(conv, x: x, y: y, epilogue: epilogue, pixel: p, ox: ox, iy0: iy0, ky: kyLo..<kyHi, kw: 5, cin: 3) }
                    else { pair32(conv, x: x, y: y, epilogue: epilogue, pixel: p, ox: ox, iy0: iy0, ky: kyLo..<kyHi, kw: kw, cin: cin) }
                }
                #endif
                p += groupSize
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

    #if HANDPOSE_AVX512
    /// Four pixels by both panels of a 17-32 channel output: each broadcast feeds two FMAs.
    @inline(__always)
    fileprivate static func group(_ conv: Conv2D, x: UnsafePointer<Float>, y: UnsafeMutablePointer<Float>, epilogue: VectorEpilogue, pixel p: Int, ox: Int, iy0: Int, ky kys: Range<Int>, kw: Int, cin: Int) {
        let w = conv.window, inW = conv.input.w, k = conv.weights.k
        let wp0 = UnsafePointer(conv.weights.data.pointer), wp1 = wp0 + k * 16
        let bias = UnsafePointer(conv.weights.bias.pointer)
        let step = w.sw * cin, ix0 = ox * w.sw - w.padLeft
        let b0 = load16(bias), b1 = load16(bias + 16)
        var a0 = b0, a1 = b0, a2 = b0, a3 = b0, c0 = b1, c1 = b1, c2 = b1, c3 = b1
        // Wrapping index arithmetic and advancing pointers, as in the AVX2 kernels: the compiler keeps this
        // function out of line, so kw and cin are not constants here, and checked arithmetic put overflow
        // tests beside every index of the inner loop (measured: the loop ran at half the FMA units' rate).
        let step2 = step &* 2, step3 = step &* 3, tapStep = w.dw &* cin, panelOffset = wp1 - wp0
        for ky in kys {
            var tap = x + ((iy0 &+ ky &* w.dh) &* inW &+ ix0) &* cin
            var q = wp0 + (ky &* kw &* cin) &* 16
            for _ in 0..<kw {
                for ci in 0..<cin {
                    let u = load16(q), v = load16(q + panelOffset)
                    let x0 = SIMD16(repeating: tap[ci]), x1 = SIMD16(repeating: tap[step &+ ci])
                    let x2 = SIMD16(repeating: tap[step2 &+ ci]), x3 = SIMD16(repeating: tap[step3 &+ ci])
                    a0 = fma16(a0, x0, u); c0 = fma16(c0, x0, v)
                    a1 = fma16(a1, x1, u); c1 = fma16(c1, x1, v)
                    a2 = fma16(a2, x2, u); c2 = fma16(c2, x2, v)
                    a3 = fma16(a3, x3, u); c3 = fma16(c3, x3, v)
                    q += 16
                }
                tap += tapStep
            }
        }
        let width = conv.weights.n - 16, ldc = conv.output.c
        @_transparent func first(_ v: SIMD16<Float>, _ row: Int) {
            let (lo, hi) = halves(v)
            Gemm.storeFull(lo, hi, row: row, col: 0, c: y, ldc: ldc, epilogue: epilogue)
        }
        // The second panel: sixteen or eight wide (the palm and landmark models) inline, others through
        // `Gemm.store`'s partial path, a call that spills the accumulators still to be stored.
        @_transparent func second(_ v: SIMD16<Float>, _ row: Int) {
            let (lo, hi) = halves(v)
            if width == 16 { Gemm.storeFull(lo, hi, row: row, col: 16, c: y, ldc: ldc, epilogue: epilogue) }
            else if width == 8 { Gemm.storeEight(lo, row: row, col: 16, c: y, ldc: ldc, epilogue: epilogue) }
            else { Gemm.store(lo, hi, row: row, col: 16, width: width, c: y, ldc: ldc, epilogue: epilogue) }
        }
        first(a0, p); first(a1, p + 1); first(a2, p + 2); first(a3, p + 3)
        second(c0, p); second(c1, p + 1); second(c2, p + 2); second(c3, p + 3)
    }
    #else
    /// Four pixels by a 17-24 channel output (8-wide vectors): the first panel's two vectors and the
    /// second's first; each broadcast feeds three FMAs.
    @inline(__always)
    fileprivate static func group24(_ conv: Conv2D, x: UnsafePointer<Float>, y: UnsafeMutablePointer<Float>, epilogue: VectorEpilogue, pixel p: Int, ox: Int, iy0: Int, ky kys: Range<Int>, kw: Int, cin: Int) {
        let w = conv.window, inW = conv.input.w, k = conv.weights.k
        let wp0 = UnsafePointer(conv.weights.data.pointer), wp1 = wp0 + k * 16
        let bias = UnsafePointer(conv.weights.bias.pointer)
        let step = w.sw * cin, ix0 = ox * w.sw - w.padLeft
        let b0 = load8(bias), b1 = load8(bias + 8), b2 = load8(bias + 16)
        var a0 = b0, a1 = b0, a2 = b0, a3 = b0, c0 = b1, c1 = b1, c2 = b1, c3 = b1, d0 = b2, d1 = b2, d2 = b2, d3 = b2
        // Wrapping index arithmetic and advancing pointers: checked arithmetic put an overflow test beside
        // every index of the inner loop (the compiler keeps this function out of line, so kw and cin are not
        // constants here even where the caller passes literals).
        let step2 = step &* 2, step3 = step &* 3, tapStep = w.dw &* cin, second = wp1 - wp0
        for ky in kys {
            var tap = x + ((iy0 &+ ky &* w.dh) &* inW &+ ix0) &* cin
            var q = wp0 + (ky &* kw &* cin) &* 16
            for _ in 0..<kw {
                for ci in 0..<cin {
                    let u = load8(q), v = load8(q + 8), t = load8(q + second)
                    var xv = Float8(repeating: tap[ci])
                    a0 = fma8(a0, xv, u); c0 = fma8(c0, xv, v); d0 = fma8(d0, xv, t)
                    xv = Float8(repeating: tap[step &+ ci])
                    a1 = fma8(a1, xv, u); c1 = fma8(c1, xv, v); d1 = fma8(d1, xv, t)
                    xv = Float8(repeating: tap[step2 &+ ci])
                    a2 = fma8(a2, xv, u); c2 = fma8(c2, xv, v); d2 = fma8(d2, xv, t)
                    xv = Float8(repeating: tap[step3 &+ ci])
                    a3 = fma8(a3, xv, u); c3 = fma8(c3, xv, v); d3 = fma8(d3, xv, t)
                    q += 16
                }
                tap += tapStep
            }
        }
        let width = conv.weights.n - 16, ldc = conv.output.c, zero = Float8()
        if width == 8 && epilogue.epilogue.residual == nil && epilogue.epilogue.alpha == nil {
            // The landmark models' first layer (24 outputs, ReLU6), straight-line: `Gemm.store` stays a call
            // here, and every call spilled the accumulators still waiting (measured: stores cost about as much
            // as the products).
            let (lo, hi) = (epilogue.lo, epilogue.hi)
            let o0 = y + p &* ldc, o1 = o0 + ldc, o2 = o1 + ldc, o3 = o2 + ldc
            store8(clamp8(a0, lo, hi), o0); store8(clamp8(c0, lo, hi), o0 + 8); store8(clamp8(d0, lo, hi), o0 + 16)
            store8(clamp8(a1, lo, hi), o1); store8(clamp8(c1, lo, hi), o1 + 8); store8(clamp8(d1, lo, hi), o1 + 16)
            store8(clamp8(a2, lo, hi), o2); store8(clamp8(c2, lo, hi), o2 + 8); store8(clamp8(d2, lo, hi), o2 + 16)
            store8(clamp8(a3, lo, hi), o3); store8(clamp8(c3, lo, hi), o3 + 8); store8(clamp8(d3, lo, hi), o3 + 16)
            return
        }
        Gemm.store(a0, c0, row: p, col: 0, width: 16, c: y, ldc: ldc, epilogue: epilogue)
        Gemm.store(a1, c1, row: p + 1, col: 0, width: 16, c: y, ldc: ldc, epilogue: epilogue)
        Gemm.store(a2, c2, row: p + 2, col: 0, width: 16, c: y, ldc: ldc, epilogue: epilogue)
        Gemm.store(a3, c3, row: p + 3, col: 0, width: 16, c: y, ldc: ldc, epilogue: epilogue)
        Gemm.store(d0, zero, row: p, col: 16, width: width, c: y, ldc: ldc, epilogue: epilogue)
        Gemm.store(d1, zero, row: p + 1, col: 16, width: width, c: y, ldc: ldc, epilogue: epilogue)
        Gemm.store(d2, zero, row: p + 2, col: 16, width: width, c: y, ldc: ldc, epilogue: epilogue)
        Gemm.store(d3, zero, row: p + 3, col: 16, width: width, c: y, ldc: ldc, epilogue: epilogue)
    }

    /// Two pixels by a 25-32 channel output (8-wide vectors): both panels' two vectors, eight
    /// accumulators; each broadcast feeds four FMAs.
    @inline(__always)
    fileprivate static func pair32(_ conv: Conv2D, x: UnsafePointer<Float>, y: UnsafeMutablePointer<Float>, epilogue: VectorEpilogue, pixel p: Int, ox: Int, iy0: Int, ky kys: Range<Int>, kw: Int, cin: Int) {
        let w = conv.window, inW = conv.input.w, k = conv.weights.k
        let wp0 = UnsafePointer(conv.weights.data.pointer), wp1 = wp0 + k * 16
        let bias = UnsafePointer(conv.weights.bias.pointer)
        let step = w.sw * cin, ix0 = ox * w.sw - w.padLeft
        let b0 = load8(bias), b1 = load8(bias + 8), b2 = load8(bias + 16), b3 = load8(bias + 24)
        var a0 = b0, c0 = b1, d0 = b2, e0 = b3, a1 = b0, c1 = b1, d1 = b2, e1 = b3
        let tapStep = w.dw &* cin, second = wp1 - wp0
        for ky in kys {
            var tap = x + ((iy0 &+ ky &* w.dh) &* inW &+ ix0) &* cin
            var q = wp0 + (ky &* kw &* cin) &* 16
            for _ in 0..<kw {
                for ci in 0..<cin {
                    let u = load8(q), v = load8(q + 8), t = load8(q + second), r = load8(q + (second &+ 8))
                    var xv = Float8(repeating: tap[ci])
                    a0 = fma8(a0, xv, u); c0 = fma8(c0, xv, v); d0 = fma8(d0, xv, t); e0 = fma8(e0, xv, r)
                    xv = Float8(repeating: tap[step &+ ci])
                    a1 = fma8(a1, xv, u); c1 = fma8(c1, xv, v); d1 = fma8(d1, xv, t); e1 = fma8(e1, xv, r)
                    q += 16
                }
                tap += tapStep
            }
        }
        let width = conv.weights.n - 16, ldc = conv.output.c
        if width == 16 && epilogue.epilogue.residual == nil {
            // The palm models' first layer (32 outputs, PReLU), straight-line as in `group24`.
            let (lo, hi) = (epilogue.lo, epilogue.hi)
            var x0 = clamp8(a0, lo, hi), x1 = clamp8(c0, lo, hi), x2 = clamp8(d0, lo, hi), x3 = clamp8(e0, lo, hi)
            var z0 = clamp8(a1, lo, hi), z1 = clamp8(c1, lo, hi), z2 = clamp8(d1, lo, hi), z3 = clamp8(e1, lo, hi)
            if let alpha = epilogue.epilogue.alpha {
                let s0 = load8(alpha), s1 = load8(alpha + 8), s2 = load8(alpha + 16), s3 = load8(alpha + 24)
                x0 = x0.replacing(with: x0 * s0, where: x0 .< 0); x1 = x1.replacing(with: x1 * s1, where: x1 .< 0)
                x2 = x2.replacing(with: x2 * s2, where: x2 .< 0); x3 = x3.replacing(with: x3 * s3, where: x3 .< 0)
                z0 = z0.replacing(with: z0 * s0, where: z0 .< 0); z1 = z1.replacing(with: z1 * s1, where: z1 .< 0)
                z2 = z2.replacing(with: z2 * s2, where: z2 .< 0); z3 = z3.replacing(with: z3 * s3, where: z3 .< 0)
            }
            let o0 = y + p &* ldc, o1 = o0 + ldc
            store8(x0, o0); store8(x1, o0 + 8); store8(x2, o0 + 16); store8(x3, o0 + 24)
            store8(z0, o1); store8(z1, o1 + 8); store8(z2, o1 + 16); store8(z3, o1 + 24)
            return
        }
        Gemm.store(a0, c0, row: p, col: 0, width: 16, c: y, ldc: ldc, epilogue: epilogue)
        Gemm.store(a1, c1, row: p + 1, col: 0, width: 16, c: y, ldc: ldc, epilogue: epilogue)
        Gemm.store(d0, e0, row: p, col: 16, width: width, c: y, ldc: ldc, epilogue: epilogue)
        Gemm.store(d1, e1, row: p + 1, col: 16, width: width, c: y, ldc: ldc, epilogue: epilogue)
    }
    #endif

    /// One pixel, taps clipped to `kx` horizontally.
    @inline(__always)
    fileprivate static func single(_ conv: Conv2D, x: UnsafePointer<Float>, y: UnsafeMutablePointer<Float>, epilogue: VectorEpilogue, pixel p: Int, ox: Int, iy0: Int, ky kys: Range<Int>, kx kxs: Range<Int>, panel: Int) {
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
