import ArgumentParser
import Extraction
import HandLandmarks
import Foundation
import Inference
import VideoIO

/// `handpose bench`: speed measurements (never tests: no limits, just figures and ratios).
struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure handpose's speed, beside the reference implementations when available.",
        subcommands: [BenchModels.self, BenchExtract.self, BenchDecode.self, BenchProfile.self]
    )
}

struct BenchModels: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "models",
        abstract: "Time each hand model with our engine on 1 thread and on all cores; with --reference, TFLite's XNNPACK too.",
        discussion: "Prints the kernels that ran (the best instruction set this CPU runs; HANDPOSE_MAX_ISA=baseline|avx2|avx512 caps it), median and p90 milliseconds, GFLOP/s (2 x multiply-adds / median) and our/XNNPACK ratio (below 1 is faster)."
    )

    @Option(help: "Only this thread count (default: 1 and all cores).")
    var threads: Int?

    @Option(help: "Timed runs per model and thread count (after 3 warm-up runs).")
    var runs = 30

    @Option(help: "Rounds per model and thread count, ours and the reference alternating; the best round's median counts, so a burst of load on a shared machine does not fall on one side only.")
    var rounds = 3

    @Option(help: "Folder with the .tflite files (default: as extract looks for them).")
    var models: String?

    @Option(help: "A Python with ai-edge-litert (e.g. .venv/bin/python) to time the official interpreter in the same run.")
    var reference: String?

    @Flag(help: "Print a JSON array: model, threads, isa (the kernels that ran), median_ms, p90_ms, gflops, and xnnpack_median_ms, ratio with --reference.")
    var json = false

    func validate() throws {
        guard runs > 0, rounds > 0 else { throw ValidationError("--runs and --rounds must be positive") }
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1") }
    }

    func run() throws {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let threadCounts = threads.map { [$0] } ?? Array(Set([1, cores])).sorted()
        var rows: [[String: Any]] = []
        for name in ["palm_detection_full", "hand_landmark_full", "palm_detection_lite", "hand_landmark_lite"] {
            let model: TFLiteModel
            let path: String
            do {
                let folder = try ModelLocator(explicit: models).folder(for: name.hasSuffix("lite") ? .lite : .full)
                path = folder.appendingPathComponent("\(name).tflite").path
                model = try TFLiteModel(path: path)
            } catch {
                throw ValidationError("\(error)")
            }
            for t in threadCounts {
                let plan = try ExecutionPlan(model: model, threads: t)
                var rng = SystemRandomNumberGenerator()
                let input = (0..<plan.inputs[0].count).map { _ in Float.random(in: 0...1, using: &rng) }
                for _ in 0..<3 { try plan.run(input) }
                var ours: (median: Double, p90: Double)?
                var ref: (median: Double, p90: Double)?
                for _ in 0..<rounds {
                    var times: [Double] = []
                    for _ in 0..<runs {
                        let start = DispatchTime.now().uptimeNanoseconds
                        try plan.run(input)
                        times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
                    }
                    times.sort()
                    let median = times[times.count / 2], p90 = times[min(times.count - 1, Int(Double(times.count) * 0.9))]
                    if median < ours?.median ?? .infinity { ours = (median, p90) }
                    if let reference, let r = try referenceTiming(python: reference, model: path, threads: t),
                       r.median < ref?.median ?? .infinity { ref = r }
                }
                let (median, p90) = ours!
                var row: [String: Any] = [
                    "model": name, "threads": t, "isa": plan.isa.rawValue, "median_ms": median, "p90_ms": p90,
                    "gflops": 2 * Double(plan.multiplyAdds) / median / 1e6,
                    "arena_mib": Double(plan.arenaBytes) / 1048576,
                ]
                if let ref {
                    row["xnnpack_median_ms"] = ref.median
                    row["xnnpack_p90_ms"] = ref.p90
                    row["ratio"] = median / ref.median
                }
                rows.append(row)
                if !json { FileHandle.standardError.write(Data("  \(name) threads=\(t): \(String(format: "%.2f", median)) ms\n".utf8)) }
            }
        }
        if json {
            let data = try JSONSerialization.data(withJSONObject: rows, options: [.prettyPrinted, .sortedKeys])
            print(String(decoding: data, as: UTF8.self))
            return
        }
        var table = [["model", "threads", "kernels", "median ms", "p90 ms", "GFLOP/s", "arena MiB", "XNNPACK ms", "ours/XNNPACK"]]
        for r in rows {
            func f(_ k: String, _ fmt: String = "%.2f") -> String { (r[k] as? Double).map { String(format: fmt, $0) } ?? "-" }
            table.append([r["model"] as! String, "\(r["threads"]!)", r["isa"] as! String, f("median_ms"), f("p90_ms"), f("gflops", "%.1f"),
                          f("arena_mib"), f("xnnpack_median_ms"), f("ratio")])
        }
        print(Table.render(table))
    }

    private func referenceTiming(python: String, model: String, threads: Int) throws -> (median: Double, p90: Double)? {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: python)
        p.arguments = ["scripts/tflite_reference.py", "bench", model, "\(threads)", "\(runs)"]
        let pipe = Pipe()
        p.standardOutput = pipe
        do { try p.run() } catch {
            FileHandle.standardError.write(Data("reference interpreter not run: \(error)\n".utf8))
            return nil
        }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0,
              let obj = try JSONSerialization.jsonObject(with: data) as? [String: Double],
              let m = obj["median_ms"], let q = obj["p90_ms"] else { return nil }
        return (m, q)
    }
}

struct BenchProfile: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "profile",
        abstract: "Time each step of one model's plan (after fusion), slowest first.")
    @Argument(help: "A .tflite file.") var model: String
    @Option(help: "Threads.") var threads = 1
    @Option(help: "Rows to show.") var top = 25

    func run() throws {
        let plan = try ExecutionPlan(model: try TFLiteModel(path: model), threads: threads)
        let input = [Float](repeating: 0.5, count: plan.inputs[0].count)
        // The median of 21 runs per step, robust to a busy machine.
        var samples: [String: [Double]] = [:]
        var order: [String] = []
        for _ in 0..<21 {
            for (i, (step, ms)) in try plan.profile(input).enumerated() {
                let key = "\(i) " + String(step.prefix(150))
                if samples[key] == nil { order.append(key) }
                samples[key, default: []].append(ms)
            }
        }
        let totals = samples.mapValues { $0.sorted()[$0.count / 2] }
        let all = totals.values.reduce(0, +)
        print(String(format: "total %.2f ms over %d steps", all, order.count))
        for k in order.sorted(by: { totals[$0]! > totals[$1]! }).prefix(top) {
            print(String(format: "%7.3f ms %5.1f%%  %@", totals[k]!, 100 * totals[k]! / all, k))
        }
    }
}

struct BenchExtract: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extract",
        abstract: "Time `handpose extract` over clips (full models, 2 hands, video mode) and, with --reference, MediaPipe's Python solution on the same clips.")

    @Argument(help: "Clips or folders (default: ../shared/corpus/clips).")
    var inputs: [String] = ["../shared/corpus/clips"]

    @Option(help: "A Python with mediapipe==0.10.14 and OpenCV (make bench-setup puts one in .venv).")
    var reference: String?

    @OptionGroup var extraction: ExtractionFlags

    @Flag(help: "Print JSON.")
    var json = false

    func run() throws {
        for input in inputs where !FileManager.default.fileExists(atPath: input) {
            throw ValidationError("\(input) is absent; pass clips to time")
        }
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("handpose-bench-\(getpid())")
        defer { try? FileManager.default.removeItem(at: out) }
        let files = try InputFiles.collect(inputs, recursive: false).items.filter { !InputFiles.isStillImage($0.url) }
        let frames = try files.reduce(0) { $0 + (try VideoReader(url: $1.url).info.frameCount) }
        let start = Date()
        let failures = FailureCount()
        _ = try extraction.pipeline(overwrite: true).run(files, into: out) { if case .failed = $0 { failures.add() } }
        let ours = Date().timeIntervalSince(start)
        guard failures.count == 0 else { throw ValidationError("\(failures.count) clips failed to extract; run `handpose extract` on them to see why") }
        var row: [String: Any] = ["clips": files.count, "frames": frames, "handpose_seconds": ours, "handpose_fps": Double(frames) / ours]
        if let reference {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: reference)
            p.arguments = ["scripts/mediapipe_reference.py"] + files.map(\.url.path)
            let pipe = Pipe()
            p.standardOutput = pipe
            p.standardError = FileHandle.nullDevice
            try p.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
            if p.terminationStatus == 0, let r = try JSONSerialization.jsonObject(with: data) as? [String: Double], let fps = r["fps"] {
                row["mediapipe_fps"] = fps
                row["mediapipe_frames"] = r["frames"]
                row["speedup"] = (Double(frames) / ours) / fps
            } else {
                FileHandle.standardError.write(Data("MediaPipe reference did not run (status \(p.terminationStatus)); `make bench-setup` installs it.\n".utf8))
            }
        }
        if json {
            print(String(decoding: try JSONSerialization.data(withJSONObject: row, options: [.prettyPrinted, .sortedKeys]), as: UTF8.self))
            return
        }
        var table = [["clips", "frames", "handpose frames/s", "MediaPipe frames/s", "speed-up"]]
        table.append(["\(files.count)", "\(frames)", String(format: "%.1f", row["handpose_fps"] as! Double),
                      (row["mediapipe_fps"] as? Double).map { String(format: "%.1f", $0) } ?? "-",
                      (row["speedup"] as? Double).map { String(format: "%.2fx", $0) } ?? "-"])
        print(Table.render(table))
    }
}

/// Failed files counted from pipeline events.
final class FailureCount: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    var count: Int { lock.lock(); defer { lock.unlock() }; return value }
    func add() { lock.lock(); value += 1; lock.unlock() }
}

struct BenchDecode: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Decode every frame of clips to RGB (FFmpeg, frame and slice threads) and report frames/s.")

    @Argument(help: "Clips to decode.") var clips: [String]
    @Option(help: "Passes over each clip.") var passes = 3

    func run() throws {
        var table = [["clip", "size", "frames", "frames/s"]]
        for clip in clips {
            var best = 0.0, frames = 0, size = ""
            for _ in 0..<passes {
                let reader = try VideoReader(url: URL(fileURLWithPath: clip))
                size = "\(reader.info.width)x\(reader.info.height)"
                let start = DispatchTime.now().uptimeNanoseconds
                var n = 0
                while let _ = try reader.nextFrame() { n += 1 }
                let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                frames = n
                best = max(best, Double(n) / seconds)
            }
            table.append([clip, size, "\(frames)", String(format: "%.1f", best)])
        }
        print(Table.render(table))
    }
}
