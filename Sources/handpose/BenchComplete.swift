import Analysis
import ArgumentParser
import Benchmarks
import Foundation
import HandLandmarks
import Keypoints

/// `handpose bench complete`: what `extract --complete` buys and costs, plain and completed side by side.
struct BenchComplete: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "complete",
        abstract: "Measure extract --complete against plain extraction on the same clips: hands found, tracks, handedness flips, error against truth or MediaPipe, time per frame.",
        discussion: """
        Every clip under the folders (recursively) is extracted twice in this process, plain and with \
        --complete (full models, default settings, one engine thread; the order alternates \
        per clip). A clip with ground truth beside it (CLIP.truth.hands.json, as `handpose synth` writes) is \
        compared with it: the share of truth hands found, and the error (palm sizes) of the hands found \
        forward, backward and by interpolation. With --reference, each clip's MediaPipe keypoint file \
        (REFERENCE/NAME.hands.json) is compared with the plain file and with the completed file's hands found \
        as MediaPipe finds them. Every completed file is checked to keep plain extraction's hands bit for bit \
        (landmarks, world landmarks, scores); the run fails if one is not.
        """)

    @Argument(help: "Folders or clips.")
    var inputs: [String]

    @Option(help: "A folder of MediaPipe's keypoint files for the clips (NAME.hands.json), e.g. ../shared/corpus/reference_tasks.")
    var reference: String?

    @Option(help: "Folder with the .tflite files (default: as extract looks for them).")
    var models: String?

    func run() throws {
        let folder = try Bench.measuring { () throws(BenchmarkError) in try ModelFolder.fullHandModels(explicit: models) }
        for input in inputs where !FileManager.default.fileExists(atPath: input) { throw RuntimeFailure("\(input): no such file or folder") }
        let m = try Bench.measuring { () throws(BenchmarkError) in try CompletionBenchmark(inputs: inputs, models: folder, reference: reference) }

        print("extract --complete (\(SequenceCompletion.name)) against plain extraction, \(m.clips) clips in \(inputs.joined(separator: ", ")):")
        var rows = [["", "frames", "with a hand", "hands", "forward", "backward", "interpolated", "tracks", "tracks/clip", "flips", "CPU ms/frame", "wall ms/frame"]]
        for (name, mode) in [("plain", m.plain), ("--complete", m.completed)] {
            let f = mode.figures
            rows.append([name, "\(f.frames)", "\(f.framesWithHand)", "\(f.hands)", "\(f.tracked)", "\(f.backward)",
                         "\(f.interpolated)", "\(f.tracks)", String(format: "%.2f", Double(f.tracks) / Double(max(f.files, 1))), "\(f.flips)",
                         String(format: "%.2f", 1000 * mode.cpuSeconds / Double(max(f.frames, 1))),
                         String(format: "%.2f", 1000 * mode.wallSeconds / Double(max(f.frames, 1)))])
        }
        print(Table.render(rows))
        print(String(format: "cost of --complete: %.2fx CPU time, %.2fx wall time a frame (one engine thread)",
                     m.completed.cpuSeconds / max(m.plain.cpuSeconds, 1e-9), m.completed.wallSeconds / max(m.plain.wallSeconds, 1e-9)))
        print("hands plain extraction found, kept bit for bit by --complete: \(m.handsCompared - m.handsChanged) of \(m.handsCompared)")
        if m.clipsWithTruth > 0 {
            print("\nagainst ground truth (\(m.clipsWithTruth) clips with CLIP.truth.hands.json):")
            var t = [["hands", "truth hands found", "chirality agree", "mean error (palms)", "p95 error"]]
            for (name, c) in [("all, plain", m.plain.truth), ("all, --complete", m.completed.truth)] {
                let truthHands = c.matchedHands + c.handsOnlyInB
                t.append([name, String(format: "%d of %d (%.1f%%)", c.matchedHands, truthHands,
                          100 * Double(c.matchedHands) / Double(max(truthHands, 1))), String(format: "%.1f%%", 100 * c.chiralityAgreement),
                          String(format: "%.4f", c.meanDeviation), String(format: "%.4f", c.p95Deviation)])
            }
            for origin in ["forward", KeypointFile.Hand.backward, KeypointFile.Hand.interpolated] {
                let c = m.truthByOrigin[origin] ?? KeypointComparison()
                t.append(["--complete, \(origin)", "\(c.matchedHands)", c.matchedHands == 0 ? "-" : String(format: "%.1f%%", 100 * c.chiralityAgreement),
                          c.matchedHands == 0 ? "-" : String(format: "%.4f", c.meanDeviation),
                          c.matchedHands == 0 ? "-" : String(format: "%.4f", c.p95Deviation)])
            }
            print(Table.render(t))
        }
        if m.clipsWithReference > 0 {
            print("\nagainst MediaPipe (\(m.clipsWithReference) clips in \(reference!)), on the hands both modes report:")
            var t = [["", "frames", "count agree", "hands", "chirality agree", "mean dev (palms)", "p95 dev"]]
            for (name, c) in [("plain", m.plain.mediapipe), ("--complete, forward hands", m.completed.mediapipe)] {
                t.append([name, "\(c.frames)", String(format: "%.1f%%", 100 * c.countAgreement),
                          "\(c.matchedHands)", String(format: "%.1f%%", 100 * c.chiralityAgreement),
                          String(format: "%.4f", c.meanDeviation), String(format: "%.4f", c.p95Deviation)])
            }
            print(Table.render(t))
        }
        if m.handsChanged > 0 {
            Console.error("--complete changed \(m.handsChanged) of the \(m.handsCompared) hands plain extraction found")
            throw ExitCode(ToolExit.someInputsFailed)
        }
    }
}
