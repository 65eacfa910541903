import ArgumentParser
import Benchmarks
import Foundation
import Inference

/// `handpose bench`: speed measurements (never tests: no limits, just figures and ratios). The
/// measuring is the `Benchmarks` library's; the commands read flags, print and choose exit codes.
struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure handpose's speed, beside the reference implementations when available.",
        subcommands: [BenchModels.self, BenchKernels.self, BenchExtract.self, BenchDecode.self, BenchProfile.self, BenchComplete.self, BenchHolistic.self]
    )

    /// `body`'s result; a failure of the measurement is a failure to run: one sentence, exit 3, no usage text.
    static func measuring<T>(_ body: () throws(BenchmarkError) -> T) throws -> T {
        do { return try body() } catch { throw RuntimeFailure(measurement: error) }
    }

    /// Engine threads a bench may ask for (no machine has more cores), and runs, rounds or passes.
    static let threadRange = 1...1024
    static let runRange = 1...1_000_000

    static func check(_ value: Int, _ flag: String, _ range: ClosedRange<Int>) throws {
        guard range.contains(value) else { throw ValidationError("\(flag) must be from \(range.lowerBound) to \(range.upperBound)") }
    }

    /// The CPU above a table of figures, and the AVX-512 tiling where those kernels run.
    static func printCPU() {
        print("CPU: \(CPUDescription.host.summary)")
        if (try? KernelSelection.best()) == .avx512, let tiling = try? KernelSelection.gemmTiling() {
            print("AVX-512 matrix-product tiles: \(tilingLine(tiling))")
        }
    }

    /// Writes a progress line to standard error.
    static func note(_ line: String) {
        Console.line(line)
    }
}

extension RuntimeFailure {
    /// A failed measurement as the tool reports it; the Python given with --reference is named by its flag.
    init(measurement error: BenchmarkError) {
        switch error {
        case .referenceNotRunnable, .referenceWithoutMediaPipe:
            self.init("--reference \(error)")
        default:
            self.init("\(error)")
        }
    }
}

struct BenchModels: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "models",
        abstract: "Time each model (the four hand models, the body's two, the three Holistic adds) with our engine on 1 thread and on all cores; with --reference, TFLite's XNNPACK too.",
        discussion: "Prints the kernels that ran (the best instruction set this CPU runs; HANDPOSE_MAX_ISA=baseline|avx2|avx512 caps it), the median milliseconds over every run of every round, the p10-p90 of the rounds' medians (how far one round's figure moves; with 5 rounds, the fastest and slowest), GFLOP/s (2 x multiply-adds / median), the same for XNNPACK, the ratio of the medians and the worst round's ratio (below 1 is faster)."
    )

    @Option(help: "Only this thread count (default: 1 and all cores).")
    var threads: Int?

    @Option(help: "Timed runs per model and thread count in each round (after 3 warm-up runs), in turns of \(ModelTiming.turn), ours and the reference's alternating, each turn after one untimed run.")
    var runs = 30

    @Option(help: "Rounds; each times every model and thread count in turn, so a burst of load on a shared machine falls on both sides alike (their turns alternate every \(ModelTiming.turn) runs) and not on every round of one model; the spread of the rounds' medians is reported.")
    var rounds = 3

    @Option(help: "Folder with the .tflite files (default: as extract looks for them).")
    var models: String?

    @Option(help: "A Python with ai-edge-litert (e.g. .venv/bin/python) to time the official interpreter in the same run.")
    var reference: String?

    @Flag(help: "Print a JSON array: model, threads, isa (the kernels that ran), gemm_tiling (AVX-512 only), median_ms, p90_ms, round_p10_ms, round_p90_ms, gflops, and xnnpack_median_ms, xnnpack_round_p10_ms, xnnpack_round_p90_ms, ratio, worst_round_ratio with --reference.")
    var json = false

    func validate() throws {
        try Bench.check(runs, "--runs", Bench.runRange)
        try Bench.check(rounds, "--rounds", Bench.runRange)
        if let threads { try Bench.check(threads, "--threads", Bench.threadRange) }
    }

    func run() throws {
        let cores = UsableCores.count
        let threadCounts = threads.map { [$0] } ?? Array(Set([1, cores])).sorted()
        let rows = try Bench.measuring { () throws(BenchmarkError) in
            try ModelTiming(models: models, threadCounts: threadCounts, runs: runs, referencePython: reference).measure(rounds: rounds) { event in
                switch event {
                case .modelTimed(let round, let model, let threads, let median) where !json:
                    Bench.note("  round \(round): \(model) threads=\(threads): \(String(format: "%.2f", median)) ms")
                default:
                    break
                }
            }
        }
        if json {
            print(try BenchJSON.text(rows))
            return
        }
        Bench.printCPU()
        var table = [["model", "threads", "kernels", "median ms", "rounds p10-p90", "GFLOP/s", "arena MiB", "XNNPACK ms",
                      "XNNPACK rounds", "ours/XNNPACK", "worst round"]]
        for r in rows {
            func f(_ v: Double?, _ fmt: String = "%.2f") -> String { v.map { String(format: fmt, $0) } ?? "-" }
            func spread(_ lo: Double?, _ hi: Double?) -> String { lo.flatMap { l in hi.map { String(format: "%.2f-%.2f", l, $0) } } ?? "-" }
            table.append([r.model, "\(r.threads)", r.gemmTiling.map { "\(r.isa) \($0)" } ?? r.isa, f(r.medianMs), spread(r.roundP10Ms, r.roundP90Ms), f(r.gflops, "%.1f"),
                          f(r.arenaMib), f(r.xnnpackMedianMs), spread(r.xnnpackRoundP10Ms, r.xnnpackRoundP90Ms), f(r.ratio), f(r.worstRoundRatio)])
        }
        print(Table.render(table))
    }
}

struct BenchKernels: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kernels",
        abstract: "Time every micro-kernel of every kernel variant this CPU runs, alone on a problem in the L1 cache, against the core's multiply-add peak.",
        discussion: "The peak is twelve independent fused multiply-adds on the variant's widest vectors, no memory: what the core's FMA units do at the clock it runs at. Each figure is the best of five measurements.")

    @Flag(help: "Print a JSON array: isa, kernel, strategy, multiply_adds, gflops, peak_gflops, of_peak.")
    var json = false

    func run() throws {
        let rows = try Bench.measuring { () throws(BenchmarkError) in try KernelTiming().measure() }
        if json {
            print(try BenchJSON.text(rows))
            return
        }
        Bench.printCPU()
        var table = [["kernels", "micro-kernel", "strategy", "GFLOP/s", "peak GFLOP/s", "of peak"]]
        for r in rows {
            table.append([r.isa, r.kernel, r.strategy, String(format: "%.1f", r.gflops), String(format: "%.1f", r.peakGflops),
                          String(format: "%.0f%%", 100 * r.ofPeak)])
        }
        print(Table.render(table))
    }
}

struct BenchDecode: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Decode every frame of clips to RGB (FFmpeg, frame and slice threads) and report frames/s.")

    @Argument(help: "Clips to decode.") var clips: [String]
    @Option(help: "Passes over each clip.") var passes = 3

    func validate() throws { try Bench.check(passes, "--passes", Bench.runRange) }

    func run() throws {
        var table = [["clip", "size", "frames", "frames/s"]]
        for clip in clips {
            let speed = try Bench.measuring { () throws(BenchmarkError) in try DecodeSpeed(clip: clip, passes: passes) }
            table.append([clip, speed.size, "\(speed.frames)", String(format: "%.1f", speed.framesPerSecond)])
        }
        print(Table.render(table))
    }
}
