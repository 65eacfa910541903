import Foundation
import Keypoints
import TestSupport
import XCTest

/// `extract --format json,pose,csv,npz` end to end, each file read by its own ecosystem's reader in
/// .venv: pose-format's `Pose.read` and visualiser, Python's csv module, NumPy's `np.load`, every value
/// checked against the keypoint file written beside it.
final class OutputFormatTests: XCTestCase {
    func testEveryFormatLoadsInItsReaderWithTheKeypointFilesValues() throws {
        let models = try ToolRunner.models()
        let python = ToolRunner.root.appendingPathComponent(".venv/bin/python").path
        let (check, missing) = try ToolRunner.process(python, ["-c", "import pose_format, numpy, cv2"])
        guard check == 0 else {
            print("SKIP: .venv lacks pose-format, NumPy or OpenCV (run `make setup`): \(missing.suffix(200))")
            throw Prerequisite.missing("no pose-format in .venv")
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("formats-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out")
        let (code, text) = try ToolRunner.run(["extract", "Samples/actions", "Samples/poses/fist", "-o", out.path, "--models", models,
                                               "--format", "pose,csv,npz", "--jobs", "2"])
        XCTAssertEqual(code, 0, text)
        let script = #"""
        import csv, glob, json, os, sys
        import numpy as np
        from pose_format import Pose
        from pose_format.pose_visualizer import PoseVisualizer
        out = sys.argv[1]
        names = sorted(f[:-len('.hands.json')] for f in os.listdir(out) if f.endswith('.hands.json'))
        assert names, os.listdir(out)
        for name in names:
            base = os.path.join(out, name)
            k = json.load(open(base + '.hands.json'))
            W, H, F = k['video']['width'], k['video']['height'], len(k['frames'])
            # pose-format: header, shape, values and confidences per side.
            pose = Pose.read(open(base + '.pose', 'rb').read())
            comps = [c.name for c in pose.header.components]
            assert comps == ['LEFT_HAND_LANDMARKS', 'RIGHT_HAND_LANDMARKS'], comps
            assert pose.header.components[0].points[0] == 'WRIST' and len(pose.header.components[1].points) == 21
            assert (pose.header.dimensions.width, pose.header.dimensions.height) == (W, H)
            assert pose.body.data.shape == (F, 1, 42, 3), pose.body.data.shape
            assert abs(pose.body.fps - (k['video'].get('fps') or 1)) < 1e-3, pose.body.fps
            # npz: every array and its shape.
            z = np.load(base + '.npz')
            hands = z['landmarks'].shape[1]
            assert z['landmarks'].shape == (F, hands, 21, 3) and z['world'].shape == (F, hands, 21, 3)
            for a in ('presence', 'handedness', 'track', 'mask'): assert z[a].shape == (F, hands), a
            assert z['mask'].dtype == bool and z['time'].dtype == np.float64
            assert json.loads(str(z['header']))['settings'] == k['settings']
            # csv: header and one row per hand, in order.
            rows = list(csv.DictReader(open(base + '.csv', newline='')))
            header = list(csv.reader(open(base + '.csv', newline='')))[0]
            assert header[:6] == ['frame', 'time', 'track', 'chirality', 'handedness', 'presence'], header[:6]
            assert header[6:9] == ['x0', 'y0', 'z0'] and header[-1] == 'world_z20' and len(header) == 6 + 126, len(header)
            assert len(rows) == sum(len(f['hands']) for f in k['frames']), (len(rows), name)
            r = 0
            for fi, frame in enumerate(k['frames']):
                assert z['frame'][fi] == frame['i'] and abs(z['time'][fi] - frame['t']) < 1e-9
                assert z['mask'][fi].sum() == len(frame['hands'])
                sides = {}
                for h, hand in enumerate(frame['hands']):
                    lm = np.array(hand['landmarks'], dtype=np.float32)
                    assert np.array_equal(z['landmarks'][fi, h], lm), (name, fi, h)
                    assert np.array_equal(z['world'][fi, h], np.array(hand['world'], dtype=np.float32))
                    assert z['track'][fi, h] == hand['track'] and z['presence'][fi, h] == np.float32(hand['presence'])
                    row = rows[r]; r += 1
                    assert int(row['frame']) == frame['i'] and int(row['track']) == hand['track'] and row['chirality'] == hand['chirality']
                    assert all(float(row['%s%d' % (c, j)]) == hand['landmarks'][j][ci] for j in range(21) for ci, c in enumerate('xyz'))
                    assert float(row['world_y7']) == hand['world'][7][1]
                    sides.setdefault(hand['chirality'], hand)
                for side, off in (('left', 0), ('right', 21)):
                    got = pose.body.data.data[fi, 0, off:off + 21]
                    conf = pose.body.confidence[fi, 0, off:off + 21]
                    if side in sides:
                        lm = np.array(sides[side]['landmarks'], dtype=np.float32)
                        want = lm * np.array([W, H, 1], dtype=np.float32)
                        assert np.allclose(got, want, rtol=1e-6, atol=1e-4), (name, fi, side, got[0], want[0])
                        assert np.all(conf == np.float32(sides[side]['presence']))
                    else:
                        assert np.all(conf == 0) and np.all(got == 0), (name, fi, side)
            # The visualiser draws the hands: frames with a hand are not blank.
            drawn = list(PoseVisualizer(pose).draw())
            assert len(drawn) == F
            for fi, frame in enumerate(k['frames']):
                inked = int((drawn[fi] != 255).any(axis=-1).sum())
                assert (inked > 50) == bool(frame['hands']), (name, fi, inked)
        print('formats: %d inputs checked' % len(names))
        """#
        let (pyCode, pyText) = try ToolRunner.process(python, ["-c", script, out.path])
        XCTAssertEqual(pyCode, 0, pyText)
        XCTAssertTrue(pyText.contains("formats: "), pyText)
        print(pyText.trimmingCharacters(in: .whitespacesAndNewlines))
        // No temporary or scratch file is left beside the outputs.
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0.hasPrefix(".") }
        XCTAssertEqual(leftovers, [], "\(leftovers)")
    }

    /// Companions from an earlier run never stay beside a keypoint file made without them (they could hold
    /// other settings' keypoints); a companion asked for and missing makes the input be redone.
    func testCompanionsFollowTheirKeypointFile() throws {
        let models = try ToolRunner.models()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("companions-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out"), still = "Samples/poses/fist/fist_0.png"
        func run(_ extra: [String]) throws -> String {
            let (code, text) = try ToolRunner.run(["extract", still, "-o", out.path, "--models", models] + extra)
            XCTAssertEqual(code, 0, text)
            return text
        }
        func present() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: out.path).sorted() }
        _ = try run(["--format", "pose,npz"])
        XCTAssertEqual(try present(), ["fist_0.png.hands.json", "fist_0.png.npz", "fist_0.png.pose"])
        _ = try run(["--overwrite", "--model", "lite"])
        XCTAssertEqual(try present(), ["fist_0.png.hands.json"], "the full model's companions went with the file they matched")
        let again = try run(["--model", "lite", "--format", "csv"])
        XCTAssertTrue(again.contains("1 done"), "a missing companion redoes the input: \(again)")
        XCTAssertEqual(try present(), ["fist_0.png.csv", "fist_0.png.hands.json"])
        XCTAssertTrue(try run(["--model", "lite", "--format", "csv"]).contains("1 skipped"))

        // The keypoint file records each companion's size: a cut one is named by status and redone by a resumed run.
        let csv = out.appendingPathComponent("fist_0.png.csv")
        let file = try KeypointFile.load(out.appendingPathComponent("fist_0.png.hands.json"))
        let whole = try Data(contentsOf: csv)
        XCTAssertEqual(file.outputs, ["csv": KeypointFile.Output(bytes: UInt64(whole.count))])
        try whole.prefix(whole.count - 7).write(to: csv)
        let (code, text) = try ToolRunner.run(["status", out.path, "--inputs", still, "--model", "lite", "--format", "csv", "--models", models])
        XCTAssertEqual(code, 1, text)
        XCTAssertTrue(text.contains("its .csv file is \(whole.count - 7) bytes where its keypoint file records \(whole.count)"), text)
        XCTAssertTrue(try run(["--model", "lite", "--format", "csv"]).contains("1 done"), "a cut companion redoes the input")
        XCTAssertEqual(try Data(contentsOf: csv), whole)
    }

    func testAnUnknownFormatIsRefusedBeforeAnyWork() throws {
        let (code, text) = try ToolRunner.run(["extract", "Samples/actions", "-o", "/tmp/never-\(UUID().uuidString)", "--format", "json,parquet"])
        XCTAssertEqual(code, 64, text)
        XCTAssertTrue(text.contains("'parquet' is not a format"), text)
    }
}
