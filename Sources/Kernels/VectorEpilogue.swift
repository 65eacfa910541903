/// The epilogue made ready for straight-line vector code, once per product: activations as clamps, so
/// that storing a tile is a few vector operations and no call (the branching form was too large for the
/// optimiser to inline: some thirty calls a tile, 10% of a model's time).
/// Declared here, in the module every kernel variant imports, so that its value-copying helpers exist
/// once: declared in a variant module, they were weak symbols under names every variant shares, and the
/// linker keeps one variant's copy for all (KernelVariantBuildTests). Its vector methods are each variant's.
public struct VectorEpilogue {
    public let epilogue: Epilogue
    public let lo: SIMD8<Float>, hi: SIMD8<Float>, residualLo: SIMD8<Float>, residualHi: SIMD8<Float>
    public let bounds: (lo: Float, hi: Float), residualBounds: (lo: Float, hi: Float)

    @inlinable @inline(__always)
    public init(_ e: Epilogue) {
        epilogue = e
        bounds = e.activation.bounds
        residualBounds = e.residualActivation.bounds
        lo = SIMD8(repeating: bounds.lo); hi = SIMD8(repeating: bounds.hi)
        residualLo = SIMD8(repeating: residualBounds.lo); residualHi = SIMD8(repeating: residualBounds.hi)
    }
}

extension Activation {
    /// The activation as a clamp: every fused activation the plan accepts is one (tanh is refused).
    @inlinable
    public var bounds: (lo: Float, hi: Float) {
        switch self {
        case .none, .tanh: return (-.infinity, .infinity)
        case .relu: return (0, .infinity)
        case .relu6: return (0, 6)
        case .reluN1To1: return (-1, 1)
        }
    }
}
