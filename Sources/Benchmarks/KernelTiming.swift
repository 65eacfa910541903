import Foundation
import Inference

/// `bench kernels`: every micro-kernel of every kernel variant this CPU runs, alone on a problem that stays
/// in the L1 cache, in GFLOP/s and as a share of the variant's multiply-add peak (twelve independent FMAs on
/// its widest vectors, no memory), so a tile's speed reads against what the core can do.
public struct KernelTiming {
    public struct Row: Codable, Sendable, Equatable {
        public var isa: String
        public var kernel: String
        public var strategy: String
        /// Multiply-adds of one call.
        public var multiplyAdds: Int
        public var gflops: Double
        /// The variant's peak, 2 x multiply-adds a second.
        public var peakGflops: Double
        /// `gflops / peakGflops`.
        public var ofPeak: Double
    }

    /// The depth of the gemm tiles' products: 256 steps, 16 KB of weights a panel (in L1 with A's rows).
    static let depth = 256

    public init() {}

    /// Times each variant in `KernelSelection.runnable` (`isas` when given): `repeats` measurements of about
    /// `seconds` each, the fastest counted (a kernel in L1 is slowed only by interference).
    public func measure(isas: [ISA]? = nil, seconds: Double = 0.05, repeats: Int = 5) throws(BenchmarkError) -> [Row] {
        var rows: [Row] = []
        for isa in isas ?? KernelSelection.runnable {
            let kernels = try attempt(BenchmarkError.engine) { try KernelSelection.kernels(isa) }
            let peakRate = try peakGflops(isa, seconds: seconds, repeats: repeats) * 1e9 / 2
            for tile in kernels.microKernels {
                let (macs, call) = Self.problem(tile, kernels: kernels)
                let rate = best(repeats: repeats, seconds: seconds, work: Double(macs)) { call() }
                rows.append(Row(isa: isa.rawValue, kernel: tile.name, strategy: tile.strategy.rawValue, multiplyAdds: macs,
                                gflops: 2 * rate / 1e9, peakGflops: 2 * peakRate / 1e9, ofPeak: rate / peakRate))
            }
        }
        return rows
    }

    /// The multiply-add peak of the variant built for `isa` on this core, in GFLOP/s (2 x multiply-adds a second).
    public func peakGflops(_ isa: ISA, seconds: Double = 0.05, repeats: Int = 5) throws(BenchmarkError) -> Double {
        let kernels = try attempt(BenchmarkError.engine) { try KernelSelection.kernels(isa) }
        return 2 * best(repeats: repeats, seconds: seconds, work: Double(kernels.multiplyAddsPerPeakStep) * 100_000) {
            _ = kernels.multiplyAddPeak(iterations: 100_000)
        } / 1e9
    }

    /// Multiply-adds a second of `body` (doing `work` each call), the best of `repeats` measurements of about
    /// `seconds` each.
    private func best(repeats: Int, seconds: Double, work: Double, _ body: () -> Void) -> Double {
        body()
        // Calls a measurement: enough for `seconds`, from one timed call.
        let start = DispatchTime.now().uptimeNanoseconds
        body()
        let once = max(1, Double(DispatchTime.now().uptimeNanoseconds - start))
        let calls = max(1, min(10_000_000, Int(seconds * 1e9 / once)))
        var bestRate = 0.0
        for _ in 0..<repeats {
            let t0 = DispatchTime.now().uptimeNanoseconds
            for _ in 0..<calls { body() }
            let ns = Double(DispatchTime.now().uptimeNanoseconds - t0)
            bestRate = max(bestRate, work * Double(calls) / (ns / 1e9))
        }
        return bestRate
    }

    /// A tile's problem: its multiply-adds a call and the call, on buffers that live as long as the closure.
    static func problem(_ tile: MicroKernel, kernels: any KernelSet) -> (Int, () -> Void) {
        var rng = SystemRandomNumberGenerator()
        func floats(_ n: Int) -> UnsafeMutablePointer<Float> {
            let p = UnsafeMutablePointer<Float>.allocate(capacity: n)
            for i in 0..<n { p[i] = Float.random(in: -1...1, using: &rng) }
            return p
        }
        switch tile.strategy {
        case .gemm:
            let k = depth, n = tile.columns
            let a = floats(tile.rows * k), c = floats(tile.rows * n)
            let w = PackedWeights(k: k, n: n, bias: [Float](repeating: 0.5, count: n)) { _, _ in Float.random(in: -1...1) }
            let hold = Holder([a, c])
            return (tile.rows * n * k, {
                _ = kernels.runGemmTile(tile.name, a: a, lda: k, rows: 0..<tile.rows, weights: w, panel: 0, c: c, ldc: n, epilogue: Epilogue(activation: .relu6))
                withExtendedLifetime(hold) {}
            })
        case .direct, .dot:
            // The models' first layers (3x3/2 on RGB) for direct tiles; for dot, 3x3/1 from 64 channels (the
            // segmentation head has 8: with 64, a call's products outweigh its set-up, as in the gemm tiles' depth).
            let (cin, stride, n) = tile.strategy == .direct ? (3, 2, tile.columns) : (64, 1, 1)
            let input = HWC(5, (tile.rows + 2) * stride + 2, cin)
            let window = Window(input: input, kh: 3, kw: 3, sh: stride, sw: stride, padding: .valid)
            let conv = Conv2D(input: input, outputChannels: n, window: window, weights: (0..<(n * 9 * cin)).map { _ in Float.random(in: -1...1) },
                              bias: [Float](repeating: 0.5, count: n))
            let x = floats(input.count), y = floats(conv.output.count)
            let hold = Holder([x, y])
            return (tile.rows * n * 9 * cin, {
                _ = kernels.runDirectTile(tile.name, conv: conv, input: x, output: y, pixel: 0, epilogue: Epilogue(activation: .relu6))
                withExtendedLifetime(hold) {}
            })
        }
    }
}

/// Buffers a timing closure reads, freed with it.
private final class Holder {
    let pointers: [UnsafeMutablePointer<Float>]
    init(_ pointers: [UnsafeMutablePointer<Float>]) { self.pointers = pointers }
    deinit { for p in pointers { p.deallocate() } }
}
