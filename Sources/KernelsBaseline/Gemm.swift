import Kernels

/// `C = A * W` over row chunks and weight panels, each cut into the tiles of MicroKernels.generated.swift
/// (scripts/generate-kernels.py). With AVX-512: where two panels remain (the second may be partial) and the
/// tiling is `wide` (`GemmTiling`), six rows of both at a time; else twelve rows of one. Six rows otherwise; eight-wide
/// tiles for a last panel of eight or fewer columns; a two-row tile for the tail.
enum Gemm {
    /// Rows `rows` of `C = A * W` with the epilogue, the columns of panels `panels` (all of them when nil).
    /// `A` rows are `lda` floats apart, `C` rows `ldc`. The residual of the epilogue, when set, has the layout of `C`.
    /// `wide` picks `GemmTiling.wide` over `rows12` in the AVX-512 build (ignored in the others).
    @inline(never)
    static func run(a: UnsafePointer<Float>, lda: Int, rows: Range<Int>, panels: Range<Int>? = nil, weights w: PackedWeights,
                    c: UnsafeMutablePointer<Float>, ldc: Int, epilogue: Epilogue, wide: Bool) {
        let panels = panels ?? 0..<w.panels
        let chunk = 96
        let epilogue = VectorEpilogue(epilogue)
        var r0 = rows.lowerBound
        while r0 < rows.upperBound {
            let r1 = smaller(r0 + chunk, rows.upperBound)
            var p = panels.lowerBound
            while p < panels.upperBound {
                var r = r0
                // The next panel's weights, fetched a line a step while this panel's tiles run: a layer with
                // few rows and many weights (the 7x7 layers: 49 rows, 0.9 MB of weights) otherwise waits on
                // memory (measured: the same product with its weights already in the cache took 55% of the time).
                // (After the last panel, the first again when another chunk of rows follows.)
                #if HANDPOSE_AVX512
                // The second panel may be partial (24 outputs: 16 + 8): the pair costs the same multiply-adds
                // as a 12-row tile on each panel (the second then half empty) and runs at the wider tile's speed.
                if wide && p + 1 < panels.upperBound {
                    // (The first of two panels, so the second line, a panel on, stays inside this range's panels.)
                    let following = smaller(p + 2 < panels.upperBound ? p + 2 : (r1 < rows.upperBound ? panels.lowerBound : p),
                                            panels.upperBound - 2)
                    widePair(a: a, lda: lda, from: r0, to: r1, w: w, panel: p, next: UnsafePointer(w.data.pointer + following * w.k * 16),
                             c: c, ldc: ldc, epilogue: epilogue)
                    p += 2
                    continue
                }
                #endif
                let following = p + 1 < panels.upperBound ? p + 1 : (r1 < rows.upperBound ? panels.lowerBound : p)
                let next = UnsafePointer(w.data.pointer + following * w.k * 16)
                #if HANDPOSE_AVX512
                r = rows12(a: a, lda: lda, from: r0, to: r1, w: w, panel: p, next: next, c: c, ldc: ldc, epilogue: epilogue)
                #endif
                // The last panel of a layer 8 or fewer wide past a multiple of 16 (24 and 40 outputs in the
                // landmark model, 2 and 6 in the palm model's heads): half the products.
                if w.n - p * 16 <= 8 {
                    while r + 2 < r1 {
                        GemmTiles.gemm6x8(a: a, lda: lda, row: r, rowCount: smaller(6, r1 - r), w: w, panel: p, next: next,
                                          c: c, ldc: ldc, epilogue: epilogue)
                        r += 6
                    }
                }
                while r + 2 < r1 {
                    GemmTiles.gemm6x16(a: a, lda: lda, row: r, rowCount: smaller(6, r1 - r), w: w, panel: p, next: next,
                                       c: c, ldc: ldc, epilogue: epilogue)
                    r += 6
                }
                // A tail of one or two rows (the landmark model's 7x7 layers: 49 = 8 x 6 + 1) in a
                // kernel a third the size, not in a six-row one repeating its last row.
                if r < r1 {
                    GemmTiles.gemm2x16(a: a, lda: lda, row: r, rowCount: r1 - r, w: w, panel: p, next: next, c: c, ldc: ldc, epilogue: epilogue)
                }
                p += 1
            }
            r0 = r1
        }
    }

    #if HANDPOSE_AVX512
    // Each AVX-512 tile loop is a function of its own, called once a chunk of rows and panel: with both in
    // `run`, the compiler inlined neither tile into it (a call a tile, the 12x16 path 10% slower in the palm
    // model), and a tile inlined is one whose row count and epilogue the compiler knows.

    /// Rows `r0..<r1` of panel `p` twelve at a time, as far as twelve remain; returns the first row not done.
    @inline(never)
    private static func rows12(a: UnsafePointer<Float>, lda: Int, from r0: Int, to r1: Int, w: PackedWeights, panel p: Int,
                               next: UnsafePointer<Float>, c: UnsafeMutablePointer<Float>, ldc: Int, epilogue: VectorEpilogue) -> Int {
        var r = r0
        while r + 12 <= r1 {
            GemmTiles.gemm12x16(a: a, lda: lda, row: r, rowCount: 12, w: w, panel: p, next: next, c: c, ldc: ldc, epilogue: epilogue)
            r += 12
        }
        return r
    }

    /// Rows `r0..<r1` of panels `p` and `p + 1`, six rows at a time, and a tail of one or two rows panel by
    /// panel; the weights at `next` fetched a line a step (two lines: the tile reads two panels).
    @inline(never)
    private static func widePair(a: UnsafePointer<Float>, lda: Int, from r0: Int, to r1: Int, w: PackedWeights, panel p: Int,
                                 next: UnsafePointer<Float>, c: UnsafeMutablePointer<Float>, ldc: Int, epilogue: VectorEpilogue) {
        var r = r0
        while r + 2 < r1 {
            GemmTiles.gemm6x32(a: a, lda: lda, row: r, rowCount: smaller(6, r1 - r), w: w, panel: p, next: next, c: c, ldc: ldc, epilogue: epilogue)
            r += 6
        }
        if r < r1 {
            GemmTiles.gemm2x16(a: a, lda: lda, row: r, rowCount: r1 - r, w: w, panel: p, next: next, c: c, ldc: ldc, epilogue: epilogue)
            GemmTiles.gemm2x16(a: a, lda: lda, row: r, rowCount: r1 - r, w: w, panel: p + 1, next: next, c: c, ldc: ldc, epilogue: epilogue)
        }
    }
    #endif
}
