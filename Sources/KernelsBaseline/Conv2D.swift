import Kernels

/// `Conv2D` run: 1x1 stride-1 convolutions multiply the activation directly; with AVX-512 or AVX2,
/// inputs of at most four channels into at most 32 outputs (the models' first layers, on RGB), and of at most
/// eight into at most eight, are read in place (`DirectConv`); so are those into one channel from a multiple of 8 (`DotConv`, every variant);
/// others gather patches (im2col) a tile of output pixels at a time into scratch.
enum ConvKernel {
    @inline(__always)
    static func run(_ conv: Conv2D, input x: UnsafePointer<Float>, output y: UnsafeMutablePointer<Float>, pixels: Range<Int>,
                    scratch: UnsafeMutablePointer<Float>, epilogue: Epilogue, wide: Bool) {
        let weights = conv.weights, output = conv.output
        if conv.isPointwise {
            Gemm.run(a: x, lda: conv.input.c, rows: pixels, weights: weights, c: y, ldc: output.c, epilogue: epilogue, wide: wide)
            return
        }
        if let taps = conv.taps {
            DotConv.run(conv, taps: taps, x: x, y: y, epilogue: epilogue, pixels: pixels)
            return
        }
        #if HANDPOSE_AVX512 || HANDPOSE_AVX2
        if DirectConv.covers(conv) {
            DirectConv.run(conv, x: x, y: y, epilogue: epilogue, pixels: pixels, wide: wide)
            return
        }
        #endif
        let k = weights.k
        var start = pixels.lowerBound
        while start < pixels.upperBound {
            let end = min(start + Conv2D.tile, pixels.upperBound)
            for p in start..<end { gather(conv, pixel: p, x: x, into: scratch + (p - start) * k) }
            var e = epilogue
            if let r = epilogue.residual { e.residual = r + start * output.c }
            Gemm.run(a: scratch, lda: k, rows: 0..<(end - start), weights: weights, c: y + start * output.c,
                     ldc: output.c, epilogue: e, wide: wide)
            start = end
        }
    }

    /// Copies the receptive field of output pixel `p` into `row` (zeros where it falls outside the input).
    /// Inside the input, one kernel row is a contiguous run of `kw * cin` floats.
    @inline(__always)
    static func gather(_ conv: Conv2D, pixel p: Int, x: UnsafePointer<Float>, into row: UnsafeMutablePointer<Float>) {
        let input = conv.input, window = conv.window
        let oy = p / conv.output.w, ox = p % conv.output.w
        let cin = input.c, kw = window.kw, dw = window.dw
        let ix0 = ox * window.sw - window.padLeft
        let rowInside = dw == 1 && ix0 >= 0 && ix0 + kw <= input.w
        let run = kw * cin
        var o = row
        for ky in 0..<window.kh {
            let iy = oy * window.sh - window.padTop + ky * window.dh
            if iy < 0 || iy >= input.h {
                for i in 0..<run { o[i] = 0 }
            } else if rowInside {
                let src = x + (iy * input.w + ix0) * cin
                for i in 0..<run { o[i] = src[i] }
            } else {
                for kx in 0..<kw {
                    let ix = ix0 + kx * dw
                    let dst = o + kx * cin
                    if ix >= 0 && ix < input.w {
                        let src = x + (iy * input.w + ix) * cin
                        for i in 0..<cin { dst[i] = src[i] }
                    } else {
                        for i in 0..<cin { dst[i] = 0 }
                    }
                }
            }
            o += run
        }
    }
}
