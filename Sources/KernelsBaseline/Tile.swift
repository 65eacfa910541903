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

/// `min` in the tiles and their drivers: the optimiser left the standard library's a call there, to a
/// specialisation every module emits under one name (see KernelVariantBuildTests).
@_transparent
func smaller(_ a: Int, _ b: Int) -> Int { a < b ? a : b }

/// `VectorEpilogue` (declared in Kernels) applied to a row's vector of one tile.
extension VectorEpilogue {
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

/// Storing a tile's accumulators through the epilogue, one row of one 16-column panel at a time (the
/// generated tiles in MicroKernels.generated.swift call these).
enum Tile {
    /// Sixteen values of row `row` from column `col`, `width` of them kept.
    @inline(__always)
    static func store(_ v0: Float8, _ v1: Float8, row: Int, col: Int, width: Int,
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
    static func storeFull(_ v0: Float8, _ v1: Float8, row: Int, col: Int,
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
    static func storeEight(_ v: Float8, row: Int, col: Int, c: UnsafeMutablePointer<Float>, ldc: Int,
                                       epilogue: VectorEpilogue) {
        var x = clamp8(v, epilogue.lo, epilogue.hi)
        if let residual = epilogue.epilogue.residual {
            x = clamp8(x + load8(residual + (row &* ldc &+ col)), epilogue.residualLo, epilogue.residualHi)
        }
        if let alpha = epilogue.epilogue.alpha { x = x.replacing(with: x * load8(alpha + col), where: x .< 0) }
        store8(x, c + (row &* ldc &+ col))
    }

    /// A partial panel (the last of a layer whose width is not a multiple of 16), only `width` (1...15) columns
    /// touched. Nine to fifteen columns (BlazeFace's 28 = 16 + 12 and 42 = 32 + 10): the first eight as a
    /// vector, then the last eight as another, which overlaps it. The overlapped columns are written twice
    /// with the same value: a column's epilogue reads its own residual and slope, and no step's output is
    /// its residual or its input (`ExecutionPlan.assignArena` never places tensors live in one step
    /// together). Eight columns, one vector; one to seven (the pose heatmap's 39 = 32 + 7), one value at a
    /// time. Out of line: a tile's full stores stay inline.
    @inline(never)
    static func storePartial(_ v0: Float8, _ v1: Float8, row: Int, col: Int, width: Int,
                      c: UnsafeMutablePointer<Float>, ldc: Int, epilogue: VectorEpilogue) {
        assert(width > 0 && width < 16)
        let out = c + row * ldc + col
        if width >= 8 {
            store8(epilogue.apply(v0, row: row, column: col, ldc: ldc), out)
            if width > 8 {
                // Columns width - 8 ..< width of the sixteen.
                let last = withUnsafeBytes(of: (v0, v1)) { $0.loadUnaligned(fromByteOffset: (width &- 8) &* 4, as: Float8.self) }
                store8(epilogue.apply(last, row: row, column: col &+ width &- 8, ldc: ldc), out + (width &- 8))
            }
            return
        }
        for j in 0..<width {
            out[j] = epilogue.epilogue.apply(v0[j], row: row, column: col + j, ldc: ldc)
        }
    }

    /// The sum of a vector's lanes in a fixed order, ((0 + 4) + (2 + 6)) + ((1 + 5) + (3 + 7)), the same in
    /// every variant (a reduction the optimiser may reorder would differ between them).
    @_transparent
    static func lanes(_ v: Float8) -> Float {
        ((v[0] + v[4]) + (v[2] + v[6])) + ((v[1] + v[5]) + (v[3] + v[7]))
    }

    /// `lanes` of eight vectors at once, the sums as one vector: the same additions in the same order, done
    /// four or eight pixels a vector (a lane at a time, the sums cost more than the products of a 3x3 tap).
    @_transparent
    static func lanes(_ a0: Float8, _ a1: Float8, _ a2: Float8, _ a3: Float8, _ a4: Float8, _ a5: Float8, _ a6: Float8, _ a7: Float8) -> Float8 {
        // Lanes 0-3 plus 4-7 of each vector, two vectors a result: [p q r s | p q r s] (p = 0+4, r = 2+6).
        let u01 = foldHalves(a0, a1), u23 = foldHalves(a2, a3), u45 = foldHalves(a4, a5), u67 = foldHalves(a6, a7)
        // p + r and q + s of each, four vectors a result.
        let v0 = foldPairs(u01, u23), v1 = foldPairs(u45, u67)
        // (p + r) + (q + s) of each, all eight.
        return Float8(v0[0], v0[2], v0[4], v0[6], v1[0], v1[2], v1[4], v1[6]) + Float8(v0[1], v0[3], v0[5], v0[7], v1[1], v1[3], v1[5], v1[7])
    }

    @_transparent
    static func foldHalves(_ x: Float8, _ y: Float8) -> Float8 {
        Float8(x[0], x[1], x[2], x[3], y[0], y[1], y[2], y[3]) + Float8(x[4], x[5], x[6], x[7], y[4], y[5], y[6], y[7])
    }

    @_transparent
    static func foldPairs(_ x: Float8, _ y: Float8) -> Float8 {
        Float8(x[0], x[1], x[4], x[5], y[0], y[1], y[4], y[5]) + Float8(x[2], x[3], x[6], x[7], y[2], y[3], y[6], y[7])
    }

    /// Eight consecutive pixels of a one-channel output from `pixel`, through the epilogue (its residual has the
    /// output's layout; its one slope is for channel 0).
    @_transparent
    static func storeOneChannel(_ v: Float8, pixel: Int, y: UnsafeMutablePointer<Float>, epilogue: VectorEpilogue) {
        var x = clamp8(v, epilogue.lo, epilogue.hi)
        if let residual = epilogue.epilogue.residual {
            x = clamp8(x + load8(residual + pixel), epilogue.residualLo, epilogue.residualHi)
        }
        if let alpha = epilogue.epilogue.alpha { x = x.replacing(with: x * Float8(repeating: alpha[0]), where: x .< 0) }
        store8(x, y + pixel)
    }
}
