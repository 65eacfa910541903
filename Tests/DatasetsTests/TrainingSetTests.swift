import Annotations
import Datasets
import Foundation
import Keypoints
import TestSupport
import XCTest

/// Splits and the written arrays (npy, npz, csv), loaded back with NumPy.
final class TrainingSetTests: XCTestCase {
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
        let f = keypointFile(times: (0..<40).map { Double($0) / 25 }, x: { Float(0.1 + 0.1 * $0) }, present: { $0 != 5 })
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
        import csv
        with open(sys.argv[1] + '/keypoints.csv') as f:
            table = list(csv.reader(f))
        header, rows = table[0], np.array(table[1:], dtype=np.float64)
        assert rows.shape == (2, 1 + 4 * 21 * 4 + 4), rows.shape
        assert header[0] == 'label' and header[1] == 't0_x_wrist' and header[2] == 't0_y_wrist' and header[5] == 't0_x_thumbCMC', header[:6]
        assert header[-4:] == ['mask_t0', 'mask_t1', 'mask_t2', 'mask_t3'], header[-4:]
        assert rows[0, 0] == 1 and abs(rows[0, 1] - 0.25) < 1e-6 and list(rows[0, -4:]) == [1, 1, 1, 1]
        assert np.allclose(rows[:, 1:-4].reshape(2, 4, 21, 4), d['X'])
        """
        try checkWithNumPy(script, dir)
    }
}

/// keypoint-csv: the layout of hand-gesture-recognition-using-mediapipe, recomputed by hand for one sample.
final class KeypointCSVTests: XCTestCase {
    func testOneSampleRecomputedByHand() throws {
        // A 200 x 100 frame; the wrist at pixel (100, 50), joint 1 at (120.7 -> 120, 40.2 -> 40), the
        // rest at (60, 90), so the largest offset from the wrist is 40 (x of the rest: -40, y: +40).
        var joints = Array(repeating: SIMD3<Float>(0.3, 0.9, 0), count: 21)
        joints[0] = SIMD3(0.5, 0.5, 0)
        joints[1] = SIMD3(0.6035, 0.402, 0)
        let row = TrainingSet.keypointRow(joints, width: 200, height: 100)
        XCTAssertEqual(row.count, 42)
        XCTAssertEqual(Array(row.prefix(4)), [0, 0, 20.0 / 40, -10.0 / 40])
        XCTAssertEqual(Array(row[4...5]), [-1, 1])
        // Written as files that project reads: the label index first, the labels one per line.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("kcsv-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let sample = HandSample(joints: joints, confidence: 1, chirality: .right)
        let example = Example(label: 1, frames: [[sample]], manifest: ExampleRecord(source: "b/1.png", label: "b", hand: "any"),
                              clip: "b/1.png", frameSize: SIMD2(200, 100))
        try TrainingSet.write([example], classes: ["a", "b"], frames: nil, slots: 1, settings: ExportSettings(), format: .keypointCSV, to: dir)
        let line = try String(contentsOf: dir.appendingPathComponent("keypoint.csv"), encoding: .utf8)
        XCTAssertTrue(line.hasPrefix("1,0.0,0.0,0.5,-0.25,-1.0,1.0,"), line)
        XCTAssertEqual(try String(contentsOf: dir.appendingPathComponent("keypoint_classifier_label.csv"), encoding: .utf8), "a\nb\n")
    }

    func testFlipLabelsPairBothWays() throws {
        XCTAssertEqual(try ExportSettings.flipLabels("swipe_left:swipe_right, in:out"),
                       ["swipe_left": "swipe_right", "swipe_right": "swipe_left", "in": "out", "out": "in"])
        for bad in ["a", "a:a", ":b", "a:b:c"] {
            XCTAssertThrowsError(try ExportSettings.flipLabels(bad)) { error in
                XCTAssertTrue("\(error)".contains("--flip-labels"), "\(error)")
            }
        }
    }
}
