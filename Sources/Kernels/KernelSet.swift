import CCPUFeatures

/// The instruction sets the kernels are built for, in increasing order. One binary carries every
/// variant its architecture has and runs the best one the CPU can execute.
/// - `baseline`: the architecture's portable instruction set (x86-64 as first defined, SSE2; on arm64, NEON).
/// - `avx2`: built for Haswell: AVX2, FMA, BMI1/2, F16C, LZCNT, MOVBE (x86-64-v3), 8-wide vectors with
///   fused multiply-add.
/// - `avx512`: built for Skylake-AVX512: AVX-512 F, BW, CD, DQ, VL on top of those (x86-64-v4), 16-wide
///   kernels where they pay.
/// Built for named CPUs because the compiler's C importer does not take `x86-64-v3`/`v4`; those CPUs also
/// have extensions (AES, PCLMUL, RDRAND, ADX, ...) that the check does not ask for, and that the compiler
/// never emits for plain Swift arithmetic. The check asks for every extension of the two levels.
public enum ISA: String, CaseIterable, Comparable, Sendable {
    case baseline, avx2, avx512

    public static func < (a: ISA, b: ISA) -> Bool { a.order < b.order }
    private var order: Int { ISA.allCases.firstIndex(of: self)! }

    /// Whether this CPU, and the operating system (which must save the wider registers), can run code built for it.
    public var runsOnThisCPU: Bool {
        switch self {
        case .baseline: return true
        case .avx2: return CPUDescription.host.x86_64v3
        case .avx512: return CPUDescription.host.x86_64v3 && CPUDescription.host.x86_64v4
        }
    }
}

/// The operations whose speed depends on the instruction set: one implementation per `ISA`, each
/// built from the same sources (`Sources/KernelsBaseline`) with its own compiler target. Every call
/// takes raw pointers and the layer objects of this module, so a plan calls its kernel set once per
/// layer and thread part.
public protocol KernelSet: Sendable {
    var isa: ISA { get }
    /// How `gemm` tiles a product; nil where the variant has one way (baseline, AVX2).
    var gemmTiling: GemmTiling? { get }
    /// Rows `rows` of `C = A * W` with the epilogue, the columns of weight panels `panels` (16 columns a
    /// panel). `A` rows are `lda` floats apart, `C` rows `ldc`; the epilogue's residual has the layout of `C`.
    func gemm(a: UnsafePointer<Float>, lda: Int, rows: Range<Int>, panels: Range<Int>, weights: PackedWeights,
              c: UnsafeMutablePointer<Float>, ldc: Int, epilogue: Epilogue)
    /// Output pixels `pixels` of `conv`, using `scratch` of `conv.scratchCount` floats.
    func conv(_ conv: Conv2D, input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, pixels: Range<Int>,
              scratch: UnsafeMutablePointer<Float>, epilogue: Epilogue)
    /// Output rows `rows` of `conv`, channels `channels` of them (a range that starts at a multiple of 16).
    /// `input` holds the input's rows from `inputFirstRow` on (those `rows` read), `output` the output's
    /// rows from `outputFirstRow` on: a fused block passes the bands of rows it keeps in scratch. Each
    /// value is formed by the same arithmetic whichever rows and channels a call covers.
    func depthwise(_ conv: DepthwiseConv2D, input: UnsafePointer<Float>, inputFirstRow: Int,
                   output: UnsafeMutablePointer<Float>, outputFirstRow: Int, rows: Range<Int>, channels: Range<Int>)
    /// Max over each window; padded positions are ignored (as TFLite does), fused activation after.
    func maxPool(input: UnsafePointer<Float>, shape: HWC, window: Window, activation: Activation,
                 output: UnsafeMutablePointer<Float>, rows: Range<Int>)
    /// `y = activation(a + b)` over `range`.
    func add(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, range: Range<Int>,
             activation: Activation)
    /// PReLU with one slope per channel (the last dimension, `channels` long).
    func prelu(_ x: UnsafePointer<Float>, alpha: UnsafePointer<Float>, channels: Int, _ y: UnsafeMutablePointer<Float>,
               pixels: Range<Int>)
    /// Rows of a `[batch, K]` input, each to a row of `[batch, N]` output.
    func fullyConnected(_ fc: FullyConnected, _ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, batch: Int)

    /// This variant's micro-kernels (scripts/generate-kernels.py writes them), for their tester and `bench kernels`.
    var microKernels: [MicroKernel] { get }
    /// Runs the gemm tile `kernel` alone on rows `rows` (at most its own row count) of weight panel `panel`:
    /// `C[rows, panel's columns] = A * W` with the epilogue. False when this variant has no such tile.
    func runGemmTile(_ kernel: String, a: UnsafePointer<Float>, lda: Int, rows: Range<Int>, weights: PackedWeights, panel: Int,
                     c: UnsafeMutablePointer<Float>, ldc: Int, epilogue: Epilogue) -> Bool
    /// Runs the direct-convolution or dot tile `kernel` alone on its pixels from output pixel `pixel`, which lie
    /// in one output row with every tap inside the input horizontally (the caller's to ensure). False when this
    /// variant has no such tile or `conv` has more output channels than it computes (or, for a dot tile, is not
    /// one it covers).
    func runDirectTile(_ kernel: String, conv: Conv2D, input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>,
                       pixel: Int, epilogue: Epilogue) -> Bool
    /// Runs `iterations` steps of twelve independent multiply-adds on the widest vectors this variant uses (no
    /// memory touched): timed, the core's multiply-add peak. Returns a value the caller keeps so that the work stays.
    func multiplyAddPeak(iterations: Int) -> Float
    /// Multiply-adds one step of `multiplyAddPeak` performs.
    var multiplyAddsPerPeakStep: Int { get }
}

/// One micro-kernel of a kernel set: a tile of one strategy, named by it (`gemm6x16`: six rows of sixteen
/// columns; `direct8x8`: eight output pixels of eight channels).
public struct MicroKernel: Sendable, Equatable {
    public enum Strategy: String, Sendable {
        /// Rows of `C = A * W` over packed weight panels, one broadcast of A per row and step.
        case gemm
        /// Output pixels of a convolution of few input channels, read in place.
        case direct
        /// Output pixels of a convolution into one channel, products by input channel, summed at the end.
        case dot
    }
    public let name: String
    public let strategy: Strategy
    /// Rows of C (gemm) or output pixels (direct) one call computes.
    public let rows: Int
    /// Columns (output channels) one call computes.
    public let columns: Int
    /// Floats in each of its vectors.
    public let lanes: Int

    public init(name: String, strategy: Strategy, rows: Int, columns: Int, lanes: Int) {
        self.name = name
        self.strategy = strategy
        self.rows = rows
        self.columns = columns
        self.lanes = lanes
    }
}

extension KernelSet {
    /// Rows `rows` of `C = A * W`, every column.
    public func gemm(a: UnsafePointer<Float>, lda: Int, rows: Range<Int>, weights: PackedWeights,
                     c: UnsafeMutablePointer<Float>, ldc: Int, epilogue: Epilogue) {
        gemm(a: a, lda: lda, rows: rows, panels: 0..<weights.panels, weights: weights, c: c, ldc: ldc, epilogue: epilogue)
    }

    /// Output rows `rows` of `conv`, every channel.
    public func depthwise(_ conv: DepthwiseConv2D, input: UnsafePointer<Float>, inputFirstRow: Int,
                          output: UnsafeMutablePointer<Float>, outputFirstRow: Int, rows: Range<Int>) {
        depthwise(conv, input: input, inputFirstRow: inputFirstRow, output: output, outputFirstRow: outputFirstRow,
                  rows: rows, channels: 0..<conv.input.c)
    }

    /// Output rows `rows` of `conv`, whole tensors in and out.
    public func depthwise(_ conv: DepthwiseConv2D, input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, rows: Range<Int>) {
        depthwise(conv, input: input, inputFirstRow: 0, output: output, outputFirstRow: 0, rows: rows)
    }
}
