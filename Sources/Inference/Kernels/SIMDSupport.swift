/// 8-wide float vectors: one AVX2 register.
public typealias Float8 = SIMD8<Float>

/// `acc + a * b`, fused where the build targets FMA (`-DHANDPOSE_FMA`, set by the Makefile with
/// `-target-cpu haswell`). Without FMA in the target, `addingProduct` must be exact and becomes a
/// library call per lane, about 100x slower, so the fallback path multiplies and adds separately.
@inline(__always)
func fma8(_ acc: Float8, _ a: Float8, _ b: Float8) -> Float8 {
    #if HANDPOSE_FMA
    return acc.addingProduct(a, b)
    #else
    return acc + a * b
    #endif
}

@inline(__always)
func load8(_ p: UnsafePointer<Float>) -> Float8 {
    UnsafeRawPointer(p).loadUnaligned(as: Float8.self)
}

/// Unaligned 8-float store. A fixed-size copy, which LLVM lowers to one vector move
/// (`storeBytes` for SIMD8 was left as an out-of-line call).
@inline(__always)
func store8(_ v: Float8, _ p: UnsafeMutablePointer<Float>) {
    withUnsafeBytes(of: v) { UnsafeMutableRawPointer(p).copyMemory(from: $0.baseAddress!, byteCount: 32) }
}

@inline(__always)
func max8(_ a: Float8, _ b: Float8) -> Float8 { a.replacing(with: b, where: b .> a) }

extension Activation {
    @inline(__always)
    func apply(_ v: Float8) -> Float8 {
        switch self {
        case .none: return v
        case .relu: return v.replacing(with: 0, where: v .< 0)
        case .relu6: return v.replacing(with: 0, where: v .< 0).replacing(with: 6, where: v .> 6)
        case .reluN1To1: return v.replacing(with: -1, where: v .< -1).replacing(with: 1, where: v .> 1)
        case .tanh:
            var out = Float8()
            for i in 0..<8 { out[i] = tanhf(v[i]) }
            return out
        }
    }

    @inline(__always)
    func apply(_ v: Float) -> Float {
        switch self {
        case .none: return v
        case .relu: return max(v, 0)
        case .relu6: return min(max(v, 0), 6)
        case .reluN1To1: return min(max(v, -1), 1)
        case .tanh: return tanhf(v)
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Memory the engine owns: 64-byte aligned, freed with its owner.
final class FloatBuffer {
    let pointer: UnsafeMutablePointer<Float>
    let count: Int
    init(count: Int, zeroed: Bool = true) {
        self.count = count
        let raw = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1) * 4, alignment: 64)
        pointer = raw.bindMemory(to: Float.self, capacity: max(count, 1))
        if zeroed { pointer.initialize(repeating: 0, count: max(count, 1)) }
    }
    convenience init(_ values: [Float]) {
        self.init(count: values.count, zeroed: false)
        values.withUnsafeBufferPointer { pointer.initialize(from: $0.baseAddress!, count: values.count) }
    }
    deinit { UnsafeMutableRawPointer(pointer).deallocate() }
}
