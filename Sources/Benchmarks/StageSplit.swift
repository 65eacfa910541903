import Extraction
import Foundation
import HandLandmarks
import Keypoints

/// handpose's time per frame by stage (`bench extract --profile`), measured in this process: one job,
/// one engine thread, one decoding thread.
enum StageSplit {
    /// Extracts every clip in `clips` with the full models in `models`, writing into `scratch`.
    static func measure(clips: [String], models: URL, scratch: URL) throws(BenchmarkError) -> BenchJSON.ProfileSplit {
        let tracker = try attempt(BenchmarkError.models) {
            try HandTracker(models: try HandModels(directory: models, complexity: .full), options: HandTrackerOptions(), threads: 1)
        }
        var total = KeypointExtraction.Profile()
        let cpuBefore = MeasuredRun.cpuSecondsOfThisProcess()
        for (i, clip) in clips.enumerated() {
            let target = scratch.appendingPathComponent("profile-\(i).hands.json")
            total.add(try attempt(BenchmarkError.extraction) {
                try KeypointExtraction.extract(URL(fileURLWithPath: clip), sourcePath: clip, tracker: tracker, tool: .handpose,
                                               to: target, decodeThreads: 1).profile
            })
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
        let sum = stages.reduce(0) { $0 + milliseconds($1.1) }
        typealias Stage = BenchJSON.ProfileSplit.Stage
        var rows = stages.map { Stage(stage: $0.0, msPerFrame: milliseconds($0.1) / n, percent: 100 * milliseconds($0.1) / sum) }
        rows.append(Stage(stage: "sum of stages", msPerFrame: sum / n, percent: 100))
        rows.append(Stage(stage: "wall clock", msPerFrame: milliseconds(total.wall) / n, percent: 100 * milliseconds(total.wall) / sum))
        let cpu = 1000 * (MeasuredRun.cpuSecondsOfThisProcess() - cpuBefore)
        rows.append(Stage(stage: "CPU time, all threads", msPerFrame: cpu / n, percent: 100 * cpu / sum))
        return BenchJSON.ProfileSplit(stages: rows, palmRunsPerFrame: Double(t.palmRuns) / n, landmarkRunsPerFrame: Double(t.landmarkRuns) / n)
    }
}
