/// Depthwise convolution (depth multiplier 1), NHWC, weights `[1, kh, kw, C]`, bias and
/// activation fused. Eight channels at a time; four output pixels share each weight load in the
/// interior (four independent accumulators hide the FMA latency); border pixels skip taps that
/// fall outside the input rather than reading padding.
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
        let (kh, kw, sh, sw, dh, dw) = (window.kh, window.kw, window.sh, window.sw, window.dh, window.dw)
        let (inH, inW, outW) = (input.h, input.w, output.w)
        // Output columns whose whole window lies inside the input.
        let oxFirst = min(outW, (window.padLeft + sw - 1) / sw)
        let oxEnd = max(oxFirst, min(outW, (inW - (kw - 1) &* dw + window.padLeft - 1) / sw + 1))
        let pixelStep: Int = sw &* c, tapStep: Int = dw &* c
        let twoSteps: Int = 2 &* pixelStep, threeSteps: Int = 3 &* pixelStep
        let twoC: Int = 2 &* c, threeC: Int = 3 &* c
        for oy in rows {
            let iy0 = oy &* sh &- window.padTop
            let kyLo = max(0, (-iy0 + dh - 1) / dh)
            let kyHi = max(kyLo, min(kh, (inH - iy0 + dh - 1) / dh))
            let rowOffset: Int = oy &* outW &* c
            let outRow = y + rowOffset
            // Left and right borders: one pixel at a time with clipped taps.
            for ox in 0..<outW where ox < oxFirst || ox >= oxEnd {
                let ix0 = ox &* sw &- window.padLeft
                let kxLo = max(0, (-ix0 + dw - 1) / dw), kxHi = max(kxLo, min(kw, (inW - ix0 + dw - 1) / dw))
                var ch = 0
                // Four channel blocks at once: independent accumulators instead of one FMA chain.
                while ch + 32 <= vecC {
                    var a0 = load8(b + ch), a1 = load8(b + ch + 8), a2 = load8(b + ch + 16), a3 = load8(b + ch + 24)
                    for ky in kyLo..<kyHi {
                        let inOffset: Int = ((iy0 &+ ky &* dh) &* inW &+ ix0) &* c &+ ch
                        let wOffset: Int = ky &* kw &* c &+ ch
                        for kx in kxLo..<kxHi {
                            let i: Int = inOffset &+ kx &* tapStep, j: Int = wOffset &+ kx &* c
                            let xp = x + i, wp = w + j
                            a0 = fma8(a0, load8(xp), load8(wp))
                            a1 = fma8(a1, load8(xp + 8), load8(wp + 8))
                            a2 = fma8(a2, load8(xp + 16), load8(wp + 16))
                            a3 = fma8(a3, load8(xp + 24), load8(wp + 24))
                        }
                    }
                    let o = outRow + (ox &* c &+ ch)
                    store8(activation.apply(a0), o)
                    store8(activation.apply(a1), o + 8)
                    store8(activation.apply(a2), o + 16)
                    store8(activation.apply(a3), o + 24)
                    ch += 32
                }
                while ch < vecC {
                    var acc = load8(b + ch)
                    for ky in kyLo..<kyHi {
                        let inOffset: Int = ((iy0 &+ ky &* dh) &* inW &+ ix0) &* c &+ ch
                        let wOffset: Int = ky &* kw &* c &+ ch
                        for kx in kxLo..<kxHi {
                            let i: Int = inOffset &+ kx &* tapStep, j: Int = wOffset &+ kx &* c
                            acc = fma8(acc, load8(x + i), load8(w + j))
                        }
                    }
                    let o: Int = ox &* c &+ ch
                    store8(activation.apply(acc), outRow + o)
                    ch += 8
                }
            }
            // Interior: four pixels share each weight load (pixel groups outside, channel blocks
            // inside, so the cache lines of one pixel serve all its channel blocks).
            var ox = oxFirst
            while ox < oxEnd {
                let group = min(4, oxEnd - ox)
                let ix0 = ox &* sw &- window.padLeft
                var ch = 0
                while ch < vecC {
                    let bv = load8(b + ch)
                    var a0 = bv, a1 = bv, a2 = bv, a3 = bv
                    for ky in kyLo..<kyHi {
                        let inOffset: Int = ((iy0 &+ ky &* dh) &* inW &+ ix0) &* c &+ ch
                        let wOffset: Int = ky &* kw &* c &+ ch
                        var p = x + inOffset
                        var q = w + wOffset
                        if group == 4 {
                            for _ in 0..<kw {
                                let wv = load8(q)
                                a0 = fma8(a0, load8(p), wv)
                                a1 = fma8(a1, load8(p + pixelStep), wv)
                                a2 = fma8(a2, load8(p + twoSteps), wv)
                                a3 = fma8(a3, load8(p + threeSteps), wv)
                                p += tapStep
                                q += c
                            }
                        } else {
                            for _ in 0..<kw {
                                a0 = fma8(a0, load8(p), load8(q))
                                p += tapStep
                                q += c
                            }
                        }
                    }
                    let offset: Int = ox &* c &+ ch
                    let o = outRow + offset
                    store8(activation.apply(a0), o)
                    if group == 4 {
                        store8(activation.apply(a1), o + c)
                        store8(activation.apply(a2), o + twoC)
                        store8(activation.apply(a3), o + threeC)
                    }
                    ch += 8
                }
                ox += group == 4 ? 4 : 1
            }
            var ch = vecC
            // Channels past the last multiple of eight.
            while ch < c {
                for ox in 0..<outW {
                    let ix0 = ox * sw - window.padLeft
                    let kxLo = max(0, (-ix0 + dw - 1) / dw), kxHi = max(kxLo, min(kw, (inW - ix0 + dw - 1) / dw))
                    var acc = b[ch]
                    for ky in kyLo..<kyHi {
                        for kx in kxLo..<kxHi {
                            acc += x[((iy0 + ky * dh) * inW + ix0 + kx * dw) * c + ch] * w[(ky * kw + kx) * c + ch]
                        }
                    }
                    outRow[ox * c + ch] = activation.apply(acc)
                }
                ch += 1
            }
        }
    }
}
