import Extraction
import Foundation
import HandLandmarks
import HolisticLandmarks
import Keypoints

/// handpose's time per frame by stage (`bench extract --profile`, `bench holistic --profile`), measured in
/// this process: one job, one engine thread, one decoding thread.
enum StageSplit {
    /// Extracts every clip in `clips` with the full models in `models`, writing into `scratch`.
    static func measure(clips: [String], models: URL, scratch: URL) throws(BenchmarkError) -> BenchJSON.ProfileSplit {
        let tracker = try attempt(BenchmarkError.models) {
            try HandTracker(models: try HandModels(directory: models, complexity: .full), options: HandTrackerOptions(), threads: 1)
        }
        let (total, cpu) = try extract(clips, scratch: scratch) { clip, target in
            try KeypointExtraction.extract(URL(fileURLWithPath: clip), sourcePath: clip, tracker: tracker, tool: .handpose,
                                           to: target, decodeThreads: 1).profile
        }
        let t = total.tracker, n = Double(max(1, total.frames))
        return split([("decode (FFmpeg, own thread)", total.decoding.decode), ("colour conversion to RGB (own thread)", total.decoding.convert),
                      ("letterbox (palm input)", t.letterbox), ("palm model", t.palmModel),
                      ("palm decoding (anchors, NMS)", t.palmDecode), ("crops (landmark input)", t.crop),
                      ("landmark model", t.landmarkModel), ("landmark decoding", t.landmarkDecode),
                      ("tracking (regions, association)", t.tracking), ("writing keypoints", total.writing)],
                     total: total, cpuMs: cpu,
                     runs: [.init("palm model", perFrame: Double(t.palmRuns) / n), .init("landmark model", perFrame: Double(t.landmarkRuns) / n)])
    }

    /// The same for `extract --holistic --format pose` (`refineFace`: with the face mesh with attention): the
    /// pose, the hands and the face as parts of a frame.
    static func measureHolistic(clips: [String], models: URL, refineFace: Bool, scratch: URL) throws(BenchmarkError) -> BenchJSON.ProfileSplit {
        // As a worker runs it: no hand tracker (Holistic finds the hands from the body without one).
        let holistic = try attempt(BenchmarkError.models) {
            try HolisticTracker(models: try HolisticModels(directory: models, refineFace: refineFace), threads: 1)
        }
        let settings = ExtractionSettings(holistic: HolisticOptions(refineFace: refineFace))
        let (total, cpu) = try extract(clips, scratch: scratch) { clip, target in
            // Named by the file alone, so that its outputs land in the target's folder.
            try KeypointExtraction.extract(URL(fileURLWithPath: clip), sourcePath: URL(fileURLWithPath: clip).lastPathComponent,
                                           tracker: nil, holistic: holistic,
                                           settings: settings, tool: .handpose, formats: [.json, .pose],
                                           root: target.deletingLastPathComponent(), decodeThreads: 1).profile
        }
        let h = total.holistic, n = Double(max(1, total.frames))
        return split([("decode (FFmpeg, own thread)", total.decoding.decode), ("colour conversion to RGB (own thread)", total.decoding.convert),
                      ("pose (detector when lost, landmarks, smoothing)", h.body), ("hands (re-crop and landmark models per arm)", h.hands),
                      ("face (detector in its region, mesh)", h.face), ("writing keypoints and .pose", total.writing)],
                     total: total, cpuMs: cpu,
                     runs: [.init("frames with a person (face detector)", perFrame: Double(h.people) / n),
                            .init("arms past the gate (re-crop and hand landmark models)", perFrame: Double(h.arms) / n)])
    }

    /// Runs `one` on each clip (a target file in `scratch` each), summing the profiles; and the CPU
    /// milliseconds of this process meanwhile.
    private static func extract(_ clips: [String], scratch: URL,
                                _ one: (String, URL) throws -> KeypointExtraction.Profile) throws(BenchmarkError) -> (KeypointExtraction.Profile, Double) {
        var total = KeypointExtraction.Profile()
        let cpuBefore = MeasuredRun.cpuSecondsOfThisProcess()
        for (i, clip) in clips.enumerated() {
            let folder = scratch.appendingPathComponent("profile-\(i)")
            try attempt({ BenchmarkError.inputs(reason: "cannot prepare \(folder.path): \($0)") }) {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            }
            let target = folder.appendingPathComponent(URL(fileURLWithPath: clip).lastPathComponent + ".hands.json")
            total.add(try attempt(BenchmarkError.extraction) { try one(clip, target) })
        }
        return (total, 1000 * (MeasuredRun.cpuSecondsOfThisProcess() - cpuBefore))
    }

    /// The rows: each stage's milliseconds a frame and share of their sum, the sum, the wall clock, the CPU time.
    private static func split(_ stages: [(String, Duration)], total: KeypointExtraction.Profile, cpuMs: Double,
                              runs: [BenchJSON.ProfileSplit.Runs]) -> BenchJSON.ProfileSplit {
        let n = Double(max(1, total.frames))
        let sum = stages.reduce(0) { $0 + milliseconds($1.1) }
        typealias Stage = BenchJSON.ProfileSplit.Stage
        var rows = stages.map { Stage(stage: $0.0, msPerFrame: milliseconds($0.1) / n, percent: 100 * milliseconds($0.1) / sum) }
        rows.append(Stage(stage: "sum of stages", msPerFrame: sum / n, percent: 100))
        rows.append(Stage(stage: "wall clock", msPerFrame: milliseconds(total.wall) / n, percent: 100 * milliseconds(total.wall) / sum))
        rows.append(Stage(stage: "CPU time, all threads", msPerFrame: cpuMs / n, percent: 100 * cpuMs / sum))
        return BenchJSON.ProfileSplit(stages: rows, runsPerFrame: runs)
    }
}
