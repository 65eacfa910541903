import Kernels

/// This module's kernels. The same sources build `KernelsBaseline` (no target flags), `KernelsAVX2`
/// (x86-64-v3, fused multiply-add) and `KernelsAVX512` (x86-64-v4, 16-wide kernels); each module's
/// `KernelVariant` runs only the code of its own build, and `Inference` picks the variant at run time.
/// The tests also build `KernelsAVX512OnAVX2`: the AVX-512 code for Haswell, whose `isa` says `avx512`.
public struct KernelVariant: KernelSet {
    #if HANDPOSE_AVX512
    /// Whether the tiling is `.wide`, as a word: a one-byte stored property made this module emit value
    /// witnesses (`__swift_memcpy1_1`) under names every module with such a type shares, which the linker
    /// keeps once (KernelVariantBuildTests); an `Int`'s are the runtime's own.
    private let wide: Int

    public var gemmTiling: GemmTiling? { wide != 0 ? .wide : .rows12 }

    /// The kernels with `gemmTiling` (the one suited to this CPU unless given).
    public init(gemmTiling: GemmTiling = .suited(to: .host)) { wide = gemmTiling == .wide ? 1 : 0 }
    #else
    public var gemmTiling: GemmTiling? { nil }
    private var wide: Int { 0 }

    public init() {}
    #endif

    public var isa: ISA {
        #if HANDPOSE_AVX512
        return .avx512
        #elseif HANDPOSE_AVX2
        return .avx2
        #else
        return .baseline
        #endif
    }

    public func gemm(a: UnsafePointer<Float>, lda: Int, rows: Range<Int>, panels: Range<Int>, weights: PackedWeights,
                     c: UnsafeMutablePointer<Float>, ldc: Int, epilogue: Epilogue) {
        Gemm.run(a: a, lda: lda, rows: rows, panels: panels, weights: weights, c: c, ldc: ldc, epilogue: epilogue,
                 wide: wide != 0)
    }

    public func conv(_ conv: Conv2D, input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, pixels: Range<Int>,
                     scratch: UnsafeMutablePointer<Float>, epilogue: Epilogue) {
        ConvKernel.run(conv, input: input, output: output, pixels: pixels, scratch: scratch, epilogue: epilogue,
                       wide: wide != 0)
    }

    public func depthwise(_ conv: DepthwiseConv2D, input: UnsafePointer<Float>, inputFirstRow: Int,
                          output: UnsafeMutablePointer<Float>, outputFirstRow: Int, rows: Range<Int>, channels: Range<Int>) {
        DepthwiseKernel.run(conv, input: input, inputFirstRow: inputFirstRow, output: output, outputFirstRow: outputFirstRow,
                            rows: rows, channels: channels)
    }

    public func maxPool(input: UnsafePointer<Float>, shape: HWC, window: Window, activation: Activation,
                        output: UnsafeMutablePointer<Float>, rows: Range<Int>) {
        Pooling.max(input: input, shape: shape, window: window, activation: activation, output: output, rows: rows)
    }

    public func add(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>,
                    range: Range<Int>, activation: Activation) {
        Elementwise.add(a, b, y, range: range, activation: activation)
    }

    public func prelu(_ x: UnsafePointer<Float>, alpha: UnsafePointer<Float>, channels: Int,
                      _ y: UnsafeMutablePointer<Float>, pixels: Range<Int>) {
        Elementwise.prelu(x, alpha: alpha, channels: channels, y, pixels: pixels)
    }

    public func fullyConnected(_ fc: FullyConnected, _ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>,
                               batch: Int) {
        FullyConnectedKernel.run(fc, x, y, batch: batch)
    }

    public var microKernels: [MicroKernel] { MicroKernel.table(isa) }

    public func runGemmTile(_ kernel: String, a: UnsafePointer<Float>, lda: Int, rows: Range<Int>, weights: PackedWeights, panel: Int,
                            c: UnsafeMutablePointer<Float>, ldc: Int, epilogue: Epilogue) -> Bool {
        guard panel >= 0 && panel < weights.panels else { return false }
        return gemmTile(kernel, a: a, lda: lda, row: rows.lowerBound, rowCount: rows.count, w: weights, panel: panel,
                        c: c, ldc: ldc, epilogue: VectorEpilogue(epilogue))
    }

    public func runDirectTile(_ kernel: String, conv: Conv2D, input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>,
                              pixel: Int, epilogue: Epilogue) -> Bool {
        let w = conv.window, outW = conv.output.w
        let oy = pixel / outW, ox = pixel % outW
        let iy0 = oy * w.sh - w.padTop
        let kyLo = max(0, (-iy0 + w.dh - 1) / w.dh), kyHi = max(kyLo, min(w.kh, (conv.input.h - iy0 + w.dh - 1) / w.dh))
        if kernel.hasPrefix("dot") {
            return dotTile(kernel, conv: conv, x: input, y: output, epilogue: VectorEpilogue(epilogue), pixel: pixel, ox: ox, iy0: iy0, ky: kyLo..<kyHi)
        }
        return directTile(kernel, conv: conv, x: input, y: output, epilogue: VectorEpilogue(epilogue),
                          pixel: pixel, ox: ox, iy0: iy0, ky: kyLo..<kyHi)
    }

    public func multiplyAddPeak(iterations: Int) -> Float { Peak.run(iterations: iterations) }
    public var multiplyAddsPerPeakStep: Int { Peak.multiplyAddsPerStep }
}
