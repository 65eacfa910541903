/// Convolution, NHWC, weights `[Cout, kh, kw, Cin]` packed for `Gemm` as `[kh*kw*Cin x Cout]`.
/// 1x1 stride-1 convolutions multiply the activation directly; inputs of at most four channels
/// (the models' first layer, on RGB) are read in place (`DirectConv`); others gather patches
/// (im2col) a tile of output pixels at a time into a small per-thread scratch.
public final class Conv2D {
    public let input: HWC
    public let output: HWC
    public let window: Window
    public let weights: PackedWeights
    public let isPointwise: Bool
    /// Few input channels: a patch row is too short for im2col and GEMM to pay.
    public let isDirect: Bool
    /// Output pixels gathered per im2col tile.
    static let tile = 48

    public init(input: HWC, outputChannels: Int, window: Window, weights: [Float], bias: [Float]?) {
        self.input = input
        self.window = window
        output = HWC(window.outH, window.outW, outputChannels)
        let k = window.kh * window.kw * input.c
        self.weights = PackedWeights(k: k, n: outputChannels, bias: bias) { kk, n in weights[n * k + kk] }
        isPointwise = window.kh == 1 && window.kw == 1 && window.sh == 1 && window.sw == 1 && window.padTop == 0 && window.padLeft == 0
        #if HANDPOSE_AVX512
        isDirect = !isPointwise && input.c <= 4 && self.weights.panels == 2
        #else
        isDirect = false
        #endif
    }

    /// Floats of scratch one thread needs.
    public var scratchCount: Int { isPointwise || isDirect ? 0 : Self.tile * weights.k }

    /// Output rows (pixels) `pixels`, using `scratch` of `scratchCount` floats.
    public func run(input x: UnsafePointer<Float>, output y: UnsafeMutablePointer<Float>, pixels: Range<Int>,
                    scratch: UnsafeMutablePointer<Float>, epilogue: Epilogue) {
        if isPointwise {
            Gemm.run(a: x, lda: input.c, rows: pixels, weights: weights, c: y, ldc: output.c, epilogue: epilogue)
            return
        }
        #if HANDPOSE_AVX512
        if isDirect {
            DirectConv(conv: self, x: x, y: y, epilogue: epilogue).run(pixels: pixels)
            return
        }
        #endif
        let k = weights.k
        var start = pixels.lowerBound
        while start < pixels.upperBound {
            let end = min(start + Self.tile, pixels.upperBound)
            for p in start..<end { gather(pixel: p, x: x, into: scratch + (p - start) * k) }
            var e = epilogue
            if let r = epilogue.residual { e.residual = r + start * output.c }
            Gemm.run(a: scratch, lda: k, rows: 0..<(end - start), weights: weights, c: y + start * output.c,
                     ldc: output.c, epilogue: e)
            start = end
        }
    }

    /// Copies the receptive field of output pixel `p` into `row` (zeros where it falls outside the input).
    /// Inside the input, one kernel row is a contiguous run of `kw * cin` floats.
    @inline(__always)
    func gather(pixel p: Int, x: UnsafePointer<Float>, into row: UnsafeMutablePointer<Float>) {
        let oy = p / output.w, ox = p % output.w
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
