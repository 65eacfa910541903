import Analysis
import Extraction
import Foundation
import HandLandmarks
import Keypoints
import VideoIO

/// `bench complete`: what `extract --complete` buys and costs. Every clip is extracted twice in this
/// process, plain and completed (full models, default settings, one engine thread; the order alternates
/// per clip), and both are compared with the clip's ground truth (CLIP.truth.hands.json, as `handpose
/// synth` writes) and with MediaPipe's keypoint file (REFERENCE/NAME.hands.json) where there is one.
public struct CompletionBenchmark: Sendable {
    /// One mode's figures (plain or completed) over every clip.
    public struct Mode: Sendable {
        public var figures = SequenceFigures()
        public var cpuSeconds = 0.0
        public var wallSeconds = 0.0
        /// Against each clip's ground truth.
        public var truth = KeypointComparison()
        /// Against MediaPipe's file; completed: only the hands found as MediaPipe finds them (forward).
        public var mediapipe = KeypointComparison()
    }

    /// The clips measured.
    public var clips = 0
    public var plain = Mode()
    public var completed = Mode()
    /// The completed files' hands against ground truth by how they were found: "forward",
    /// `KeypointFile.Hand.backward`, `KeypointFile.Hand.interpolated`.
    public var truthByOrigin: [String: KeypointComparison] = [:]
    /// Hands plain extraction found, and how many of them the completed file does not keep bit for bit
    /// (landmarks, world landmarks, scores): completion must change none.
    public var handsCompared = 0, handsChanged = 0
    /// Clips with ground truth, and with a MediaPipe file.
    public var clipsWithTruth = 0, clipsWithReference = 0

    /// Measures every clip under `inputs` (folders searched to any depth) with the full hand models in
    /// the folder `models`; `reference`: a folder of MediaPipe's keypoint files.
    public init(inputs: [String], models folder: URL, reference: String?) throws(BenchmarkError) {
        let clips = try ClipList.collect(inputs, recursive: true)
        let tracker = try attempt(BenchmarkError.models) {
            try HandTracker(models: try HandModels(directory: folder, complexity: .full), options: HandTrackerOptions(), threads: 1)
        }
        self.clips = clips.count
        for (n, clip) in clips.enumerated() {
            var files: [Bool: KeypointFile] = [:]
            for completing in n % 2 == 0 ? [false, true] : [true, false] {
                let (cpu0, wall0) = (MeasuredRun.cpuSecondsOfThisProcess(), ContinuousClock.now)
                files[completing] = try attempt(BenchmarkError.extraction) {
                    try KeypointExtraction.extract(clip.url, sourcePath: clip.relative, tracker: tracker,
                                                   settings: ExtractionSettings(hands: tracker.options, completion: completing), tool: .handpose)
                }
                let cpu = MeasuredRun.cpuSecondsOfThisProcess() - cpu0, wall = seconds(ContinuousClock.now - wall0)
                if completing { completed.cpuSeconds += cpu; completed.wallSeconds += wall } else { plain.cpuSeconds += cpu; plain.wallSeconds += wall }
            }
            try attempt(BenchmarkError.extraction) { try compare(plain: files[false]!, completed: files[true]!, clip: clip, reference: reference) }
        }
    }

    /// Adds one clip's plain and completed files to the figures and comparisons.
    private mutating func compare(plain plainFile: KeypointFile, completed completedFile: KeypointFile, clip: InputFiles.Item, reference: String?) throws {
        plain.figures.merge(SequenceFigures(plainFile))
        completed.figures.merge(SequenceFigures(completedFile))
        let kept = SequenceFigures.changedHands(plain: plainFile, completed: completedFile)
        handsChanged += kept.changed
        handsCompared += kept.compared
        let truthURL = URL(fileURLWithPath: clip.url.path + ".truth.hands.json")
        if FileManager.default.fileExists(atPath: truthURL.path) {
            clipsWithTruth += 1
            let truth = try KeypointFile.load(truthURL)
            plain.truth.merge(try KeypointComparison.compare(plainFile, truth, path: clip.relative))
            completed.truth.merge(try KeypointComparison.compare(completedFile, truth, path: clip.relative))
            for origin in [nil, KeypointFile.Hand.backward, KeypointFile.Hand.interpolated] {
                truthByOrigin[origin ?? "forward", default: KeypointComparison()]
                    .merge(try KeypointComparison.compare(SequenceFigures.only(completedFile, origin: origin), truth, path: clip.relative))
            }
        }
        if let reference {
            let url = URL(fileURLWithPath: reference).appendingPathComponent(clip.url.lastPathComponent + ".hands.json")
            if FileManager.default.fileExists(atPath: url.path) {
                clipsWithReference += 1
                let mp = try KeypointFile.load(url)
                plain.mediapipe.merge(try KeypointComparison.compare(plainFile, mp, path: clip.relative))
                completed.mediapipe.merge(try KeypointComparison.compare(SequenceFigures.only(completedFile, origin: nil), mp, path: clip.relative))
            }
        }
    }
}
