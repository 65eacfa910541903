import Kernels

/// Convolution into one output channel from a multiple of 8 input channels (the pose landmark model's
/// segmentation head: 3x3, 256x256x8 into 256x256x1), read in place: eight pixels of one row at a time
/// (`DotTiles`), each pixel's products in eight lanes by input channel, the lanes summed at the end. Through
/// im2col and the gemm tiles, 15 of a panel's 16 columns were zeros and each row's single value a partial
/// store: 3 ms of the model's 15 (1.6 GFLOP/s). Every variant runs the same 8-wide code, so AVX2 and
/// AVX-512 agree bit for bit; the sums' order differs from the gemm path's (lanes, then a tree).
enum DotConv {
    static let groupSize = 8

    static func run(_ conv: Conv2D, taps: FloatBuffer, x: UnsafePointer<Float>, y: UnsafeMutablePointer<Float>, epilogue plain: Epilogue,
                    pixels: Range<Int>) {
        let epilogue = VectorEpilogue(plain)
        let (kw, cin) = (conv.window.kw, conv.input.c)
        ConvRows.walk(conv, pixels: pixels, groupSize: groupSize, group: { p, ox, iy0, ky in
            // The segmentation head (3x3, 8 channels), specialised so the tap loops unroll.
            if kw == 3 && cin == 8 {
                DotTiles.dot8(conv, taps: taps.pointer, x: x, y: y, epilogue: epilogue, pixel: p, ox: ox, iy0: iy0, ky: ky, kw: 3, cin: 8)
            } else {
                DotTiles.dot8(conv, taps: taps.pointer, x: x, y: y, epilogue: epilogue, pixel: p, ox: ox, iy0: iy0, ky: ky, kw: kw, cin: cin)
            }
        }, single: { p, ox, iy0, ky in
            single(conv, taps: taps.pointer, x: x, y: y, epilogue: epilogue, pixel: p, ox: ox, iy0: iy0, ky: ky)
        })
    }

    /// One pixel, taps outside the input skipped, its lanes summed as the tiles sum them.
    static func single(_ conv: Conv2D, taps: UnsafePointer<Float>, x: UnsafePointer<Float>, y: UnsafeMutablePointer<Float>,
                       epilogue: VectorEpilogue, pixel p: Int, ox: Int, iy0: Int, ky kys: Range<Int>) {
        let w = conv.window, cin = conv.input.c, inW = conv.input.w
        let ix0 = ox * w.sw - w.padLeft
        let kxLo = max(0, (-ix0 + w.dw - 1) / w.dw), kxHi = max(kxLo, min(w.kw, (inW - ix0 + w.dw - 1) / w.dw))
        var acc = Float8()
        for ky in kys {
            let row = x + ((iy0 + ky * w.dh) * inW + ix0) * cin
            for kx in kxLo..<kxHi {
                let tap = row + kx * w.dw * cin, q = taps + (ky * w.kw + kx) * cin
                var ci = 0
                while ci < cin {
                    acc = fma8(acc, load8(tap + ci), load8(q + ci))
                    ci += 8
                }
            }
        }
        y[p] = epilogue.epilogue.apply(Tile.lanes(acc) + conv.weights.bias.pointer[0], row: p, column: 0, ldc: 1)
    }
}
