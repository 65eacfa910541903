import Kernels

/// Element-by-element operators over flat float arrays.
enum Elementwise {
    /// `y = activation(a + b)` over `range`.
    static func add(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>,
                    range: Range<Int>, activation: Activation) {
        var i = range.lowerBound
        while i + 8 <= range.upperBound {
            store8(activation.apply(load8(a + i) + load8(b + i)), y + i)
            i += 8
        }
        while i < range.upperBound { y[i] = activation.apply(a[i] + b[i]); i += 1 }
    }

    /// PReLU with one slope per channel (the last dimension, `channels` long): `x < 0 ? x * alpha : x`.
    static func prelu(_ x: UnsafePointer<Float>, alpha: UnsafePointer<Float>, channels: Int,
                      _ y: UnsafeMutablePointer<Float>, pixels: Range<Int>) {
        let vecC = channels & ~7
        if vecC == channels && channels > 0 {
            // Whole vectors only: one flat run, the slopes' block cycling, with no loop a pixel (the recrop model's
            // eight channels were a pixel's one vector between a pixel loop's steps: 0.038 ms for 128x128x8).
            var i = pixels.lowerBound &* channels, ch = 0
            let end = pixels.upperBound &* channels
            while i < end {
                let v = load8(x + i)
                store8(v.replacing(with: v * load8(alpha + ch), where: v .< 0), y + i)
                i &+= 8
                ch &+= 8
                if ch == channels { ch = 0 }
            }
            return
        }
        for p in pixels {
            let row = x + p * channels, out = y + p * channels
            var ch = 0
            while ch < vecC {
                let v = load8(row + ch)
                store8(v.replacing(with: v * load8(alpha + ch), where: v .< 0), out + ch)
                ch += 8
            }
            while ch < channels { let v = row[ch]; out[ch] = v < 0 ? v * alpha[ch] : v; ch += 1 }
        }
    }
}
