import Kernels

/// Pooling over NHWC activations.
enum Pooling {
    /// Max over each window; padded positions are ignored (as TFLite does), fused activation after.
    static func max(input x: UnsafePointer<Float>, shape: HWC, window: Window, activation: Activation,
                    output y: UnsafeMutablePointer<Float>, rows: Range<Int>) {
        let c = shape.c, vecC = c & ~7
        let outW = window.outW
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
}
