import Kernels

/// `FullyConnected` run: one dot product per output.
enum FullyConnectedKernel {
    /// Rows of a `[M, K]` input, each to a row of `[M, N]` output.
    static func run(_ fc: FullyConnected, _ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, batch: Int) {
        let k = fc.k, n = fc.n, activation = fc.activation
        let vecK = k & ~7
        for m in 0..<batch {
            let xr = x + m * k
            for j in 0..<n {
                let wr = UnsafePointer(fc.weights.pointer) + j * k
                var acc = Float8()
                var i = 0
                while i < vecK { acc = fma8(acc, load8(xr + i), load8(wr + i)); i += 8 }
                var s = acc.sum()
                while i < k { s += xr[i] * wr[i]; i += 1 }
                y[m * n + j] = activation.apply(s + fc.bias.pointer[j])
            }
        }
    }
}
