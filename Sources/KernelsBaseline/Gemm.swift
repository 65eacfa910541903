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

    @inline(__always)
    func apply(_ v: Float8, row: Int, column: Int, ldc: Int) -> Float8 {
        var v = activation.apply(v)
        if let residual {
            v += load8(residual + row * ldc + column)
            v = residualActivation.apply(v)
        }
        if let alpha {
            let a = load8(alpha + column)
            v = v.replacing(with: v * a, where: v .< 0)
        }
        return v
    }
}

#if HANDPOSE_AVX512
extension Epilogue {
    @inline(__always)
    func apply(_ v: SIMD16<Float>, row: Int, column: Int, ldc: Int) -> SIMD16<Float> {
        var v = activation.apply(v)
        if let residual {
            v += load16(residual + row * ldc + column)
            v = residualActivation.apply(v)
        }
        if let alpha {
            let a = load16(alpha + column)
            v = v.replacing(with: v * a, where: v .< 0)
        }
        return v
    }
}
#endif

enum Gemm {
    /// Rows `rows` of `C = A * W` with the epilogue. `A` rows are `lda` floats apart, `C` rows `ldc`.
    /// The residual of the epilogue, when set, has the layout of `C`.
    static func run(a: UnsafePointer<Float>, lda: Int, rows: Range<Int>, weights w: PackedWeights,
                           c: UnsafeMutablePointer<Float>, ldc: Int, epilogue: Epilogue) {
        let chunk = 96
        var r0 = rows.lowerBound
        while r0 < rows.upperBound {
            let r1 = min(r0 + chunk, rows.upperBound)
            for p in 0..<w.panels {
                var r = r0
                #if HANDPOSE_AVX512
                while r + 12 <= r1 {
                    microKernel12x16(a: a, lda: lda, row: r, w: w, panel: p, c: c, ldc: ldc, epilogue: epilogue)
                    r += 12
                }
                #endif
                while r < r1 {
                    microKernel6x16(a: a, lda: lda, row: r, rowCount: min(6, r1 - r), w: w, panel: p,
                                    c: c, ldc: ldc, epilogue: epilogue)
                    r += 6
                }
            }
            r0 = r1
        }
    }

    /// Six rows by sixteen columns: 12 accumulators in registers, one broadcast and two weight loads a step.
    /// Rows past `rowCount` repeat the last valid row and are not stored.
    @inline(__always)
    static func microKernel6x16(a: UnsafePointer<Float>, lda: Int, row: Int, rowCount: Int, w: PackedWeights,
                                panel: Int, c: UnsafeMutablePointer<Float>, ldc: Int, epilogue: Epilogue) {
        let k = w.k
        let last = rowCount - 1
        let a0 = a + row * lda
        let a1 = a + (row + min(1, last)) * lda
        let a2 = a + (row + min(2, last)) * lda
        let a3 = a + (row + min(3, last)) * lda
        let a4 = a + (row + min(4, last)) * lda
        let a5 = a + (row + min(5, last)) * lda
        let col = panel * 16
        let b0 = load8(w.bias.pointer + col), b1 = load8(w.bias.pointer + col + 8)
        var c00 = b0, c01 = b1, c10 = b0, c11 = b1, c20 = b0, c21 = b1
        var c30 = b0, c31 = b1, c40 = b0, c41 = b1, c50 = b0, c51 = b1
        var wp = UnsafePointer(w.data.pointer + panel * k * 16)
        for kk in 0..<k {
            let w0 = load8(wp), w1 = load8(wp + 8)
            var x = Float8(repeating: a0[kk]); c00 = fma8(c00, x, w0); c01 = fma8(c01, x, w1)
            x = Float8(repeating: a1[kk]); c10 = fma8(c10, x, w0); c11 = fma8(c11, x, w1)
            x = Float8(repeating: a2[kk]); c20 = fma8(c20, x, w0); c21 = fma8(c21, x, w1)
            x = Float8(repeating: a3[kk]); c30 = fma8(c30, x, w0); c31 = fma8(c31, x, w1)
            x = Float8(repeating: a4[kk]); c40 = fma8(c40, x, w0); c41 = fma8(c41, x, w1)
            x = Float8(repeating: a5[kk]); c50 = fma8(c50, x, w0); c51 = fma8(c51, x, w1)
            wp += 16
        }
        let width = min(16, w.n - col)
        store(c00, c01, row: row, col: col, width: width, c: c, ldc: ldc, epilogue: epilogue)
        if rowCount > 1 { store(c10, c11, row: row + 1, col: col, width: width, c: c, ldc: ldc, epilogue: epilogue) }
        if rowCount > 2 { store(c20, c21, row: row + 2, col: col, width: width, c: c, ldc: ldc, epilogue: epilogue) }
        if rowCount > 3 { store(c30, c31, row: row + 3, col: col, width: width, c: c, ldc: ldc, epilogue: epilogue) }
        if rowCount > 4 { store(c40, c41, row: row + 4, col: col, width: width, c: c, ldc: ldc, epilogue: epilogue) }
        if rowCount > 5 { store(c50, c51, row: row + 5, col: col, width: width, c: c, ldc: ldc, epilogue: epilogue) }
    }

    #if HANDPOSE_AVX512
    /// Twelve rows by sixteen columns in one 16-wide register each (AVX-512): 12 accumulators,
    /// one weight load and twelve broadcasts a step.
    @inline(__always)
    static func microKernel12x16(a: UnsafePointer<Float>, lda: Int, row: Int, w: PackedWeights,
                                 panel: Int, c: UnsafeMutablePointer<Float>, ldc: Int, epilogue: Epilogue) {
        let k = w.k
        let a0 = a + row * lda
        let col = panel * 16
        let bias = load16(w.bias.pointer + col)
        var c0 = bias, c1 = bias, c2 = bias, c3 = bias, c4 = bias, c5 = bias
        var c6 = bias, c7 = bias, c8 = bias, c9 = bias, c10 = bias, c11 = bias
        var wp = UnsafePointer(w.data.pointer + panel * k * 16)
        let l2 = 2 * lda, l3 = 3 * lda, l4 = 4 * lda, l5 = 5 * lda, l6 = 6 * lda
        let l7 = 7 * lda, l8 = 8 * lda, l9 = 9 * lda, l10 = 10 * lda, l11 = 11 * lda
        for kk in 0..<k {
            let wv = UnsafeRawPointer(wp).loadUnaligned(as: SIMD16<Float>.self)
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
    static func store(_ v: (Float8, Float8), row: Int, col: Int, width: Int,
                      c: UnsafeMutablePointer<Float>, ldc: Int, epilogue: Epilogue) {
        store(v.0, v.1, row: row, col: col, width: width, c: c, ldc: ldc, epilogue: epilogue)
    }

    @inline(__always)
    static func store(_ v0: Float8, _ v1: Float8, row: Int, col: Int, width: Int,
                      c: UnsafeMutablePointer<Float>, ldc: Int, epilogue: Epilogue) {
        let out = c + row * ldc + col
        if width == 16 {
            store8(epilogue.apply(v0, row: row, column: col, ldc: ldc), out)
            store8(epilogue.apply(v1, row: row, column: col + 8, ldc: ldc), out + 8)
            return
        }
        // A partial panel: a full first half as a vector, the rest one value at a time, only `width` columns touched.
        var j = 0
        if width >= 8 {
            store8(epilogue.apply(v0, row: row, column: col, ldc: ldc), out)
            j = 8
        }
        while j < width {
            out[j] = epilogue.apply(j < 8 ? v0[j] : v1[j - 8], row: row, column: col + j, ldc: ldc)
            j += 1
        }
    }
}
