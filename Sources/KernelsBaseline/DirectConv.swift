import Kernels

#if HANDPOSE_AVX512 || HANDPOSE_AVX2
/// Convolution of an input with few channels (the models' first layers, on RGB) read in place: for each
/// group of output pixels of one row, every tap (ky, kx, ci) broadcasts one input value per pixel against
/// the tap's weight vectors (the tiles of MicroKernels.generated.swift). The weights are `Conv2D`'s packed
/// panels, whose k order (ky, kx, ci) is the patch order, so the sums are formed in the GEMM's order and
/// both paths give the same floats. Taps outside the input are skipped (zero padding).
/// The tile by output width: eight or fewer channels, eight pixels of one 8-wide vector (hand_recrop's
/// first layer, whose im2col ran at 14 GFLOP/s); 17 to 32 channels, with AVX-512 four pixels of two 16-wide
/// vectors, with AVX2 four pixels of up to 24 outputs (twelve accumulators; the landmark model's first
/// layer, whose im2col ran at 15 GFLOP/s) or two of up to 32 (four pixels would need sixteen, more than
/// AVX2's registers).
enum DirectConv {
    /// Whether a tile covers `conv`: few input channels, and an output width a tile has.
    static func covers(_ conv: Conv2D) -> Bool {
        conv.input.c <= 4 && (conv.weights.n <= 8 || conv.weights.panels == 2)
    }

    private enum Choice { case eight, wide, wide24, wide32 }

    static func run(_ conv: Conv2D, x: UnsafePointer<Float>, y: UnsafeMutablePointer<Float>, epilogue plain: Epilogue, pixels: Range<Int>) {
        let epilogue = VectorEpilogue(plain)
        let w = conv.window, inW = conv.input.w, inH = conv.input.h, outW = conv.output.w
        #if HANDPOSE_AVX512
        let choice: Choice = conv.weights.n <= 8 ? .eight : .wide
        #else
        let choice: Choice = conv.weights.n <= 8 ? .eight : (conv.weights.n <= 24 ? .wide24 : .wide32)
        #endif
        let groupSize = choice == .eight ? 8 : (choice == .wide32 ? 2 : 4)
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
            // in the same order, whichever path forms it), rather than leave up to seven of them to
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
                if kw == 3 && cin == 3 { group(choice, conv, x: x, y: y, epilogue: epilogue, pixel: p, ox: ox, iy0: iy0, ky: kyLo..<kyHi, kw: 3, cin: 3) }
                else if kw == 5 && cin == 3 { group(choice, conv, x: x, y: y, epilogue: epilogue, pixel: p, ox: ox, iy0: iy0, ky: kyLo..<kyHi, kw: 5, cin: 3) }
                else { group(choice, conv, x: x, y: y, epilogue: epilogue, pixel: p, ox: ox, iy0: iy0, ky: kyLo..<kyHi, kw: kw, cin: cin) }
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

    /// One group of pixels in the chosen tile.
    @inline(__always)
    private static func group(_ choice: Choice, _ conv: Conv2D, x: UnsafePointer<Float>, y: UnsafeMutablePointer<Float>, epilogue: VectorEpilogue,
                              pixel p: Int, ox: Int, iy0: Int, ky: Range<Int>, kw: Int, cin: Int) {
        switch choice {
        case .eight: DirectTiles.direct8x8(conv, x: x, y: y, epilogue: epilogue, pixel: p, ox: ox, iy0: iy0, ky: ky, kw: kw, cin: cin)
        #if HANDPOSE_AVX512
        case .wide, .wide24, .wide32:
            DirectTiles.direct4x32(conv, x: x, y: y, epilogue: epilogue, pixel: p, ox: ox, iy0: iy0, ky: ky, kw: kw, cin: cin)
        #else
        case .wide, .wide24: DirectTiles.direct4x24(conv, x: x, y: y, epilogue: epilogue, pixel: p, ox: ox, iy0: iy0, ky: ky, kw: kw, cin: cin)
        case .wide32: DirectTiles.direct2x32(conv, x: x, y: y, epilogue: epilogue, pixel: p, ox: ox, iy0: iy0, ky: ky, kw: kw, cin: cin)
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
