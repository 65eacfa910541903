import ArgumentParser
import Benchmarks
import Foundation

struct BenchProfile: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "profile",
        abstract: "Time each step of one model's plan (after fusion), slowest first.")
    @Argument(help: "A .tflite file.") var model: String
    @Option(help: "Threads.") var threads = 1
    @Option(help: "Rows to show.") var top = 25
    @Flag(help: "Profile the plan without block fusion (each block's expansion, depthwise and projection as steps of their own).")
    var unfused = false
    @Flag(help: ArgumentHelp("Time the plan against the same plan without block fusion instead, alternating run by run.",
                             discussion: "Prints each one's median and 10th percentile; fails if their outputs differ (they are the same bit for bit)."))
    var againstUnfused = false
    @Option(help: "Runs of each plan with --against-unfused.") var runs = 600

    func validate() throws {
        if unfused && againstUnfused { throw ValidationError("--unfused and --against-unfused exclude each other") }
        try Bench.check(threads, "--threads", Bench.threadRange)
        try Bench.check(runs, "--runs", Bench.runRange)
        try Bench.check(top, "--top", 1...100_000)
    }

    func run() throws {
        if againstUnfused {
            try compareFusion()
            return
        }
        let profile = try Bench.measuring { () throws(BenchmarkError) in try StepProfile(model: model, threads: threads, fusingBlocks: !unfused) }
        print(String(format: "total %.2f ms over %d steps", profile.totalMs, profile.slowestFirst.count))
        for step in profile.slowestFirst.prefix(top) {
            print(String(format: "%7.3f ms %5.1f%%  %@", step.medianMs, 100 * step.medianMs / profile.totalMs, step.name))
        }
    }

    /// The fused plan against the unfused one; outputs that differ are said and fail the run (exit 1).
    private func compareFusion() throws {
        let c: FusionComparison
        do {
            c = try FusionComparison(model: model, threads: threads, runs: runs)
        } catch {
            guard case .fusedOutputDiffers = error else { throw RuntimeFailure(measurement: error) }
            Bench.note("\(error)")
            throw ExitCode.failure
        }
        let (f, u) = (c.fused, c.unfused)
        print(String(format: "%@, %d thread(s), %d runs each: fused median %.3f ms, p10 %.3f (%d steps, arena %.2f MiB); "
                     + "unfused median %.3f ms, p10 %.3f (%d steps, arena %.2f MiB); fused/unfused %.3f (median), %.3f (p10)",
                     (model as NSString).lastPathComponent, threads, c.runs, f.medianMs, f.p10Ms, f.steps, f.arenaMib,
                     u.medianMs, u.p10Ms, u.steps, u.arenaMib, f.medianMs / u.medianMs, f.p10Ms / u.p10Ms))
    }
}
