#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Memory the engine owns: 64-byte aligned, freed with its owner.
public final class FloatBuffer {
    /// Written once at most, at planning (`useSharedCopy`); the kernel modules read it without a
    /// run-time exclusivity check (Package.swift).
    public private(set) var pointer: UnsafeMutablePointer<Float>
    public let count: Int
    /// What keeps `pointer` valid once the buffer reads a shared copy (see `useSharedCopy`).
    private var sharedOwner: AnyObject?

    public init(count: Int, zeroed: Bool = true) {
        self.count = count
        let raw = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1) * 4, alignment: 64)
        pointer = raw.bindMemory(to: Float.self, capacity: max(count, 1))
        if zeroed { pointer.initialize(repeating: 0, count: max(count, 1)) }
    }
    public convenience init(_ values: [Float]) {
        self.init(count: values.count, zeroed: false)
        values.withUnsafeBufferPointer { pointer.initialize(from: $0.baseAddress!, count: values.count) }
    }

    /// Reads `copy` from now on and frees its own memory. `copy` holds the same `count` floats, is
    /// never written, is 64-byte aligned and stays valid while `owner` lives. Only for constants.
    public func useSharedCopy(_ copy: UnsafePointer<Float>, owner: AnyObject) {
        precondition(sharedOwner == nil, "a buffer moves to a shared copy once")
        UnsafeMutableRawPointer(pointer).deallocate()
        pointer = UnsafeMutablePointer(mutating: copy)
        sharedOwner = owner
    }

    deinit { if sharedOwner == nil { UnsafeMutableRawPointer(pointer).deallocate() } }
}

/// Weights of a matrix product `C[M x N] = A[M x K] * W[K x N]`, packed once at load in panels
/// of 16 columns (k-major inside a panel, zero beyond N), the layout the micro-kernels stream.
public final class PackedWeights {
    public let k: Int
    public let n: Int
    public let panels: Int
    public let data: FloatBuffer
    /// Bias padded to `panels * 16`.
    public let bias: FloatBuffer

    /// `weight(k, n)` gives W[k, n]; `bias[n]` is added to every row.
    public convenience init(k: Int, n: Int, bias: [Float]?, weight: (Int, Int) -> Float) {
        self.init(k: k, n: n, bias: bias, filling: { data in
            for p in 0..<(n + 15) / 16 {
                for kk in 0..<k {
                    for j in 0..<16 where p * 16 + j < n {
                        data[(p * k + kk) * 16 + j] = weight(kk, p * 16 + j)
                    }
                }
            }
        })
    }

    /// Packs a convolution's weights as TFLite stores them, `[Cout, kh, kw, Cin]`, i.e. `[N, K]` row-major
    /// (W[k, n] = weights[n * K + k]): the same panels as `init(k:n:bias:weight:)`, copied a column at a time
    /// without a call per value (planning is paid by every worker at start).
    public convenience init(k: Int, n: Int, bias: [Float]?, rowMajor weights: [Float]) {
        precondition(weights.count >= n * k, "weights hold N x K values")
        self.init(k: k, n: n, bias: bias, filling: { data in
            weights.withUnsafeBufferPointer { w in
                guard let base = w.baseAddress else { return }
                for column in 0..<n {
                    let source = base + column * k
                    var target = data + (column / 16) * k * 16 + column % 16
                    for kk in 0..<k {
                        target.pointee = source[kk]
                        target += 16
                    }
                }
            }
        })
    }

    private init(k: Int, n: Int, bias: [Float]?, filling: (UnsafeMutablePointer<Float>) -> Void) {
        self.k = k
        self.n = n
        panels = (n + 15) / 16
        data = FloatBuffer(count: panels * k * 16)
        self.bias = FloatBuffer(count: panels * 16)
        filling(data.pointer)
        if let bias { for j in 0..<n { self.bias.pointer[j] = bias[j] } }
    }
}

/// What happens to each output value after the product, in this order:
/// `+ bias`, `activation`, `+ residual`, `residualActivation`, PReLU with per-column `alpha`.
/// Lets a convolution absorb the ADD and PRELU that follow it, saving two passes over memory.
/// Plain values only (the caller owns the memory), so copying one needs no code of its own: a helper
/// that every kernel variant emitted would be one symbol, and the linker would keep one variant's copy.
public struct Epilogue {
    public var activation: Activation = .none
    public var residual: UnsafePointer<Float>? = nil
    public var residualActivation: Activation = .none
    /// PReLU slopes, one per output column, padded to a multiple of 16 columns.
    public var alpha: UnsafePointer<Float>? = nil

    public init(activation: Activation = .none) { self.activation = activation }
}

/// A convolution, NHWC, weights `[Cout, kh, kw, Cin]` packed as `[kh*kw*Cin x Cout]`; a kernel set runs it.
/// 1x1 stride-1 convolutions multiply the activation directly; the others gather patches (im2col)
/// a tile of output pixels at a time into a small per-thread scratch, or, where a kernel set reads
/// few input channels in place, need none.
public final class Conv2D {
    public let input: HWC
    public let output: HWC
    public let window: Window
    public let weights: PackedWeights
    public let isPointwise: Bool
    /// Output pixels gathered per im2col tile.
    public static let tile = 48

    public init(input: HWC, outputChannels: Int, window: Window, weights: [Float], bias: [Float]?) {
        self.input = input
        self.window = window
        output = HWC(window.outH, window.outW, outputChannels)
        let k = window.kh * window.kw * input.c
        self.weights = PackedWeights(k: k, n: outputChannels, bias: bias, rowMajor: weights)
        isPointwise = window.kh == 1 && window.kw == 1 && window.sh == 1 && window.sw == 1 && window.padTop == 0 && window.padLeft == 0
            && window.outH == input.h && window.outW == input.w
        // One output channel from a multiple of 8: its weights in k order, contiguous, for the dot tiles.
        taps = outputChannels == 1 && input.c % 8 == 0 && !isPointwise ? FloatBuffer(Array(weights.prefix(k))) : nil
    }

    /// With one output channel and a multiple of 8 input channels (not pointwise), the weights in k order
    /// (ky, kx, ci), contiguous: the dot tiles read them eight channels at a time.
    public let taps: FloatBuffer?

    /// Floats of scratch one thread needs (the most any kernel set uses).
    public var scratchCount: Int { isPointwise ? 0 : Self.tile * weights.k }
}

/// Depthwise convolution (depth multiplier 1), NHWC, weights `[1, kh, kw, C]`, bias and activation fused.
public final class DepthwiseConv2D {
    public let input: HWC
    public let output: HWC
    public let window: Window
    public let weights: FloatBuffer
    public let bias: FloatBuffer
    public let activation: Activation

    public init(input: HWC, window: Window, weights: [Float], bias: [Float]?, activation: Activation) {
        self.input = input
        self.window = window
        self.activation = activation
        output = HWC(window.outH, window.outW, input.c)
        self.weights = FloatBuffer(weights)
        self.bias = FloatBuffer(bias ?? [Float](repeating: 0, count: input.c))
    }
}

/// `y = activation(W x + b)` with `W` as TFLite stores it, `[N, K]` row-major.
public final class FullyConnected {
    public let k: Int
    public let n: Int
    public let weights: FloatBuffer
    public let bias: FloatBuffer
    public let activation: Activation

    public init(k: Int, n: Int, weights: [Float], bias: [Float]?, activation: Activation) {
        self.k = k
        self.n = n
        self.weights = FloatBuffer(weights)
        self.bias = FloatBuffer(bias ?? [Float](repeating: 0, count: n))
        self.activation = activation
    }
}
