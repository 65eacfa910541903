import ArgumentParser
import Benchmarks
import Foundation
import Inference

struct BenchExtract: ParsableCommand {
    /// The runs of an extraction comparison as a table (`bench extract`, `bench holistic`).
    static func table(_ runs: [BenchJSON.ExtractRow]) -> String {
        var table = [["run", "frames", "frames/s", "CPU ms/frame", "peak MiB", "largest process MiB", "speed-up"]]
        for r in runs {
            table.append([r.run, "\(r.frames)", String(format: "%.1f", r.fps), String(format: "%.1f", r.cpuMsPerFrame),
                          String(format: "%.0f", r.peakMib), String(format: "%.0f", r.largestProcessMib),
                          r.speedup.map { String(format: "%.2fx", $0) } ?? ""])
        }
        return Table.render(table)
    }

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

    @Option(help: "Worker processes on each side (default: the cores this process may run on).")
    var jobs = UsableCores.count

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
        try Bench.check(jobs, "--jobs", Bench.threadRange)
        try Bench.check(rounds, "--rounds", Bench.runRange)
    }

    func run() throws {
        for input in inputs where !FileManager.default.fileExists(atPath: input) {
            throw RuntimeFailure("\(input) is absent; pass clips to time")
        }
        let report = try Bench.measuring { () throws(BenchmarkError) in
            let comparison = try ExtractComparison(inputs: inputs, models: try ModelFolder.fullHandModels(explicit: models), jobs: jobs, body: body,
                                                   referencePython: reference)
            return try comparison.measure(rounds: rounds, profile: profile) { event in
                if case .extractRun(let round, let run, let seconds) = event, !json {
                    Bench.note(String(format: "  round %d: %@: %.1f s", round, run, seconds))
                }
            }
        }
        if json {
            print(try BenchJSON.text(report))
            return
        }
        print(Self.table(report.runs))
        if reference == nil { print("MediaPipe not run: pass --reference .venv-tasks/bin/python (make bench-setup installs it)") }
        if let split = report.profile { print(Self.profile(split)) }
    }

    /// A split by stage (`--profile`) as a table, then how often each gated step ran.
    static func profile(_ split: BenchJSON.ProfileSplit) -> String {
        var t = [["stage (1 job, 1 thread)", "ms/frame", "share"]]
        for s in split.stages {
            t.append([s.stage, String(format: "%.2f", s.msPerFrame), String(format: "%.1f%%", s.percent)])
        }
        let runs = split.runsPerFrame.map { String(format: "%@ a frame: %.2f", $0.what, $0.perFrame) }
        return Table.render(t) + "\n" + runs.joined(separator: "; ")
    }
}
