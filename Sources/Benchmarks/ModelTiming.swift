import Foundation
import HandLandmarks
import Inference
import Support

/// `bench models`: each model's plan timed on each thread count, beside the official interpreter
/// (TFLite with XNNPACK, through `scripts/tflite_reference.py`) when a Python for it is given.
public struct ModelTiming {
    /// The hand models, then the body's (`extract --body`), then those Holistic adds (`extract --holistic`),
    /// found beside the full hand models.
    public static let modelNames = ["palm_detection_full", "hand_landmark_full", "palm_detection_lite", "hand_landmark_lite",
                                    "pose_detection", "pose_landmark_full", "hand_recrop", "face_detection_short_range", "face_landmark"]

    private struct Case {
        var name: String
        var path: String
        var threads: Int
        var plan: ExecutionPlan
        var input: [Float]
    }

    private let cases: [Case]
    private let reference: (python: String, script: URL)?
    private let runs: Int

    /// Plans every model for every count in `threadCounts` (3 warm-up runs each) from the models folder
    /// `models` (nil: where extract looks), and finds the reference script when `referencePython` is
    /// given, so that a missing file is said before any timing. `runs`: timed runs per round.
    public init(models: String?, threadCounts: [Int], runs: Int, referencePython: String?) throws(BenchmarkError) {
        if let referencePython { reference = (referencePython, try HelperScript.url("tflite_reference.py")) } else { reference = nil }
        self.runs = runs
        var cases: [Case] = []
        for name in Self.modelNames {
            let (model, path) = try attempt(BenchmarkError.models) {
                let folder = try InstalledFiles(.models, explicit: models).folder(holding: HandModels.fileNames(name.hasSuffix("lite") ? .lite : .full))
                let path = folder.appendingPathComponent("\(name).tflite").path
                return (try TFLiteModel(path: path), path)
            }
            for t in threadCounts {
                try attempt(BenchmarkError.engine) {
                    let plan = try ExecutionPlan(model: model, threads: t)
                    var rng = SystemRandomNumberGenerator()
                    let input = (0..<plan.inputs[0].count).map { _ in Float.random(in: 0...1, using: &rng) }
                    for _ in 0..<3 { try plan.run(input) }
                    cases.append(Case(name: name, path: path, threads: t, plan: plan, input: input))
                }
            }
        }
        self.cases = cases
    }

    /// Runs of one side before the other side's turn.
    public static let turn = 5

    /// Times every model and thread count in each of `rounds` rounds. Within a round each model and thread
    /// count is timed in turns of `turn` runs, ours and the reference's alternating (each turn after one
    /// untimed run), so a burst of load on a shared machine, which lasts longer than a turn, falls on both
    /// sides alike; and the rounds of one model lie seconds apart, so such a burst cannot fall on all of them.
    /// A reference that fails (`ReferenceServer`) fails the measurement.
    /// Each row holds the median and p90 of every run of every round, the p10 and p90 of the rounds' medians
    /// (how much a round's figure moves), and the worst round's ratio.
    public func measure(rounds: Int, progress: (BenchProgress) -> Void) throws(BenchmarkError) -> [BenchJSON.ModelRow] {
        var ours = [[Double]](repeating: [], count: cases.count), ourRounds = ours
        var ref = [[Double]](repeating: [], count: cases.count), refRounds = ref
        var ratios = [[Double]](repeating: [], count: cases.count)
        let server = try reference.map { (r) throws(BenchmarkError) in try ReferenceServer(python: r.python, script: r.script) }
        defer { server?.close() }
        for round in 0..<rounds {
            for (i, c) in cases.enumerated() {
                var times: [Double] = [], referenceTimes: [Double] = []
                var left = runs
                while left > 0 {
                    let n = min(Self.turn, left)
                    left -= n
                    try attempt(BenchmarkError.engine) {
                        try c.plan.run(c.input)
                        for _ in 0..<n {
                            let start = DispatchTime.now().uptimeNanoseconds
                            try c.plan.run(c.input)
                            times.append(milliseconds(since: start))
                        }
                    }
                    if let server { referenceTimes += try server.times(model: c.path, threads: c.threads, runs: n) }
                }
                let median = Timings(times).median
                ours[i] += times
                ourRounds[i].append(median)
                if !referenceTimes.isEmpty {
                    let referenceMedian = Timings(referenceTimes).median
                    ref[i] += referenceTimes
                    refRounds[i].append(referenceMedian)
                    ratios[i].append(median / referenceMedian)
                }
                progress(.modelTimed(round: round + 1, model: c.name, threads: c.threads, medianMs: median))
            }
        }
        return cases.enumerated().map { i, c in
            let all = Timings(ours[i]), perRound = Timings(ourRounds[i])
            let reference = ref[i].isEmpty ? nil : (all: Timings(ref[i]), perRound: Timings(refRounds[i]))
            let median = all.median
            return BenchJSON.ModelRow(model: c.name, threads: c.threads, isa: c.plan.isa.rawValue, medianMs: median, p90Ms: all.percentile(0.9),
                                      gflops: 2 * Double(c.plan.multiplyAdds) / median / 1e6, arenaMib: Double(c.plan.arenaBytes) / 1048576,
                                      xnnpackMedianMs: reference?.all.median, xnnpackP90Ms: reference?.all.percentile(0.9),
                                      ratio: reference.map { median / $0.all.median },
                                      roundP10Ms: perRound.lowerPercentile(0.1), roundP90Ms: perRound.percentile(0.9),
                                      xnnpackRoundP10Ms: reference?.perRound.lowerPercentile(0.1), xnnpackRoundP90Ms: reference?.perRound.percentile(0.9),
                                      worstRoundRatio: ratios[i].max(), gemmTiling: c.plan.gemmTiling?.rawValue)
        }
    }

}
