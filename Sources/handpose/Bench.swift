import ArgumentParser
import Extraction
import FileSystem
import Foundation
import HandLandmarks
import Inference
import Keypoints
import Support
import VideoIO

/// `handpose bench`: speed measurements (never tests: no limits, just figures and ratios).
struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure handpose's speed, beside the reference implementations when available.",
        subcommands: [BenchModels.self, BenchExtract.self, BenchDecode.self, BenchProfile.self, BenchComplete.self]
    )
}

struct BenchModels: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "models",
        abstract: "Time each model (the four hand models, then the body's two) with our engine on 1 thread and on all cores; with --reference, TFLite's XNNPACK too.",
        discussion: "Prints the kernels that ran (the best instruction set this CPU runs; HANDPOSE_MAX_ISA=baseline|avx2|avx512 caps it), median and p90 milliseconds, GFLOP/s (2 x multiply-adds / median) and our/XNNPACK ratio (below 1 is faster)."
    )

    @Option(help: "Only this thread count (default: 1 and all cores).")
    var threads: Int?

    @Option(help: "Timed runs per model and thread count (after 3 warm-up runs).")
    var runs = 30

    @Option(help: "Rounds; each times every model and thread count in turn, ours and the reference alternating, and the best round's median counts, so a burst of load on a shared machine falls neither on one side only nor on every round of one model.")
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
        // Found before any timing, so a missing script is said at once, with every place looked.
        let script: URL?
        script = try reference.map { _ in try InstalledFiles.script("tflite_reference.py") }
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let threadCounts = threads.map { [$0] } ?? Array(Set([1, cores])).sorted()
        // Every model and thread count is planned first; then each round times them all in turn, ours and
        // the reference alternating, so the rounds of one model lie minutes apart and a burst of load on a
        // shared machine cannot fall on all of them (nor on one side only).
        var cases: [(name: String, path: String, threads: Int, plan: ExecutionPlan, input: [Float])] = []
        // The hand models, then the body's (`extract --body`), found beside the full hand models.
        for name in ["palm_detection_full", "hand_landmark_full", "palm_detection_lite", "hand_landmark_lite", "pose_detection", "pose_landmark_full"] {
            let model: TFLiteModel
            let path: String
            do {
                let folder = try InstalledFiles(.models, explicit: models).folder(holding: HandModels.fileNames(name.hasSuffix("lite") ? .lite : .full))
                path = folder.appendingPathComponent("\(name).tflite").path
                model = try TFLiteModel(path: path)
            } catch {
                throw RuntimeFailure("\(error)")
            }
            for t in threadCounts {
                let plan = try ExecutionPlan(model: model, threads: t)
                var rng = SystemRandomNumberGenerator()
                let input = (0..<plan.inputs[0].count).map { _ in Float.random(in: 0...1, using: &rng) }
                for _ in 0..<3 { try plan.run(input) }
                cases.append((name, path, t, plan, input))
            }
        }
        var ours = [(median: Double, p90: Double)?](repeating: nil, count: cases.count)
        var ref = [(median: Double, p90: Double)?](repeating: nil, count: cases.count)
        for round in 0..<rounds {
            for (i, c) in cases.enumerated() {
                var times: [Double] = []
                for _ in 0..<runs {
                    let start = DispatchTime.now().uptimeNanoseconds
                    try c.plan.run(c.input)
                    times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
                }
                times.sort()
                let median = times[times.count / 2], p90 = times[min(times.count - 1, Int(Double(times.count) * 0.9))]
                if median < ours[i]?.median ?? .infinity { ours[i] = (median, p90) }
                if let reference, let script, let r = try referenceTiming(python: reference, script: script, model: c.path, threads: c.threads),
                   r.median < ref[i]?.median ?? .infinity { ref[i] = r }
                if !json {
                    FileHandle.standardError.write(Data("  round \(round + 1): \(c.name) threads=\(c.threads): \(String(format: "%.2f", median)) ms\n".utf8))
                }
            }
        }
        let rows = cases.enumerated().map { i, c in
            let (median, p90) = ours[i]!
            return BenchJSON.ModelRow(model: c.name, threads: c.threads, isa: c.plan.isa.rawValue, medianMs: median, p90Ms: p90,
                                      gflops: 2 * Double(c.plan.multiplyAdds) / median / 1e6, arenaMib: Double(c.plan.arenaBytes) / 1048576,
                                      xnnpackMedianMs: ref[i]?.median, xnnpackP90Ms: ref[i]?.p90, ratio: ref[i].map { median / $0.median })
        }
        if json {
            print(try BenchJSON.text(rows))
            return
        }
        var table = [["model", "threads", "kernels", "median ms", "p90 ms", "GFLOP/s", "arena MiB", "XNNPACK ms", "ours/XNNPACK"]]
        for r in rows {
            func f(_ v: Double?, _ fmt: String = "%.2f") -> String { v.map { String(format: fmt, $0) } ?? "-" }
            table.append([r.model, "\(r.threads)", r.isa, f(r.medianMs), f(r.p90Ms), f(r.gflops, "%.1f"),
                          f(r.arenaMib), f(r.xnnpackMedianMs), f(r.ratio)])
        }
        print(Table.render(table))
    }

    private func referenceTiming(python: String, script: URL, model: String, threads: Int) throws -> (median: Double, p90: Double)? {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: python)
        p.arguments = [script.path, "bench", model, "\(threads)", "\(runs)"]
        let pipe = Pipe()
        p.standardOutput = pipe
        do { try p.run() } catch {
            FileHandle.standardError.write(Data("reference interpreter not run: \(error)\n".utf8))
            return nil
        }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0, let timing = try? BenchJSON.decoder.decode(BenchJSON.ReferenceTiming.self, from: data) else { return nil }
        return (timing.medianMs, timing.p90Ms)
    }
}

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
    }

    func run() throws {
        let plan = try ExecutionPlan(model: try TFLiteModel(path: model), threads: threads, fusingBlocks: !unfused)
        let input = [Float](repeating: 0.5, count: plan.inputs[0].count)
        if againstUnfused {
            try compareFusion(plan, input: input)
            return
        }
        // The median of 21 runs per step, robust to a busy machine.
        var samples: [String: [Double]] = [:]
        var order: [String] = []
        for _ in 0..<21 {
            for (i, (step, ms)) in try plan.profile(input).enumerated() {
                let key = "\(i) " + String(step.prefix(400))
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

extension BenchProfile {
    /// Alternates runs of `plan` and of the same model planned without block fusion, so that a burst
    /// of load on a shared machine falls on both.
    func compareFusion(_ plan: ExecutionPlan, input: [Float]) throws {
        let other = try ExecutionPlan(model: try TFLiteModel(path: model), threads: threads, fusingBlocks: false)
        var times: [[Double]] = [[], []]
        for i in 0..<max(1, runs) {
            for which in i % 2 == 0 ? [0, 1] : [1, 0] {
                let start = DispatchTime.now().uptimeNanoseconds
                try (which == 0 ? plan : other).run(input)
                times[which].append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            }
        }
        // The claim the comparison rests on, checked on the input it timed.
        for i in 0..<plan.outputs.count where !zip(plan.output(i), other.output(i)).allSatisfy({ $0.bitPattern == $1.bitPattern }) {
            FileHandle.standardError.write(Data("\(model): output \(i) of the fused plan differs from the unfused plan's\n".utf8))
            throw ExitCode.failure
        }
        let (fused, plain) = (times[0].sorted(), times[1].sorted())
        func at(_ t: [Double], _ q: Double) -> Double { t[Int(Double(t.count - 1) * q)] }
        print(String(format: "%@, %d thread(s), %d runs each: fused median %.3f ms, p10 %.3f (%d steps, arena %.2f MiB); "
                     + "unfused median %.3f ms, p10 %.3f (%d steps, arena %.2f MiB); fused/unfused %.3f (median), %.3f (p10)",
                     (model as NSString).lastPathComponent, threads, fused.count, at(fused, 0.5), at(fused, 0.1), plan.stepCount,
                     Double(plan.arenaBytes) / 1_048_576, at(plain, 0.5), at(plain, 0.1), other.stepCount,
                     Double(other.arenaBytes) / 1_048_576, at(fused, 0.5) / at(plain, 0.5), at(fused, 0.1) / at(plain, 0.1)))
    }
}

struct BenchExtract: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extract",
        abstract: "Time `handpose extract` over clips beside MediaPipe (Tasks) as its users run it, in one run.",
        discussion: """
        Both sides run the same clips with the same settings (full models, 2 hands, video mode, confidences 0.5; \
        MediaPipe Tasks' HandLandmarker with a bundle of the same weights, frames read by OpenCV): handpose with \
        --jobs N (default: every core) and with one job, MediaPipe in a process pool of N workers and in one \
        process. With one job handpose's engine uses every core; MediaPipe's XNNPACK keeps its default (one \
        thread on Linux), so compare that pair by CPU time. Each run is a separate process tree, timed from \
        outside: wall clock, CPU time (user + system of every process) and peak memory (the highest sum, sampled \
        every 0.1 s, of the processes' proportional set sizes, so pages shared between processes count once; and \
        the largest single process's resident peak). Both sides must read the same frames and find about the same \
        hands. The runs alternate for --rounds rounds; each row is its fastest round. --profile also splits \
        handpose's time per frame into its stages (one job, one engine thread, one decoding thread).
        """)

    @Argument(help: "Clips or folders (default: ../shared/corpus/clips).")
    var inputs: [String] = ["../shared/corpus/clips"]

    @Option(help: "A Python with mediapipe (Tasks) and OpenCV; its MediaPipe version names the rows (make bench-setup puts the newest release in .venv-tasks).")
    var reference: String?

    @Option(help: "Worker processes on each side (default: the number of cores).")
    var jobs = ProcessInfo.processInfo.activeProcessorCount

    @Option(help: "Rounds; each configuration's fastest counts, so a burst of load on a shared machine does not fall on one side only.")
    var rounds = 2

    @Option(help: "Folder with the .tflite files (default: as extract looks for them).")
    var models: String?

    @Flag(help: "Also split handpose's time per frame into decode, colour conversion, letterbox, palm model, palm decoding, crops, landmark model, landmark decoding, tracking and writing.")
    var profile = false

    @Flag(help: "Also find bodies: handpose extract --body against MediaPipe's HandLandmarker and PoseLandmarker both run on every frame (the two Tasks a user runs for hands and body).")
    var body = false

    @Flag(help: "Print JSON.")
    var json = false

    func validate() throws {
        guard jobs >= 1, rounds >= 1 else { throw ValidationError("--jobs and --rounds must be positive") }
    }

    /// `mediapipe.__version__` as the reference Python imports it.
    static func mediapipeVersion(_ python: String) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: python)
        p.arguments = ["-c", "import mediapipe; print(mediapipe.__version__)"]
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = FileHandle.nullDevice
        do { try p.run() } catch { throw RuntimeFailure("--reference \(python) cannot be run (\(error.localizedDescription))") }
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        p.waitUntilExit()
        guard p.terminationStatus == 0, !text.isEmpty else {
            throw RuntimeFailure("--reference \(python) has no mediapipe; `make bench-setup` installs it in .venv-tasks")
        }
        return text
    }

    func run() throws {
        for input in inputs where !FileManager.default.fileExists(atPath: input) {
            throw RuntimeFailure("\(input) is absent; pass clips to time")
        }
        let folder: URL
        do { folder = try InstalledFiles(.models, explicit: models).folder(holding: HandModels.fileNames(.full)) } catch { throw RuntimeFailure("\(error)") }
        let clips = try InputFiles.collect(inputs, recursive: false).items.filter { !InputFiles.isStillImage($0.url) }.map(\.url.path)
        guard !clips.isEmpty else { throw RuntimeFailure("no clips in \(inputs.joined(separator: ", "))") }
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("handpose-bench-\(getpid())")
        defer { try? FileManager.default.removeItem(at: out) }
        let me = MeasuredRun.executablePath
        let cores = ProcessInfo.processInfo.activeProcessorCount

        struct Side { var name: String; var executable: String; var arguments: [String]; var ours: Bool }
        func handpose(_ name: String, jobs: Int) -> Side {
            Side(name: name, executable: me, arguments: ["extract"] + clips + ["-o", out.path, "--overwrite", "--quiet", "--jobs", "\(jobs)",
                                                        "--models", folder.path] + (body ? ["--body"] : []), ours: true)
        }
        // Found before any run, so a missing script is said at once, with every place looked.
        let script: URL?
        script = try reference.map { _ in try InstalledFiles.script("mediapipe_bench.py") }
        // The rows name the MediaPipe release that ran, as that Python reports it.
        let release = try reference.map { try Self.mediapipeVersion($0) } ?? ""
        func mediapipe(_ name: String, workers: Int) -> Side? {
            guard let reference, let script else { return nil }
            return Side(name: name, executable: reference, arguments: [script.path, body ? "body" : "tasks", "--models", folder.path,
                                                                       "--workers", "\(workers)"] + clips, ours: false)
        }
        // Row names say how each side uses the cores: with one job handpose's engine runs on every core,
        // while MediaPipe's XNNPACK keeps its default of one thread on Linux.
        var sides: [Side] = []
        let what = body ? " (hands + body)" : ""
        if jobs > 1 {
            sides.append(handpose("handpose, \(jobs) jobs\(what)", jobs: jobs))
            if let m = mediapipe("MediaPipe \(release), \(jobs) processes\(what)", workers: jobs) { sides.append(m) }
        }
        sides.append(handpose("handpose, 1 job (\(cores) engine threads)\(what)", jobs: 1))
        if let m = mediapipe("MediaPipe \(release), 1 process\(what)", workers: 1) { sides.append(m) }

        var best: [String: MeasuredRun] = [:]
        var frames = 0, hands = 0
        for round in 1...rounds {
            for side in sides {
                let run = try MeasuredRun(executable: side.executable, arguments: side.arguments)
                guard run.status == 0 else {
                    throw RuntimeFailure("\(side.name) failed (status \(run.status)): \(run.errorTail)"
                                          + (side.ours ? "" : "; `make bench-setup` installs MediaPipe in .venv-tasks"))
                }
                // Both sides must have read the same frames and found about the same hands (a task bundle
                // without the right models would be fast and find none), else the times mean nothing.
                let counted: (frames: Int, hands: Int)
                if side.ours {
                    counted = try Self.decodedFramesAndHands(in: out)
                    (frames, hands) = counted
                } else {
                    guard let r = try? BenchJSON.decoder.decode(BenchJSON.ReferenceCounts.self, from: run.output) else {
                        throw RuntimeFailure("\(side.name) printed no frame and hand counts: \(String(decoding: run.output.prefix(300), as: UTF8.self))")
                    }
                    counted = (r.frames, r.hands)
                }
                if counted.frames != frames || abs(counted.hands - hands) > max(10, hands / 10) {
                    throw RuntimeFailure("\(side.name) read \(counted.frames) frames and found \(counted.hands) hands where handpose read "
                                          + "\(frames) and found \(hands); the runs are not comparable")
                }
                if run.seconds < best[side.name]?.seconds ?? .infinity { best[side.name] = run }
                if !json {
                    FileHandle.standardError.write(Data(String(format: "  round %d: %@: %.1f s\n", round, side.name, run.seconds).utf8))
                }
            }
        }
        var rows = sides.map { side in
            let r = best[side.name]!
            return BenchJSON.ExtractRow(run: side.name, frames: frames, seconds: r.seconds, fps: Double(frames) / r.seconds,
                                        cpuMsPerFrame: 1000 * r.cpuSeconds / Double(frames), peakMib: Double(r.peakBytes) / 1048576,
                                        largestProcessMib: Double(r.largestProcessBytes) / 1048576, speedup: nil)
        }
        // Each handpose row against the MediaPipe row of the same shape, which follows it.
        for i in rows.indices where rows[i].run.hasPrefix("handpose") && i + 1 < rows.count && rows[i + 1].run.hasPrefix("MediaPipe") {
            rows[i].speedup = rows[i].fps / rows[i + 1].fps
        }
        let split = profile ? try profileSplit(clips: clips, folder: folder, out: out) : nil
        if json {
            print(try BenchJSON.text(BenchJSON.ExtractReport(runs: rows, profile: split)))
            return
        }
        var table = [["run", "frames", "frames/s", "CPU ms/frame", "peak MiB", "largest process MiB", "speed-up"]]
        for r in rows {
            table.append([r.run, "\(frames)", String(format: "%.1f", r.fps), String(format: "%.1f", r.cpuMsPerFrame),
                          String(format: "%.0f", r.peakMib), String(format: "%.0f", r.largestProcessMib),
                          r.speedup.map { String(format: "%.2fx", $0) } ?? ""])
        }
        print(Table.render(table))
        if reference == nil { print("MediaPipe not run: pass --reference .venv-tasks/bin/python (make bench-setup installs it)") }
        if let split {
            var t = [["stage (1 job, 1 thread)", "ms/frame", "share"]]
            for s in split.stages {
                t.append([s.stage, String(format: "%.2f", s.msPerFrame), String(format: "%.1f%%", s.percent)])
            }
            print(Table.render(t))
            print(String(format: "palm model runs a frame: %.2f; landmark model runs a frame: %.2f",
                         split.palmRunsPerFrame, split.landmarkRunsPerFrame))
        }
    }

    /// The frames and hands in the keypoint files under `folder`.
    static func decodedFramesAndHands(in folder: URL) throws -> (frames: Int, hands: Int) {
        var frames = 0, hands = 0
        guard let walk = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { return (0, 0) }
        for case let url as URL in walk where url.path.hasSuffix(".hands.json") {
            let file = try KeypointFile.load(url)
            frames += file.frames.count
            hands += file.frames.reduce(0) { $0 + $1.hands.count }
        }
        return (frames, hands)
    }

    /// handpose's time per frame by stage, in this process: one job, one engine thread, one decoding thread.
    private func profileSplit(clips: [String], folder: URL, out: URL) throws -> BenchJSON.ProfileSplit {
        let models = try HandModels(directory: folder, complexity: .full)
        let tracker = try HandTracker(models: models, options: HandTrackerOptions(), threads: 1)
        var total = KeypointExtraction.Profile()
        let cpuSeconds = MeasuredRun.cpuSecondsOfThisProcess
        let cpuBefore = cpuSeconds()
        for (i, clip) in clips.enumerated() {
            let target = out.appendingPathComponent("profile-\(i).hands.json")
            total.add(try KeypointExtraction.extract(URL(fileURLWithPath: clip), sourcePath: clip, tracker: tracker, tool: .handpose,
                                                     to: target, decodeThreads: 1).profile)
        }
        let t = total.tracker, d = total.decoding
        let n = Double(total.frames)
        let stages: [(String, Duration)] = [
            ("decode (FFmpeg, own thread)", d.decode), ("colour conversion to RGB (own thread)", d.convert),
            ("letterbox (palm input)", t.letterbox), ("palm model", t.palmModel),
            ("palm decoding (anchors, NMS)", t.palmDecode), ("crops (landmark input)", t.crop),
            ("landmark model", t.landmarkModel), ("landmark decoding", t.landmarkDecode),
            ("tracking (regions, association)", t.tracking), ("writing keypoints", total.writing),
        ]
        func ms(_ d: Duration) -> Double { Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15 }
        let sum = stages.reduce(0) { $0 + ms($1.1) }
        typealias Stage = BenchJSON.ProfileSplit.Stage
        var rows = stages.map { Stage(stage: $0.0, msPerFrame: ms($0.1) / n, percent: 100 * ms($0.1) / sum) }
        rows.append(Stage(stage: "sum of stages", msPerFrame: sum / n, percent: 100))
        rows.append(Stage(stage: "wall clock", msPerFrame: ms(total.wall) / n, percent: 100 * ms(total.wall) / sum))
        let cpu = 1000 * (cpuSeconds() - cpuBefore)
        rows.append(Stage(stage: "CPU time, all threads", msPerFrame: cpu / n, percent: 100 * cpu / sum))
        return BenchJSON.ProfileSplit(stages: rows, palmRunsPerFrame: Double(t.palmRuns) / n, landmarkRunsPerFrame: Double(t.landmarkRuns) / n)
    }
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

extension InstalledFiles {
    /// The script `name`, or a failure to run naming every place looked: a missing file is not a
    /// usage error, so no usage text follows.
    static func script(_ name: String) throws -> URL {
        do { return try InstalledFiles(.scripts).url(for: name) } catch {
            throw RuntimeFailure("\(error)")
        }
    }
}
