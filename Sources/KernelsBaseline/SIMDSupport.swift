import Kernels
import CPrefetch

/// 8-wide float vectors: one AVX2 register.
typealias Float8 = SIMD8<Float>

/// `acc + a * b`, fused where the build targets FMA (`HANDPOSE_FMA`, defined by Package.swift for the
/// AVX2 and AVX-512 variants and on arm64). Without FMA in the target, `addingProduct` must be exact and becomes a
/// library call per lane, about 100x slower, so the fallback path multiplies and adds separately.
@inline(__always)
func fma8(_ acc: Float8, _ a: Float8, _ b: Float8) -> Float8 {
    #if HANDPOSE_FMA
    return acc.addingProduct(a, b)
    #else
    return acc + a * b
    #endif
}

/// One lane of `fma8`, the same sum: a channel gets the same value whether a vector or a scalar loop forms it.
@inline(__always)
func fma1(_ acc: Float, _ a: Float, _ b: Float) -> Float {
    #if HANDPOSE_FMA
    return acc.addingProduct(a, b)
    #else
    return acc + a * b
    #endif
}

#if HANDPOSE_AVX512
@inline(__always)
func fma16(_ acc: SIMD16<Float>, _ a: SIMD16<Float>, _ b: SIMD16<Float>) -> SIMD16<Float> {
    acc.addingProduct(a, b)
}

@inline(__always)
func load16(_ p: UnsafePointer<Float>) -> SIMD16<Float> {
    UnsafeRawPointer(p).loadUnaligned(as: SIMD16<Float>.self)
}

/// The two 8-float halves. `SIMD16.lowHalf` and `highHalf` compile to out-of-line specialisations
/// shared by name with any other module that uses them, so the linker could hand this variant's
/// AVX-512 copy to code running on a CPU without it.
@inline(__always)
func halves(_ v: SIMD16<Float>) -> (Float8, Float8) { unsafeBitCast(v, to: (Float8, Float8).self) }

/// 16-float store: one vector move at 64-byte aligned addresses, else two 8-float stores.
@inline(__always)
func store16(_ v: SIMD16<Float>, _ p: UnsafeMutablePointer<Float>) {
    if Int(bitPattern: p) & 63 == 0 {
        p.withMemoryRebound(to: SIMD16<Float>.self, capacity: 1) { $0.pointee = v }
    } else {
        let (lo, hi) = halves(v)
        store8(lo, p)
        store8(hi, p + 8)
    }
}

/// `v` limited to `lo...hi` lane by lane, as `clamp8` (NaN stays NaN, -0 stays -0): vmaxps and vminps
/// (CPrefetch's vector.h says why not Swift).
@_transparent
func clamp16(_ v: SIMD16<Float>, _ lo: Float, _ hi: Float) -> SIMD16<Float> {
    handpose_clamp16(v, lo, hi)
}

/// Negative lanes of `v` times the slopes `alpha` (PReLU): a compare and a masked multiply.
@_transparent
func prelu16(_ v: SIMD16<Float>, _ alpha: SIMD16<Float>) -> SIMD16<Float> {
    handpose_prelu16(v, alpha)
}
#endif

@inline(__always)
func load8(_ p: UnsafePointer<Float>) -> Float8 {
    UnsafeRawPointer(p).loadUnaligned(as: Float8.self)
}

/// 8-float store at any address, one vector move (`handpose_store8`: Swift's `storeBytes` and
/// `copyMemory` for SIMD8 stay out-of-line calls).
@_transparent
func store8(_ v: Float8, _ p: UnsafeMutablePointer<Float>) {
    handpose_store8(p, v)
}

/// A width of float vector as the depthwise kernels use it, so one body serves 8-wide (AVX2, baseline)
/// and 16-wide (AVX-512) registers. Implemented by this module's own types, not by `SIMD8`: a
/// conformance of a standard-library type would emit weak witness functions (see KernelVariantBuildTests).
protocol Lanes {
    associatedtype V
    static var width: Int { get }
    static func load(_ p: UnsafePointer<Float>) -> V
    static var zero: V { get }
    /// `acc + a * b`, fused where the build targets FMA.
    static func fma(_ acc: V, _ a: V, _ b: V) -> V
    /// `v` limited to `lo...hi`, stored at `p`.
    static func store(_ v: V, clampedTo lo: Float, _ hi: Float, at p: UnsafeMutablePointer<Float>)
}

enum Lanes8: Lanes {
    @_transparent static var width: Int { 8 }
    @_transparent static func load(_ p: UnsafePointer<Float>) -> Float8 { load8(p) }
    @_transparent static var zero: Float8 { Float8(repeating: 0) }
    @_transparent static func fma(_ acc: Float8, _ a: Float8, _ b: Float8) -> Float8 { fma8(acc, a, b) }
    @_transparent static func store(_ v: Float8, clampedTo lo: Float, _ hi: Float, at p: UnsafeMutablePointer<Float>) {
        store8(clamp8(v, Float8(repeating: lo), Float8(repeating: hi)), p)
    }
}

#if HANDPOSE_AVX512
enum Lanes16: Lanes {
    @_transparent static var width: Int { 16 }
    @_transparent static func load(_ p: UnsafePointer<Float>) -> SIMD16<Float> { load16(p) }
    @_transparent static var zero: SIMD16<Float> { SIMD16(repeating: 0) }
    @_transparent static func fma(_ acc: SIMD16<Float>, _ a: SIMD16<Float>, _ b: SIMD16<Float>) -> SIMD16<Float> { fma16(acc, a, b) }
    @_transparent static func store(_ v: SIMD16<Float>, clampedTo lo: Float, _ hi: Float, at p: UnsafeMutablePointer<Float>) {
        store16(clamp16(v, lo, hi), p)
    }
}
#endif

@inline(__always)
func max8(_ a: Float8, _ b: Float8) -> Float8 { a.replacing(with: b, where: b .> a) }

/// `v` limited to `lo...hi` lane by lane (NaN stays NaN, as the branching form left it).
@inline(__always)
func clamp8(_ v: Float8, _ lo: Float8, _ hi: Float8) -> Float8 {
    v.replacing(with: lo, where: v .< lo).replacing(with: hi, where: v .> hi)
}

extension Activation {
    @inline(__always)
    func apply(_ v: Float8) -> Float8 {
        let b = bounds
        return clamp8(v, Float8(repeating: b.lo), Float8(repeating: b.hi))
    }

    /// One lane of `apply(_: Float8)`, the same clamp: -0 stays -0 (`max(-0, 0)` would give +0) and NaN stays NaN,
    /// so a value is the same whether a vector or a scalar tail forms it.
    @inline(__always)
    func apply(_ v: Float) -> Float {
        let b = bounds
        return v < b.lo ? b.lo : (v > b.hi ? b.hi : v)
    }
}
