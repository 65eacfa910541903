import Kernels

/// Pooling over NHWC activations.
enum Pooling {
    /// Max over each window; padded positions are ignored (as TFLite does), fused activation after.
    static func max(input x: UnsafePointer<Float>, shape: HWC, window: Window, activation: Activation,
                    output y: UnsafeMutablePointer<Float>, rows: Range<Int>) {
        let c = shape.c, vecC = c & ~7
        let outW = window.outW
        if window.kh == 2 && window.kw == 2 && window.sh == 2 && window.sw == 2 && window.padTop == 0 && window.padLeft == 0
            && vecC == c && c > 0 && 2 &* outW <= shape.w && 2 &* (rows.upperBound) <= shape.h {
            halves(input: x, shape: shape, outW: outW, activation: activation, output: y, rows: rows)
            return
        }
        for oy in rows {
            let iy0 = oy * window.sh - window.padTop
            let kyLo = Swift.max(0, -iy0), kyHi = Swift.max(kyLo, Swift.min(window.kh, shape.h - iy0))
            for ox in 0..<outW {
                let ix0 = ox * window.sw - window.padLeft
                let kxLo = Swift.max(0, -ix0), kxHi = Swift.max(kxLo, Swift.min(window.kw, shape.w - ix0))
                let out = y + (oy * outW + ox) * c
                var ch = 0
                while ch < vecC {
                    var m = Float8(repeating: -.greatestFiniteMagnitude)
                    for ky in kyLo..<kyHi {
                        for kx in kxLo..<kxHi {
                            m = max8(m, load8(x + ((iy0 + ky) * shape.w + ix0 + kx) * c + ch))
                        }
                    }
                    store8(activation.apply(m), out + ch)
                    ch += 8
                }
                while ch < c {
                    var m = -Float.greatestFiniteMagnitude
                    for ky in kyLo..<kyHi {
                        // As `max8` and TFLite's std::max: a later value wins only when greater, so of -0 and +0
                        // (equal) the first stays, in a vector lane and here alike.
                        for kx in kxLo..<kxHi { let v = x[((iy0 + ky) * shape.w + ix0 + kx) * c + ch]; if v > m { m = v } }
                    }
                    out[ch] = activation.apply(m)
                    ch += 1
                }
            }
        }
    }

    /// 2x2 windows at stride 2, none past the input, channels in whole vectors (the recrop model's and the face
    /// detector's shortcuts): each window's four values in the order the general loop takes them, from the
    /// same starting value, so the same lanes win. The general loop's bounds a pixel made its 128x128x8 pool
    /// take 0.038 ms on a Zen 3 core.
    @inline(never)
    static func halves(input x: UnsafePointer<Float>, shape: HWC, outW: Int, activation: Activation,
                       output y: UnsafeMutablePointer<Float>, rows: Range<Int>) {
        let c = shape.c, rowStep = shape.w &* c
        let start = Float8(repeating: -.greatestFiniteMagnitude)
        let bounds = activation.bounds, lo = Float8(repeating: bounds.lo), hi = Float8(repeating: bounds.hi)
        for oy in rows {
            let top = x + 2 &* oy &* rowStep
            let out = y + oy &* outW &* c
            for ox in 0..<outW {
                let p = top + 2 &* ox &* c, o = out + ox &* c
                var ch = 0
                while ch < c {
                    var m = max8(start, load8(p + ch))
                    m = max8(m, load8(p + (c &+ ch)))
                    m = max8(m, load8(p + (rowStep &+ ch)))
                    m = max8(m, load8(p + (rowStep &+ c &+ ch)))
                    store8(clamp8(m, lo, hi), o + ch)
                    ch &+= 8
                }
            }
        }
    }
}
