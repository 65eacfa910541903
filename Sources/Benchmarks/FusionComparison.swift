import Foundation
import Inference

/// `bench profile --against-unfused`: a model's plan with block fusion against the same model planned
/// without it, run alternately so that a burst of load on a shared machine falls on both, and their
/// outputs checked equal bit for bit on the input timed (the claim the comparison rests on).
public struct FusionComparison: Sendable {
    /// One plan's figures.
    public struct Side: Sendable {
        /// The lower median (`Timings.lowerPercentile(0.5)`) and 10th percentile, in milliseconds.
        public var medianMs: Double
        public var p10Ms: Double
        public var steps: Int
        public var arenaMib: Double
    }

    public var fused: Side
    public var unfused: Side
    /// Timed runs of each plan.
    public var runs: Int

    /// Times the model at `path` on `threads` threads, `runs` runs of each plan (at least one).
    public init(model path: String, threads: Int, runs: Int) throws(BenchmarkError) {
        let (plan, other) = try attempt(BenchmarkError.engine) {
            (try ExecutionPlan(model: try TFLiteModel(path: path), threads: threads, fusingBlocks: true),
             try ExecutionPlan(model: try TFLiteModel(path: path), threads: threads, fusingBlocks: false))
        }
        let input = [Float](repeating: 0.5, count: plan.inputs[0].count)
        var times: [[Double]] = [[], []]
        for i in 0..<max(1, runs) {
            for which in i % 2 == 0 ? [0, 1] : [1, 0] {
                let start = DispatchTime.now().uptimeNanoseconds
                try attempt(BenchmarkError.engine) { try (which == 0 ? plan : other).run(input) }
                times[which].append(milliseconds(since: start))
            }
        }
        for i in 0..<plan.outputs.count where !zip(plan.output(i), other.output(i)).allSatisfy({ $0.bitPattern == $1.bitPattern }) {
            throw .fusedOutputDiffers(model: path, output: i)
        }
        func side(_ times: [Double], _ plan: ExecutionPlan) -> Side {
            let t = Timings(times)
            return Side(medianMs: t.lowerPercentile(0.5), p10Ms: t.lowerPercentile(0.1), steps: plan.stepCount,
                        arenaMib: Double(plan.arenaBytes) / 1_048_576)
        }
        fused = side(times[0], plan)
        unfused = side(times[1], other)
        self.runs = times[0].count
    }
}
