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
    static let turn = 5

    /// Times every model and thread count in each of `rounds` rounds. Within a round each model and thread
    /// count is timed in turns of `turn` runs, ours and the reference's alternating (each turn after one
    /// untimed run), so a burst of load on a shared machine, which lasts longer than a turn, falls on both
    /// sides alike; and the rounds of one model lie seconds apart, so such a burst cannot fall on all of them.
    /// Each row holds the median and p90 of every run of every round, the p10 and p90 of the rounds' medians
    /// (how much a round's figure moves), and the worst round's ratio.
    public func measure(rounds: Int, progress: (BenchProgress) -> Void) throws(BenchmarkError) -> [BenchJSON.ModelRow] {
        var ours = [[Double]](repeating: [], count: cases.count), ourRounds = ours
        var ref = [[Double]](repeating: [], count: cases.count), refRounds = ref
        var ratios = [[Double]](repeating: [], count: cases.count)
        var server: ReferenceServer?
        if let reference {
            do { server = try ReferenceServer(python: reference.python, script: reference.script) } catch {
                progress(.referenceNotRun(reason: "\(error)"))
            }
        }
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
                    if let s = server {
                        if let t = s.times(model: c.path, threads: c.threads, runs: n) { referenceTimes += t } else {
                            progress(.referenceNotRun(reason: s.failure))
                            s.close()
                            server = nil
                            referenceTimes = []
                        }
                    }
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

/// The official interpreter (`tflite_reference.py serve`) in a process of its own for the whole measurement:
/// each model is loaded once, and a turn of its runs costs a line each way.
private final class ReferenceServer {
    private let process = Process()
    private let requests: FileHandle
    private let answers: FileHandle
    private var buffered = Data()
    /// The server's standard error (TFLite's notes; a Python traceback when it fails), for `failure`.
    private let log: URL
    /// Why the last request failed.
    private(set) var failure = ""

    /// A server that ends early must not end this process: SIGPIPE is ignored, and a request then fails.
    init(python: String, script: URL) throws {
        signal(SIGPIPE, SIG_IGN)
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script.path, "serve"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        log = FileManager.default.temporaryDirectory.appendingPathComponent("handpose-reference-\(getpid())-\(UUID().uuidString).log")
        guard FileManager.default.createFile(atPath: log.path, contents: nil) else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: log.path]) }
        process.standardError = try FileHandle(forWritingTo: log)
        try process.run()
        requests = input.fileHandleForWriting
        answers = output.fileHandleForReading
    }

    /// The milliseconds of `runs` timed runs of `model` on `threads` threads, or nil (`failure` says why).
    func times(model: String, threads: Int, runs: Int) -> [Double]? {
        struct Request: Encodable { var model: String; var threads: Int; var runs: Int }
        do {
            var line = try JSONEncoder().encode(Request(model: model, threads: threads, runs: runs))
            line.append(0x0A)
            try requests.write(contentsOf: line)
        } catch {
            failure = "\(process.executableURL?.path ?? "python") \(process.arguments?.first ?? "") ended before it took a request\(said())"
            return nil
        }
        guard let answer = readLine() else {
            failure = "\(process.executableURL?.path ?? "python") ended without timing \(model)\(said())"
            return nil
        }
        guard let timing = try? BenchJSON.decoder.decode(BenchJSON.ReferenceTiming.self, from: answer),
              let times = timing.timesMs, times.count == runs else {
            failure = "the reference interpreter's answer for \(model) is not its timing: \(String(decoding: answer.prefix(200), as: UTF8.self))"
            return nil
        }
        return times
    }

    /// The last lines the server wrote to its standard error other than TFLite's notes, after a colon, or nothing.
    private func said() -> String {
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        let lines = text.split(separator: "\n").filter { !$0.hasPrefix("INFO:") }.suffix(3)
        return lines.isEmpty ? "" : ": " + lines.joined(separator: " / ")
    }

    /// The next line of the answers, or nil at their end.
    private func readLine() -> Data? {
        while true {
            if let end = buffered.firstIndex(of: 0x0A) {
                let line = buffered[buffered.startIndex..<end]
                buffered = Data(buffered[(end + 1)...])
                return Data(line)
            }
            let chunk = answers.availableData
            if chunk.isEmpty { return nil }
            buffered.append(chunk)
        }
    }

    /// Ends the server: its input closed, then (if it has not ended by then) terminated; waits for it.
    func close() {
        try? requests.close()
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: log)
    }
}
