import Annotations
import Datasets
import Foundation
import HandLandmarks
import Keypoints
import XCTest

/// Resampling, windows, masks, augmentations and the written arrays, on hand-built keypoint files.
final class ExportTests: XCTestCase {
    /// A keypoint file whose hand moves with `x(t)`; `present(i)` says which frames have it.
    func file(times: [Double], chirality: Chirality = .right, x: (Double) -> Float, present: (Int) -> Bool = { _ in true },
              second: Bool = false) -> KeypointFile {
        let frames = times.enumerated().map { i, t -> KeypointFile.Frame in
            var hands: [KeypointFile.Hand] = []
            if present(i) {
                let base: Float = x(t)
                var points: [[Float]] = []
                for j in 0..<21 { points.append([base + Float(j) * 0.001, 0.25, 0]) }
                let handedness: Float = chirality == .right ? 0.9 : 0.1
                hands.append(KeypointFile.Hand(chirality: chirality, handedness: handedness, presence: 0.8,
                                               landmarks: points, world: nil, region: nil))
            }
            if second {
                hands.append(KeypointFile.Hand(chirality: .left, handedness: 0.1, presence: 0.6,
                                               landmarks: Array(repeating: [Float(0.7), 0.7, 0], count: 21), world: nil, region: nil))
            }
            return KeypointFile.Frame(i: i, t: t, hands: hands)
        }
        return KeypointFile(source: "fixture.mp4", width: 100, height: 100, fps: 25, frames: frames, tool: nil, settings: nil, models: nil)
    }

    func testResamplingInterpolatesOnRealTimestamps() {
        let f = file(times: (0..<50).map { Double($0) / 25 }, x: { Float(0.1 + 0.5 * $0) })
        let track = Windowing.resample(f, start: 0, end: 1, fps: 30, hand: .any)
        XCTAssertEqual(track.times.count, 30)
        for (k, t) in track.times.enumerated() {
            XCTAssertEqual(Double(track.slots[k][0]!.joints[0].x), 0.1 + 0.5 * t, accuracy: 1e-5, "frame \(k)")
        }
    }

    func testVariableRateBecomesUniform() {
        let times = [0, 0.03, 0.11, 0.12, 0.3, 0.41, 0.5, 0.77, 0.8, 1.0, 1.1]
        let f = file(times: times, x: { Float($0) })
        let track = Windowing.resample(f, start: 0, end: 1, fps: 10, hand: .any)
        XCTAssertEqual(track.times, (0..<10).map { Double($0) / 10 })
        for (k, t) in track.times.enumerated() { XCTAssertEqual(Double(track.slots[k][0]!.joints[0].x), t, accuracy: 1e-5) }
    }

    func testGapsUseTheNearestFrameOrNothing() {
        // Frames 10..19 (0.4..0.76 s) have no hand.
        let f = file(times: (0..<25).map { Double($0) / 25 }, x: { Float($0) }, present: { !(10..<20).contains($0) })
        let track = Windowing.resample(f, start: 0, end: 1, fps: 25, hand: .any)
        XCTAssertNotNil(track.slots[9][0])
        XCTAssertNil(track.slots[12][0])
        // 0.39 s lies between a frame with a hand (0.36) and one without (0.40): nearest wins.
        let odd = Windowing.resample(f, start: 0.39, end: 0.4, fps: 100, hand: .any)
        XCTAssertNil(odd.slots[0][0])
    }

    func testHandChoice() {
        let f = file(times: [0, 0.04], x: { _ in 0.2 }, second: true)
        XCTAssertEqual(Windowing.resample(f, start: 0, end: 0.04, fps: 25, hand: .left).slots[0][0]?.chirality, .left)
        XCTAssertEqual(Windowing.resample(f, start: 0, end: 0.04, fps: 25, hand: .any).slots[0][0]?.chirality, .right)
        let both = Windowing.resample(f, start: 0, end: 0.04, fps: 25, hand: .both).slots[0]
        XCTAssertEqual(both.map { $0?.chirality }, [.left, .right])
    }

    func testWindowEdges() {
        XCTAssertEqual(Windowing.windowStarts(count: 130, window: 60, stride: 60, dropShort: false, padTail: false), [0, 60])
        XCTAssertEqual(Windowing.windowStarts(count: 130, window: 60, stride: 60, dropShort: false, padTail: true), [0, 60, 120])
        XCTAssertEqual(Windowing.windowStarts(count: 100, window: 60, stride: 20, dropShort: false, padTail: false), [0, 20, 40])
        XCTAssertEqual(Windowing.windowStarts(count: 30, window: 60, stride: 60, dropShort: false, padTail: false), [0])
        XCTAssertEqual(Windowing.windowStarts(count: 30, window: 60, stride: 60, dropShort: true, padTail: false), [])
        XCTAssertEqual(Windowing.windowStarts(count: 0, window: 60, stride: 60, dropShort: false, padTail: false), [])
    }

    /// The same annotation and seed give the same augmented copies wherever the dataset's folder is.
    func testAugmentationDoesNotDependOnWhereTheClipsAre() throws {
        let f = file(times: (0..<30).map { Double($0) / 30 }, x: { _ in 0.2 })
        var settings = ExportSettings()
        settings.window = 30
        func copies(root: String) throws -> [[[HandSample?]]] {
            let segment = Segment(video: URL(fileURLWithPath: root + "/clips/fixture.mp4"), videoPath: "clips/fixture.mp4", label: "a",
                                  start: 0, end: 1, source: root + "/a.csv", line: 2)
            let base = try ExampleBuilder.actions([segment], classes: ["a"], settings: settings) { _ in f }
            return ExampleBuilder.augment(base, with: [.rotate(degrees: 15), .scale(fraction: 0.1)], copies: 2, seed: 7).map(\.frames)
        }
        let here = try copies(root: "/home/a/dataset"), there = try copies(root: "/scratch/job17/dataset")
        XCTAssertEqual(here.count, 3)
        XCTAssertEqual(here, there)
        XCTAssertNotEqual(here[1], here[0], "a copy must differ from its original")
    }

    func testAugmentationsAreSeededAndFlipSwapsHands() throws {
        let f = file(times: (0..<30).map { Double($0) / 30 }, x: { _ in 0.2 }, second: true)
        let segment = Segment(video: URL(fileURLWithPath: "/x/fixture.mp4"), videoPath: "fixture.mp4", label: "a", start: 0, end: 1, source: "a.csv", line: 2)
        var settings = ExportSettings()
        settings.window = 30
        settings.hand = .both
        let base = try ExampleBuilder.actions([segment], classes: ["a"], settings: settings) { _ in f }
        let flipped = ExampleBuilder.augment(base, with: [.flip], copies: 1, seed: 3)
        XCTAssertEqual(flipped.count, 2)
        let copy = flipped[1].frames[0]
        // Left slot now holds the mirrored right hand: x 0.2 -> 0.8.
        XCTAssertEqual(copy[0]?.chirality, .left)
        XCTAssertEqual(copy[0]!.joints[0].x, 0.8, accuracy: 1e-6)
        XCTAssertEqual(copy[1]!.joints[0].x, 0.3, accuracy: 1e-6)
        // A mirrored copy takes the paired label; copies without flip keep theirs.
        let relabelled = ExampleBuilder.augment(base, with: [.flip], copies: 1, seed: 3, flippedLabel: [0: 1])
        XCTAssertEqual(relabelled.map(\.label), [0, 1])
        XCTAssertEqual(ExampleBuilder.augment(base, with: [.rotate(degrees: 5)], copies: 1, seed: 3, flippedLabel: [0: 1]).map(\.label), [0, 0])
        let a = ExampleBuilder.augment(base, with: [.rotate(degrees: 15), .drop(probability: 0.3)], copies: 2, seed: 9)
        let b = ExampleBuilder.augment(base, with: [.rotate(degrees: 15), .drop(probability: 0.3)], copies: 2, seed: 9)
        XCTAssertEqual(a.map { $0.frames.map { $0.map { $0?.joints[3] } } }, b.map { $0.frames.map { $0.map { $0?.joints[3] } } })
    }

    func testSplitsAreByClipStratifiedAndDeterministic() {
        // Seven classes of two clips, one of four, one of a single clip.
        var clips: [String: Int] = [:]
        for c in 0..<7 { for k in 0..<2 { clips["c\(c)_\(k).mp4"] = c } }
        for k in 0..<4 { clips["big_\(k).mp4"] = 7 }
        clips["lonely.mp4"] = 8
        let parts = [SplitPart(name: "train", fraction: 0.75), SplitPart(name: "val", fraction: 0.25)]
        let a = TrainingSet.assignSplits(clipClasses: clips, parts: parts, seed: 5)
        XCTAssertEqual(Set(a.keys), Set(clips.keys), "every clip in exactly one part")
        for c in 0..<7 {
            XCTAssertEqual(Set((0..<2).map { a["c\(c)_\($0).mp4"]! }), ["train", "val"], "class \(c): one clip each")
        }
        XCTAssertEqual((0..<4).filter { a["big_\($0).mp4"] == "val" }.count, 1)
        XCTAssertEqual(a["lonely.mp4"], "train")
        XCTAssertEqual(a, TrainingSet.assignSplits(clipClasses: clips, parts: parts, seed: 5))
        XCTAssertNotEqual(a, TrainingSet.assignSplits(clipClasses: clips, parts: parts, seed: 6))
        // Three parts of 20 clips: 14, 3, 3.
        let many = Dictionary(uniqueKeysWithValues: (0..<20).map { ("clip\($0).mp4", 0) })
        let three = TrainingSet.assignSplits(clipClasses: many, parts: [SplitPart(name: "train", fraction: 0.7),
                                                                       SplitPart(name: "val", fraction: 0.15),
                                                                       SplitPart(name: "test", fraction: 0.15)], seed: 1)
        XCTAssertEqual(["train", "val", "test"].map { p in three.values.filter { $0 == p }.count }, [14, 3, 3])
    }

    func testWrittenArraysLoadInNumPy() throws {
        let f = file(times: (0..<40).map { Double($0) / 25 }, x: { Float(0.1 + 0.1 * $0) }, present: { $0 != 5 })
        let segment = Segment(video: URL(fileURLWithPath: "/x/fixture.mp4"), videoPath: "fixture.mp4", label: "wave", start: 0, end: 1.6, source: "a.csv", line: 2)
        var settings = ExportSettings()
        settings.window = 30
        settings.padTail = true
        let examples = try ExampleBuilder.actions([segment], classes: ["Background", "wave"], settings: settings) { _ in f }
        XCTAssertEqual(examples.count, 2)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("export-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        try TrainingSet.write(examples, classes: ["Background", "wave"], frames: 30, slots: 1, settings: settings, format: .npy, to: dir)
        let first = try Data(contentsOf: dir.appendingPathComponent("X.npy"))
        try TrainingSet.write(examples, classes: ["Background", "wave"], frames: 30, slots: 1, settings: settings, format: .npy, to: dir)
        XCTAssertEqual(first, try Data(contentsOf: dir.appendingPathComponent("X.npy")), "same inputs, same bytes")
        let script = """
        import numpy as np, json, sys
        d = sys.argv[1]
        X = np.load(d + '/X.npy'); y = np.load(d + '/y.npy'); m = np.load(d + '/mask.npy')
        assert X.shape == (2, 30, 3, 21) and X.dtype == np.float32, (X.shape, X.dtype)
        assert y.dtype == np.int64 and list(y) == [1, 1], y
        assert m.shape == (2, 30) and m.dtype == np.uint8
        # 48 resampled frames: window 2 holds 18 real frames then padding.
        assert m[1, :18].all() and not m[1, 18:].any(), m[1]
        assert not X[1, 18:].any()
        # x of the wrist at 0.5 s (frame 15 at 30 fps) is 0.1 + 0.1 * 0.5; y flipped to 1 - 0.25; confidence 0.8.
        assert abs(X[0, 15, 0, 0] - 0.15) < 1e-5 and abs(X[0, 15, 1, 0] - 0.75) < 1e-6 and abs(X[0, 15, 2, 0] - 0.8) < 1e-6
        lines = open(d + '/manifest.jsonl').read().splitlines()
        assert len(lines) == 2 and json.loads(lines[1])['window_index'] == 1
        assert json.load(open(d + '/classes.json')) == ['Background', 'wave']
        print('numpy ok')
        """
        try checkWithNumPy(script, dir)
    }
}

/// Runs a Python script (argument: `dir`) that loads the written arrays with NumPy and asserts on them.
func checkWithNumPy(_ script: String, _ dir: URL, file: StaticString = #filePath, line: UInt = #line) throws {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = ["python3", "-c", script, dir.path]
    let pipe = Pipe()
    p.standardOutput = pipe
    p.standardError = pipe
    try p.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    p.waitUntilExit()
    if output.contains("No module named 'numpy'") {
        print("SKIP: NumPy is not installed for python3")
        throw XCTSkip("NumPy is not installed for python3")
    }
    XCTAssertEqual(p.terminationStatus, 0, output, file: file, line: line)
}

final class AugmentationAndFormatTests: XCTestCase {
    func sample(_ x: Float) -> HandSample {
        HandSample(joints: Array(repeating: SIMD3(x, 0.5, 0), count: 21), confidence: 1, chirality: .right)
    }

    func testScaleTranslateStretchAndParsing() throws {
        XCTAssertEqual(try Augmentation.parse("flip,rotate=15,scale=0.1,translate=0.05,drop=0.1,stretch=0.2").count, 6)
        XCTAssertThrowsError(try Augmentation.parse("spin=3"))
        XCTAssertThrowsError(try Augmentation.parse("rotate=abc"))
        let frames: [[HandSample?]] = (0..<10).map { [sample(0.3 + 0.01 * Float($0))] }
        var record = ExampleRecord(source: "c", label: "a", hand: "any")
        record.windowIndex = 0
        let base = Example(label: 0, frames: frames, manifest: record, clip: "c")
        for (aug, key) in [(Augmentation.scale(fraction: 0.2), "scale"), (.translate(fraction: 0.1), "translate_x"), (.stretch(fraction: 0.3), "speed")] {
            let out = ExampleBuilder.augment([base], with: [aug], copies: 1, seed: 4)
            let drawn = try XCTUnwrap(out[1].manifest.augmentation[key], "\(aug)")
            let x0 = out[1].frames[0][0]!.joints[0].x, x9 = out[1].frames[9][0]!.joints[0].x
            switch aug {
            case .scale: XCTAssertEqual(Double(x0), (0.3 - 0.5) * drawn + 0.5, accuracy: 1e-5)
            case .translate: XCTAssertEqual(Double(x0), 0.3 + drawn, accuracy: 1e-5)
            default:
                // Frame 9 plays source position min(9 * speed, 9).
                XCTAssertEqual(Double(x9), 0.3 + 0.01 * min(9 * drawn, 9), accuracy: 1e-5)
                XCTAssertEqual(x0, 0.3, accuracy: 1e-6)
            }
        }
    }

    func testNPZAndCSVFormats() throws {
        let frames: [[HandSample?]] = (0..<4).map { _ in [sample(0.25)] }
        let examples = [Example(label: 1, frames: frames, manifest: ExampleRecord(source: "a", label: "b", hand: "any"), clip: "a"),
                        Example(label: 0, frames: frames, manifest: ExampleRecord(source: "b", label: "a", hand: "any"), clip: "b")]
        var settings = ExportSettings()
        settings.window = 4
        settings.layout = .ntjc
        settings.features = .xyzc
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fmt-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        try TrainingSet.write(examples, classes: ["a", "b"], frames: 4, slots: 1, settings: settings, format: .npz, to: dir)
        try TrainingSet.write(examples, classes: ["a", "b"], frames: 4, slots: 1, settings: settings, format: .csv, to: dir)
        let script = """
        import numpy as np, sys
        d = np.load(sys.argv[1] + '/data.npz')
        assert d['X'].shape == (2, 4, 21, 4) and d['X'].dtype == np.float32, d['X'].shape
        assert list(d['y']) == [1, 0] and d['mask'].shape == (2, 4)
        assert abs(d['X'][0, 0, 0, 0] - 0.25) < 1e-6 and abs(d['X'][0, 0, 0, 1] - 0.5) < 1e-6 and d['X'][0, 0, 0, 3] == 1
        rows = np.loadtxt(sys.argv[1] + '/keypoints.csv', delimiter=',')
        assert rows.shape == (2, 1 + 4 * 21 * 4) and rows[0, 0] == 1
        """
        try checkWithNumPy(script, dir)
    }
}
