import Analysis
import Datasets
import Extraction
import Foundation
import HandLandmarks
import Keypoints
import Rendering
import Synthesis
import TestSupport
import VideoIO
import XCTest

final class SynthesisTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL

    func testSameSeedSameBytesAndTruthMatchesFrames() throws {
        let fm = FileManager.default
        let a = fm.temporaryDirectory.appendingPathComponent("synth-a-\(UUID().uuidString)")
        let b = fm.temporaryDirectory.appendingPathComponent("synth-b-\(UUID().uuidString)")
        defer { try? fm.removeItem(at: a); try? fm.removeItem(at: b) }
        var s = SynthSettings()
        s.perClass = 1; s.seconds = 0.5; s.posesPerClass = 1; s.width = 128; s.height = 96; s.fps = Rational(rate: 29.97)
        let tool = KeypointFile.Tool(name: "handpose", version: "test")
        let entries = try SyntheticDataset.generate(s, to: a, tool: tool)
        try SyntheticDataset.generate(s, to: b, tool: tool)
        XCTAssertEqual(entries.count, 7 + 3)
        for name in ["actions/wave_0.mp4", "poses/fist/fist_0.png", "annotations.csv", "montage_0.mp4.truth.hands.json"] {
            XCTAssertEqual(try Data(contentsOf: a.appendingPathComponent(name)), try Data(contentsOf: b.appendingPathComponent(name)), name)
        }
        let reader = try VideoReader(url: a.appendingPathComponent("actions/grab_0.mp4"))
        XCTAssertEqual(reader.info.width, 128)
        XCTAssertEqual(reader.info.averageFrameRate, 30000.0 / 1001, accuracy: 1e-3)
        let truth = try KeypointFile.load(a.appendingPathComponent("actions/grab_0.mp4.truth.hands.json"))
        XCTAssertEqual(truth.frames.count, reader.info.frameCount)
        XCTAssertEqual(truth.frames[0].hands.first?.landmarks.count, 21)
    }

    /// The rendered hand must be found by the real models in at least 90% of frames that show one.
    func testRenderedHandsAreFound() throws {
        let models = Self.root.appendingPathComponent("Models")
        guard FileManager.default.fileExists(atPath: models.appendingPathComponent("hand_landmark_full.tflite").path) else {
            print("SKIP: models absent; run `make setup`")
            throw Prerequisite.missing("models absent")
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("synth-acc-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        var s = SynthSettings()
        s.perClass = 1; s.seconds = 1; s.posesPerClass = 0; s.montages = 0; s.seed = 5
        try SyntheticDataset.generate(s, to: dir, tool: .init(name: "handpose", version: "test"))
        let tracker = try HandTracker(models: try HandModels(directory: models, complexity: .full), options: HandTrackerOptions(), threads: 2)
        var withHand = 0, found = 0
        var deviation = KeypointComparison()
        for action in ["wave", "swipe_left", "grab", "pinch", "point"] {
            let url = dir.appendingPathComponent("actions/\(action)_0.mp4")
            let ours = try KeypointExtraction.extract(url, sourcePath: action, tracker: tracker, tool: .init(name: "handpose", version: "test"))
            let truth = try KeypointFile.load(URL(fileURLWithPath: url.path + ".truth.hands.json"))
            for (o, t) in zip(ours.frames, truth.frames) where !t.hands.isEmpty {
                withHand += 1
                if !o.hands.isEmpty { found += 1 }
            }
            deviation.merge(try KeypointComparison.compare(ours, truth, path: action))
        }
        let rate = Double(found) / Double(max(withHand, 1))
        print(String(format: "synthetic hands found in %.1f%% of %d frames; mean deviation %.3f palms", 100 * rate, withHand, deviation.meanDeviation))
        XCTAssertGreaterThanOrEqual(rate, 0.9)
        XCTAssertLessThan(deviation.meanDeviation, 0.2)
    }
}
