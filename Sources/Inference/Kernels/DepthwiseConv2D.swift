/// Depthwise convolution (depth multiplier 1), NHWC, weights `[1, kh, kw, C]`, bias and
/// activation fused. Eight channels at a time; taps outside the input are skipped, not zero-read.
public final class DepthwiseConv2D {
    public let input: HWC
    public let output: HWC
    public let window: Window
    let weights: FloatBuffer
    let bias: FloatBuffer
    public let activation: Activation

    public init(input: HWC, window: Window, weights: [Float], bias: [Float]?, activation: Activation) {
        self.input = input
        self.window = window
        self.activation = activation
        output = HWC(window.outH, window.outW, input.c)
        self.weights = FloatBuffer(weights)
        self.bias = FloatBuffer(bias ?? [Float](repeating: 0, count: input.c))
    }

    /// Output rows `rows`.
    public func run(input x: UnsafePointer<Float>, output y: UnsafeMutablePointer<Float>, rows: Range<Int>) {
        let c = input.c, vecC = c & ~7
        let w = UnsafePointer(weights.pointer), b = UnsafePointer(bias.pointer)
        let kw = window.kw
        for oy in rows {
            let iy0 = oy * window.sh - window.padTop
            let kyLo = max(0, (-iy0 + window.dh - 1) / window.dh), kyHi = max(kyLo, min(window.kh, (input.h - iy0 + window.dh - 1) / window.dh))
            for ox in 0..<output.w {
                let ix0 = ox * window.sw - window.padLeft
                let kxLo = max(0, (-ix0 + window.dw - 1) / window.dw), kxHi = max(kxLo, min(kw, (input.w - ix0 + window.dw - 1) / window.dw))
                let out = y + (oy * output.w + ox) * c
                var ch = 0
                while ch < vecC {
                    var acc = load8(b + ch)
                    for ky in kyLo..<kyHi {
                        let rowIn = x + ((iy0 + ky * window.dh) * input.w) * c + ch
                        let rowW = w + ky * kw * c + ch
                        for kx in kxLo..<kxHi {
                            acc = fma8(acc, load8(rowIn + (ix0 + kx * window.dw) * c), load8(rowW + kx * c))
                        }
                    }
                    store8(activation.apply(acc), out + ch)
                    ch += 8
                }
                while ch < c {
                    var acc = b[ch]
                    for ky in kyLo..<kyHi {
                        for kx in kxLo..<kxHi {
                            acc += x[((iy0 + ky * window.dh) * input.w + ix0 + kx * window.dw) * c + ch] * w[(ky * kw + kx) * c + ch]
                        }
                    }
                    out[ch] = activation.apply(acc)
                    ch += 1
                }
            }
        }
    }
}
