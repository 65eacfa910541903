/// `y = activation(W x + b)` with `W` as TFLite stores it, `[N, K]` row-major: one dot product per output.
public final class FullyConnected {
    public let k: Int
    public let n: Int
    let weights: FloatBuffer
    let bias: FloatBuffer
    public let activation: Activation

    public init(k: Int, n: Int, weights: [Float], bias: [Float]?, activation: Activation) {
        self.k = k
        self.n = n
        self.weights = FloatBuffer(weights)
        self.bias = FloatBuffer(bias ?? [Float](repeating: 0, count: n))
        self.activation = activation
    }

    /// Rows of a `[M, K]` input, each to a row of `[M, N]` output.
    public func run(_ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, batch: Int) {
        let vecK = k & ~7
        for m in 0..<batch {
            let xr = x + m * k
            for j in 0..<n {
                let wr = UnsafePointer(weights.pointer) + j * k
                var acc = Float8()
                var i = 0
                while i < vecK { acc = fma8(acc, load8(xr + i), load8(wr + i)); i += 8 }
                var s = acc.sum()
                while i < k { s += xr[i] * wr[i]; i += 1 }
                y[m * n + j] = activation.apply(s + bias.pointer[j])
            }
        }
    }
}
