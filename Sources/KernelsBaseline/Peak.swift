import Kernels

/// The core's multiply-add peak on this variant's widest vectors: twelve independent accumulators (more than
/// an FMA's latency times its units, so the units never wait), no memory. `bench kernels` divides each
/// micro-kernel's rate by it.
enum Peak {
    #if HANDPOSE_AVX512
    typealias Vector = SIMD16<Float>
    @_transparent static func step(_ acc: Vector, _ a: Vector, _ b: Vector) -> Vector { fma16(acc, a, b) }
    #else
    typealias Vector = Float8
    @_transparent static func step(_ acc: Vector, _ a: Vector, _ b: Vector) -> Vector { fma8(acc, a, b) }
    #endif

    static let multiplyAddsPerStep = 12 * Vector.scalarCount

    @inline(never)
    static func run(iterations: Int) -> Float {
        // Products near zero: the sums stay normal and finite however many steps run.
        let a = Vector(repeating: 0.999), b = Vector(repeating: 1e-6)
        var c0 = Vector(repeating: 0), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0
        var c6 = c0, c7 = c0, c8 = c0, c9 = c0, c10 = c0, c11 = c0
        for _ in 0..<iterations {
            c0 = step(c0, a, b); c1 = step(c1, a, b); c2 = step(c2, a, b); c3 = step(c3, a, b)
            c4 = step(c4, a, b); c5 = step(c5, a, b); c6 = step(c6, a, b); c7 = step(c7, a, b)
            c8 = step(c8, a, b); c9 = step(c9, a, b); c10 = step(c10, a, b); c11 = step(c11, a, b)
        }
        let s = ((c0 + c1) + (c2 + c3)) + ((c4 + c5) + (c6 + c7)) + ((c8 + c9) + (c10 + c11))
        return s[0]
    }
}
