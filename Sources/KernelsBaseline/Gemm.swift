import Kernels

/// `C = A * W` over row chunks and weight panels, each cut into the tiles of MicroKernels.generated.swift
/// (scripts/generate-kernels.py): twelve rows at a time with AVX-512, six otherwise, eight-wide tiles for a
/// last panel of eight or fewer columns, a two-row tile for the tail.
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
                    GemmTiles.gemm12x16(a: a, lda: lda, row: r, rowCount: 12, w: w, panel: p, next: next, c: c, ldc: ldc, epilogue: epilogue)
                    r += 12
                }
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
            }
            r0 = r1
        }
    }
}
