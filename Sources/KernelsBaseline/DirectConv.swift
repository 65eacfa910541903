import Kernels

#if HANDPOSE_AVX512 || HANDPOSE_AVX2
/// Convolution of an input with few channels (the models' first layers, on RGB) read in place: for each
/// group of output pixels of one row, every tap (ky, kx, ci) broadcasts one input value per pixel against
/// the tap's weight vectors (the tiles of MicroKernels.generated.swift). The weights are `Conv2D`'s packed
/// panels, whose k order (ky, kx, ci) is the patch order, so the sums are formed in the GEMM's order and
/// both paths give the same floats. Taps outside the input are skipped (zero padding).
/// The tile by output width: eight or fewer channels, eight pixels of one 8-wide vector (hand_recrop's
/// first layer, whose im2col ran at 14 GFLOP/s, and its 2x2 stride-2 layers on eight channels); 9 to 16,
/// eight pixels of one 16-wide vector or six of two 8-wide (face_landmark's first layer, 23% of the model
/// through im2col); 17 to 24, four pixels of three 8-wide vectors (twelve accumulators; the landmark and
/// detector models' first layers), with AVX2 and with the AVX-512 `rows12` tiling (Zen 4, where a 16-wide
/// multiply-add costs two 8-wide ones, so two 16-wide vectors wasted a quarter of the products); 25 to 32,
/// four pixels of two 16-wide vectors with `rows12`, two pixels of four 8-wide with AVX2 (four pixels would
/// need sixteen accumulators, more than AVX2's registers). With the `wide` tiling (`GemmTiling`), 17 to 32
/// take eight pixels of two 16-wide vectors (`direct8x32`, sixteen accumulators), measured on Zen 5 only
/// (`handpose bench kernels` prints each tile's share of the peak; docs/engine-kernels.md, "The other tiles
/// on full-width cores", has the runs). Every tile forms each value the same way, so the choice never
/// changes a bit.
enum DirectConv {
    /// Whether a tile covers `conv`: few input channels, and an output width a tile has.
    /// (Eight channels into at most eight: hand_recrop's 2x2 stride-2 convolutions, 64x64x8 from
    /// 128x128x8, where gathering patches for a half-empty 16-column panel ran at 26 GFLOP/s.)
    static func covers(_ conv: Conv2D) -> Bool {
        (conv.input.c <= 4 && conv.weights.n <= 32) || (conv.input.c <= 8 && conv.weights.n <= 8)
    }

    /// Up to 8 outputs; up to 16; up to 24; up to 32.
    /// (`upTo32Wide`: up to 32 on a full-width AVX-512 core, eight pixels.)
    private enum Choice { case eight, upTo16, upTo24, upTo32, upTo32Wide }

    /// `wide`: the AVX-512 tiling is `GemmTiling.wide` (full-width multiply-adds; ignored with AVX2).
    static func run(_ conv: Conv2D, x: UnsafePointer<Float>, y: UnsafeMutablePointer<Float>, epilogue plain: Epilogue, pixels: Range<Int>,
                    wide: Bool) {
        let epilogue = VectorEpilogue(plain)
        let n = conv.weights.n
        #if HANDPOSE_AVX512
        let choice: Choice = n <= 8 ? .eight : (n <= 16 ? .upTo16 : (wide ? .upTo32Wide : (n <= 24 ? .upTo24 : .upTo32)))
        #else
        let choice: Choice = n <= 8 ? .eight : (n <= 16 ? .upTo16 : (n <= 24 ? .upTo24 : .upTo32))
        #endif
        let groupSize: Int
        switch choice {
        case .eight: groupSize = 8
        case .upTo24: groupSize = 4
        #if HANDPOSE_AVX512
        case .upTo16: groupSize = 8
        case .upTo32: groupSize = 4
        case .upTo32Wide: groupSize = 8
        #else
        case .upTo16: groupSize = 6
        case .upTo32, .upTo32Wide: groupSize = 2
        #endif
        }
        let (kw, cin, window, inW) = (conv.window.kw, conv.input.c, conv.window, conv.input.w)
        ConvRows.walk(conv, pixels: pixels, groupSize: groupSize, group: { p, ox, iy0, ky in
            // The models' first layers (3x3 and 5x5 on RGB), specialised so the tap loops unroll.
            if kw == 3 && cin == 3 { group(choice, conv, x: x, y: y, epilogue: epilogue, pixel: p, ox: ox, iy0: iy0, ky: ky, kw: 3, cin: 3) }
            else if kw == 5 && cin == 3 { group(choice, conv, x: x, y: y, epilogue: epilogue, pixel: p, ox: ox, iy0: iy0, ky: ky, kw: 5, cin: 3) }
            else { group(choice, conv, x: x, y: y, epilogue: epilogue, pixel: p, ox: ox, iy0: iy0, ky: ky, kw: kw, cin: cin) }
        }, single: { p, ox, iy0, ky in
            let ix0 = ox * window.sw - window.padLeft
            let kxLo = max(0, (-ix0 + window.dw - 1) / window.dw), kxHi = max(kxLo, min(window.kw, (inW - ix0 + window.dw - 1) / window.dw))
            for panel in 0..<conv.weights.panels {
                single(conv, x: x, y: y, epilogue: epilogue, pixel: p, ox: ox, iy0: iy0, ky: ky, kx: kxLo..<kxHi, panel: panel)
            }
        })
    }

    /// One group of pixels in the chosen tile.
    @inline(__always)
    private static func group(_ choice: Choice, _ conv: Conv2D, x: UnsafePointer<Float>, y: UnsafeMutablePointer<Float>, epilogue: VectorEpilogue,
                              pixel p: Int, ox: Int, iy0: Int, ky: Range<Int>, kw: Int, cin: Int) {
        switch choice {
        case .eight: DirectTiles.direct8x8(conv, x: x, y: y, epilogue: epilogue, pixel: p, ox: ox, iy0: iy0, ky: ky, kw: kw, cin: cin)
        #if HANDPOSE_AVX512
        case .upTo16: DirectTiles.direct8x16(conv, x: x, y: y, epilogue: epilogue, pixel: p, ox: ox, iy0: iy0, ky: ky, kw: kw, cin: cin)
        #else
        case .upTo16: DirectTiles.direct6x16(conv, x: x, y: y, epilogue: epilogue, pixel: p, ox: ox, iy0: iy0, ky: ky, kw: kw, cin: cin)
        #endif
        case .upTo24: DirectTiles.direct4x24(conv, x: x, y: y, epilogue: epilogue, pixel: p, ox: ox, iy0: iy0, ky: ky, kw: kw, cin: cin)
        #if HANDPOSE_AVX512
        case .upTo32: DirectTiles.direct4x32(conv, x: x, y: y, epilogue: epilogue, pixel: p, ox: ox, iy0: iy0, ky: ky, kw: kw, cin: cin)
        case .upTo32Wide: DirectTiles.direct8x32(conv, x: x, y: y, epilogue: epilogue, pixel: p, ox: ox, iy0: iy0, ky: ky, kw: kw, cin: cin)
        #else
        case .upTo32, .upTo32Wide: DirectTiles.direct2x32(conv, x: x, y: y, epilogue: epilogue, pixel: p, ox: ox, iy0: iy0, ky: ky, kw: kw, cin: cin)
        #endif
        }
    }

    /// One pixel, taps clipped to `kx` horizontally.
    @inline(__always)
    static func single(_ conv: Conv2D, x: UnsafePointer<Float>, y: UnsafeMutablePointer<Float>, epilogue: VectorEpilogue, pixel p: Int, ox: Int, iy0: Int, ky kys: Range<Int>, kx kxs: Range<Int>, panel: Int) {
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
        Tile.store(lo, hi, row: p, col: col, width: min(16, conv.weights.n - col), c: y, ldc: conv.output.c, epilogue: epilogue)
    }
}
#endif
