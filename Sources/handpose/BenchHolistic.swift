import ArgumentParser
import Benchmarks
import Foundation
import Inference

struct BenchHolistic: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "holistic",
        abstract: "Time `handpose extract --holistic` beside pose-format's video_to_pose and videos_to_poses, in one run.",
        discussion: """
        The clips videos_to_poses takes (mp4, mov, avi, mkv, flv, wmv, webm) among the inputs. handpose with --jobs N \
        (default: every core) against videos_to_poses --num-workers N, and handpose with one job against video_to_pose \
        run once per clip, one after another (MediaPipe 0.10.14's Holistic; its XNNPACK keeps one thread). Each run is a \
        separate process tree timed from outside: wall clock, CPU time of every process, peak memory (the highest sum \
        of the processes' proportional set sizes, sampled every 0.1 s, and the largest single process's resident peak). \
        The runs alternate for --rounds rounds; each row is its fastest round.
        """)

    @Argument(help: "Clips or folders (default: ../shared/corpus/clips).")
    var inputs: [String] = ["../shared/corpus/clips"]

    @Option(help: "The folder holding pose-format's video_to_pose and videos_to_poses (make holistic-venv: .venv-holistic/bin).")
    var reference = ".venv-holistic/bin"

    @Option(help: "Worker processes on each side (default: the cores this process may run on).")
    var jobs = UsableCores.count

    @Option(help: "Rounds; each configuration's fastest counts.")
    var rounds = 2

    @Option(help: "Folder with the .tflite files (default: as extract looks for them).")
    var models: String?

    @Flag(help: "Both sides run the face mesh with attention: extract --refine-face, and pose-format's --additional-config refine_face_landmarks=true.")
    var refineFace = false

    @Flag(help: "Also split handpose's time per frame into decode, colour conversion, the pose, the hands, the face and writing (one job, one engine thread, one decoding thread), with how often the gated models ran.")
    var profile = false

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
            let comparison = try HolisticComparison(inputs: inputs, models: try ModelFolder.holisticModels(explicit: models, refineFace: refineFace),
                                                    jobs: jobs, referenceBin: URL(fileURLWithPath: reference), refineFace: refineFace)
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
        print(BenchExtract.table(report.runs))
        if let split = report.profile { print(BenchExtract.profile(split)) }
    }
}
