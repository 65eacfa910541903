import Analysis
import ArgumentParser
import Datasets
import Extraction
import Foundation
import HandLandmarks
import Keypoints
import Support
import VideoIO

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
        let folder: URL
        do { folder = try InstalledFiles(.models, explicit: models).folder(holding: HandModels.fileNames(.full)) } catch { throw RuntimeFailure("\(error)") }
        for input in inputs where !FileManager.default.fileExists(atPath: input) { throw RuntimeFailure("\(input): no such file or folder") }
        let clips = try InputFiles.collect(inputs, recursive: true).items.filter { !InputFiles.isStillImage($0.url) }
        guard !clips.isEmpty else { throw RuntimeFailure("no clips in \(inputs.joined(separator: ", "))") }
        let tracker: HandTracker
        do {
            tracker = try HandTracker(models: try HandModels(directory: folder, complexity: .full), options: HandTrackerOptions(), threads: 1)
        } catch { throw RuntimeFailure("\(error)") }

        var figures = [false: SequenceFigures(), true: SequenceFigures()]
        var cpu = [false: 0.0, true: 0.0], wall = [false: 0.0, true: 0.0]
        var truthAll = [false: KeypointComparison(), true: KeypointComparison()]
        var truthByOrigin: [String: KeypointComparison] = [:]
        var mediapipe = [false: KeypointComparison(), true: KeypointComparison()]
        var changed = 0, compared = 0, withTruth = 0, withReference = 0
        for (n, clip) in clips.enumerated() {
            var files: [Bool: KeypointFile] = [:]
            for completing in n % 2 == 0 ? [false, true] : [true, false] {
                let (cpu0, wall0) = (MeasuredRun.cpuSecondsOfThisProcess(), ContinuousClock.now)
                do {
                    files[completing] = try KeypointExtraction.extract(clip.url, sourcePath: clip.relative, tracker: tracker,
                                                                       settings: ExtractionSettings(hands: tracker.options, completion: completing), tool: .handpose)
                } catch { throw RuntimeFailure("\(error)") }
                cpu[completing]! += MeasuredRun.cpuSecondsOfThisProcess() - cpu0
                wall[completing]! += Self.seconds(ContinuousClock.now - wall0)
            }
            let plain = files[false]!, completed = files[true]!
            figures[false]!.merge(SequenceFigures(plain))
            figures[true]!.merge(SequenceFigures(completed))
            let kept = SequenceFigures.changedHands(plain: plain, completed: completed)
            changed += kept.changed
            compared += kept.compared
            let truthURL = URL(fileURLWithPath: clip.url.path + ".truth.hands.json")
            if FileManager.default.fileExists(atPath: truthURL.path) {
                withTruth += 1
                let truth = try KeypointFile.load(truthURL)
                truthAll[false]!.merge(try KeypointComparison.compare(plain, truth, path: clip.relative))
                truthAll[true]!.merge(try KeypointComparison.compare(completed, truth, path: clip.relative))
                for origin in [nil, KeypointFile.Hand.backward, KeypointFile.Hand.interpolated] {
                    truthByOrigin[origin ?? "forward", default: KeypointComparison()]
                        .merge(try KeypointComparison.compare(SequenceFigures.only(completed, origin: origin), truth, path: clip.relative))
                }
            }
            if let reference {
                let name = clip.url.lastPathComponent + ".hands.json"
                let url = URL(fileURLWithPath: reference).appendingPathComponent(name)
                if FileManager.default.fileExists(atPath: url.path) {
                    withReference += 1
                    let mp = try KeypointFile.load(url)
                    mediapipe[false]!.merge(try KeypointComparison.compare(plain, mp, path: clip.relative))
                    mediapipe[true]!.merge(try KeypointComparison.compare(SequenceFigures.only(completed, origin: nil), mp, path: clip.relative))
                }
            }
        }

        print("extract --complete (\(SequenceCompletion.name)) against plain extraction, \(clips.count) clips in \(inputs.joined(separator: ", ")):")
        var rows = [["", "frames", "with a hand", "hands", "forward", "backward", "interpolated", "tracks", "tracks/clip", "flips", "CPU ms/frame", "wall ms/frame"]]
        for completing in [false, true] {
            let f = figures[completing]!
            rows.append([completing ? "--complete" : "plain", "\(f.frames)", "\(f.framesWithHand)", "\(f.hands)", "\(f.tracked)", "\(f.backward)",
                         "\(f.interpolated)", "\(f.tracks)", String(format: "%.2f", Double(f.tracks) / Double(max(f.files, 1))), "\(f.flips)",
                         String(format: "%.2f", 1000 * cpu[completing]! / Double(max(f.frames, 1))),
                         String(format: "%.2f", 1000 * wall[completing]! / Double(max(f.frames, 1)))])
        }
        print(Table.render(rows))
        print(String(format: "cost of --complete: %.2fx CPU time, %.2fx wall time a frame (one engine thread)",
                     cpu[true]! / max(cpu[false]!, 1e-9), wall[true]! / max(wall[false]!, 1e-9)))
        print("hands plain extraction found, kept bit for bit by --complete: \(compared - changed) of \(compared)")
        if withTruth > 0 {
            print("\nagainst ground truth (\(withTruth) clips with CLIP.truth.hands.json):")
            var t = [["hands", "truth hands found", "chirality agree", "mean error (palms)", "p95 error"]]
            for completing in [false, true] {
                let c = truthAll[completing]!
                let truthHands = c.matchedHands + c.handsOnlyInB
                t.append([completing ? "all, --complete" : "all, plain", String(format: "%d of %d (%.1f%%)", c.matchedHands, truthHands,
                          100 * Double(c.matchedHands) / Double(max(truthHands, 1))), String(format: "%.1f%%", 100 * c.chiralityAgreement),
                          String(format: "%.4f", c.meanDeviation), String(format: "%.4f", c.p95Deviation)])
            }
            for origin in ["forward", KeypointFile.Hand.backward, KeypointFile.Hand.interpolated] {
                let c = truthByOrigin[origin] ?? KeypointComparison()
                t.append(["--complete, \(origin)", "\(c.matchedHands)", c.matchedHands == 0 ? "-" : String(format: "%.1f%%", 100 * c.chiralityAgreement),
                          c.matchedHands == 0 ? "-" : String(format: "%.4f", c.meanDeviation),
                          c.matchedHands == 0 ? "-" : String(format: "%.4f", c.p95Deviation)])
            }
            print(Table.render(t))
        }
        if withReference > 0 {
            print("\nagainst MediaPipe (\(withReference) clips in \(reference!)), on the hands both modes report:")
            var t = [["", "frames", "count agree", "hands", "chirality agree", "mean dev (palms)", "p95 dev"]]
            for completing in [false, true] {
                let c = mediapipe[completing]!
                t.append([completing ? "--complete, forward hands" : "plain", "\(c.frames)", String(format: "%.1f%%", 100 * c.countAgreement),
                          "\(c.matchedHands)", String(format: "%.1f%%", 100 * c.chiralityAgreement),
                          String(format: "%.4f", c.meanDeviation), String(format: "%.4f", c.p95Deviation)])
            }
            print(Table.render(t))
        }
        if changed > 0 {
            FileHandle.standardError.write(Data("error: --complete changed \(changed) of the \(compared) hands plain extraction found\n".utf8))
            throw ExitCode(ToolExit.someInputsFailed)
        }
    }


    static func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }
}
