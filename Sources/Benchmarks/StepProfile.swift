import Foundation
import Inference

/// `bench profile`: the time of each step of one model's plan, the median of 21 runs per step, robust
/// to a busy machine.
public struct StepProfile: Sendable {
    /// One step: its index and description, and its median time.
    public struct Step: Sendable {
        public var name: String
        public var medianMs: Double
    }

    /// Every step, slowest first.
    public var slowestFirst: [Step]
    /// The sum of the steps' medians.
    public var totalMs: Double

    /// Profiles the plan of the model at `path` on `threads` threads, with or without block fusion.
    public init(model path: String, threads: Int, fusingBlocks: Bool) throws(BenchmarkError) {
        let plan = try attempt(BenchmarkError.engine) { try ExecutionPlan(model: try TFLiteModel(path: path), threads: threads, fusingBlocks: fusingBlocks) }
        let input = [Float](repeating: 0.5, count: plan.inputs[0].count)
        var samples: [String: [Double]] = [:]
        var order: [String] = []
        for _ in 0..<21 {
            for (i, (step, ms)) in try attempt(BenchmarkError.engine, { try plan.profile(input) }).enumerated() {
                let key = "\(i) " + String(step.prefix(400))
                if samples[key] == nil { order.append(key) }
                samples[key, default: []].append(ms)
            }
        }
        let medians = samples.mapValues { Timings($0).median }
        totalMs = medians.values.reduce(0, +)
        slowestFirst = order.sorted(by: { medians[$0]! > medians[$1]! }).map { Step(name: $0, medianMs: medians[$0]!) }
    }
}
