import Foundation
import Keypoints
import TestSupport
import XCTest

/// `extract --body` end to end with the real models: every output read by its own ecosystem's reader in
/// .venv, pose-format's normalize(), pose_normalization_info() and estimate_active_hand() run on the
/// `.pose` files, and status and resuming told bodies apart from plain hands.
final class BodyCommandTests: XCTestCase {
    static let corpus = ToolRunner.root.appendingPathComponent("../shared/corpus").standardizedFileURL

    func python() throws -> String {
        let python = ToolRunner.root.appendingPathComponent(".venv/bin/python").path
        let (check, missing) = try ToolRunner.process(python, ["-c", "import pose_format, numpy"])
        guard check == 0 else {
            print("SKIP: .venv lacks pose-format or NumPy (run `make setup`): \(missing.suffix(200))")
            throw Prerequisite.missing("no pose-format in .venv")
        }
        return python
    }

    /// Inputs with people in them (a signer's clip, a gesture clip, two stills) from the shared corpus.
    func people() throws -> [String] {
        let names = ["clips/slp_sign_short.mp4", "clips/nvgesture_two_hands.avi", "images/mp_gesture_call_1.jpg", "images/vd_pointing_two_hands.jpg"]
        let paths = names.map { Self.corpus.appendingPathComponent($0).path }
        guard paths.allSatisfy(FileManager.default.fileExists) else {
            print("SKIP: the shared corpus (\(Self.corpus.path)) is absent: no footage of people to find bodies in")
            throw Prerequisite.missing("shared corpus absent")
        }
        return paths
    }

    /// Without the pose models, --body stops before any work, naming the file it lacks (exit 3).
    func testMissingPoseModelsAreNamed() throws {
        let models = try ToolRunner.models()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("body-models-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("models"), withIntermediateDirectories: true)
        for name in ["palm_detection_full.tflite", "hand_landmark_full.tflite"] {
            try FileManager.default.createSymbolicLink(atPath: dir.appendingPathComponent("models/" + name).path, withDestinationPath: models + "/" + name)
        }
        let out = dir.appendingPathComponent("out")
        let (code, text) = try ToolRunner.run(["extract", "Samples/actions/wave_0.mp4", "-o", out.path, "--models", dir.appendingPathComponent("models").path, "--body"])
        XCTAssertEqual(code, 3, text)
        XCTAssertTrue(text.contains("pose_detection.tflite"), text)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.appendingPathComponent("wave_0.mp4.hands.json").path))
        // The same folder serves plain extraction.
        let (plain, plainText) = try ToolRunner.run(["extract", "Samples/actions/wave_0.mp4", "-o", out.path, "--models", dir.appendingPathComponent("models").path])
        XCTAssertEqual(plain, 0, plainText)
    }

    /// Two people (`--max-bodies 2`, an arm-wrestling clip): never one person twice, each person in one
    /// `.pose` slot for as long as they are tracked, their hands in their own slot by arm.
    func testTwoPeopleAreEachReportedOnceAndKeepTheirSlot() throws {
        let models = try ToolRunner.models(), python = try python()
        let clip = Self.corpus.appendingPathComponent("clips/mma_arm_wrestling.mp4")
        guard FileManager.default.fileExists(atPath: clip.path) else {
            print("SKIP: the shared corpus (\(Self.corpus.path)) is absent: no footage of two people")
            throw Prerequisite.missing("shared corpus absent")
        }
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("bodies2-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        let (code, text) = try ToolRunner.run(["extract", clip.path, "-o", out.path, "--models", models, "--body", "--max-bodies", "2",
                                               "--format", "json,pose"])
        XCTAssertEqual(code, 0, text)
        let script = #"""
        import json, sys
        import numpy as np
        from pose_format import Pose
        base = sys.argv[1] + '/mma_arm_wrestling.mp4'
        k = json.load(open(base + '.hands.json'))
        W, H = k['video']['width'], k['video']['height']
        pose = Pose.read(open(base + '.pose', 'rb').read())
        assert pose.body.data.shape == (len(k['frames']), 2, 75, 3), pose.body.data.shape
        def bounds(r):
            return (r['xCenter'] - r['width'] / 2, r['yCenter'] - r['height'] / 2, r['xCenter'] + r['width'] / 2, r['yCenter'] + r['height'] / 2)
        def iou(a, b):
            ix = max(0, min(a[2], b[2]) - max(a[0], b[0])); iy = max(0, min(a[3], b[3]) - max(a[1], b[1]))
            u = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - ix * iy
            return ix * iy / u if u > 0 else 0
        slot_of, two = {}, 0
        previous = {}
        for fi, f in enumerate(k['frames']):
            bodies = f['bodies']
            assert len(bodies) <= 2
            two += len(bodies) == 2
            if len(bodies) == 2:
                assert iou(bounds(bodies[0]['region']), bounds(bodies[1]['region'])) <= 0.5, ('one person twice', fi)
                assert bodies[0]['track'] != bodies[1]['track']
            here = {}
            for p in range(2):
                conf = pose.body.confidence[fi, p, :33]
                if not conf.any():
                    continue
                got = pose.body.data.data[fi, p, :33]
                match = [b for b in bodies if np.allclose(got, np.array(b['landmarks'], dtype=np.float32) * np.array([W, H, 1], dtype=np.float32), atol=1e-3)]
                assert len(match) == 1, (fi, p)
                here[match[0]['track']] = p
                # The slot's hands are the ones tied to that body, by arm.
                b = bodies.index(match[0])
                for h in f['hands']:
                    if h.get('person') == b:
                        off = 33 if h['arm'] == 'left' else 54
                        want = np.array(h['landmarks'], dtype=np.float32) * np.array([W, H, 1], dtype=np.float32)
                        assert np.allclose(pose.body.data.data[fi, p, off:off + 21], want, atol=1e-3), (fi, p, h['arm'])
            for track, p in here.items():
                if track in previous:
                    assert previous[track] == p, ('a person changed slot while tracked', fi, track)
            assert len(here) == len(bodies), (fi, here, len(bodies))
            previous = here
        assert two > 0, 'the clip shows two people'
        print('two people in', two, 'frames')
        """#
        let (pyCode, pyOut) = try ToolRunner.process(python, ["-c", script, out.path])
        XCTAssertEqual(pyCode, 0, pyOut)
        print(pyOut)
    }

    func testBodiesReachEveryFormatAndPoseFormatsFunctionsRunOnThem() throws {
        let models = try ToolRunner.models(), python = try python(), inputs = try people()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("body-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out")
        // A Samples clip (rendered hands, no person) beside the people: its frames hold empty bodies.
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("in"), withIntermediateDirectories: true)
        for path in inputs + [ToolRunner.root.appendingPathComponent("Samples/actions/wave_0.mp4").path] {
            try FileManager.default.createSymbolicLink(atPath: dir.appendingPathComponent("in/" + URL(fileURLWithPath: path).lastPathComponent).path,
                                                       withDestinationPath: path)
        }
        let (code, text) = try ToolRunner.run(["extract", dir.appendingPathComponent("in").path, "-o", out.path, "--models", models,
                                               "--body", "--format", "json,pose,csv,npz", "--jobs", "2"])
        XCTAssertEqual(code, 0, text)
        let script = #"""
        import csv, json, os, sys
        import numpy as np
        from pose_format import Pose
        from pose_format.utils.generic import pose_normalization_info, detect_known_pose_format
        from pose_format.utils.hand import estimate_active_hand
        out = sys.argv[1]
        names = sorted(f[:-len('.hands.json')] for f in os.listdir(out) if f.endswith('.hands.json'))
        assert len(names) == 5, names
        with_body = 0
        for name in names:
            base = os.path.join(out, name)
            k = json.load(open(base + '.hands.json'))
            assert k['schema'] == 'handpose/keypoints@2', k['schema']
            assert k['settings']['body'] == 'pose-full' and k['settings']['maxBodies'] == 1, k['settings']
            assert 'pose_detection.tflite' in k['models'] and 'pose_landmark_full.tflite' in k['models'], k['models']
            W, H, F = k['video']['width'], k['video']['height'], len(k['frames'])
            frames = k['frames']
            for f in frames:
                assert 'bodies' in f and len(f['bodies']) <= 1
                for b in f['bodies']:
                    assert len(b['landmarks']) == 33 and len(b['world']) == 33 and len(b['visibility']) == 33 and len(b['presence']) == 33
                for h in f['hands']:
                    # Tied to a body's arm, or marked: never both, never neither.
                    assert ('person' in h) != h.get('unattached', False), h.keys()
                    if 'person' in h:
                        assert h['arm'] in ('left', 'right') and h['person'] < len(f['bodies'])
                sides = [h['arm'] for h in f['hands'] if 'arm' in h]
                assert len(sides) == len(set(sides)), sides
            has_body = any(f['bodies'] for f in frames)
            if name == 'wave_0.mp4':
                assert not has_body, 'a body in a clip of rendered hands'
            else:
                assert has_body, name
                with_body += 1
            # .pose: Holistic's components, the body in pixels with its visibility, hands by arm.
            pose = Pose.read(open(base + '.pose', 'rb').read())
            comps = [c.name for c in pose.header.components]
            assert comps == ['POSE_LANDMARKS', 'LEFT_HAND_LANDMARKS', 'RIGHT_HAND_LANDMARKS'], comps
            assert pose.header.components[0].points[11] == 'LEFT_SHOULDER' and len(pose.header.components[0].points) == 33
            assert pose.body.data.shape == (F, 1, 75, 3), pose.body.data.shape
            assert detect_known_pose_format(pose) == 'holistic'
            z = np.load(base + '.npz')
            rows = list(csv.DictReader(open(base + '.csv', newline='')))
            r = 0
            for fi, f in enumerate(frames):
                data, conf = pose.body.data.data[fi, 0], pose.body.confidence[fi, 0]
                if f['bodies']:
                    b = f['bodies'][0]
                    want = np.array(b['landmarks'], dtype=np.float32) * np.array([W, H, 1], dtype=np.float32)
                    assert np.allclose(data[:33], want, rtol=1e-6, atol=1e-3), (name, fi)
                    assert np.array_equal(conf[:33], np.array(b['visibility'], dtype=np.float32))
                    assert np.array_equal(z['body_landmarks'][fi, 0], np.array(b['landmarks'], dtype=np.float32))
                    assert np.array_equal(z['body_world'][fi, 0], np.array(b['world'], dtype=np.float32))
                    assert z['body_mask'][fi, 0] and z['body_track'][fi, 0] == b['track']
                else:
                    assert np.all(conf[:33] == 0) and not z['body_mask'][fi].any()
                by_arm = {h['arm']: h for h in f['hands'] if 'arm' in h}
                by_chirality = {h['chirality']: h for h in f['hands']}
                for side, off in (('left', 33), ('right', 54)):
                    if has_body:
                        # A clip with bodies: each component holds the hand on that arm, or nothing.
                        if side in by_arm:
                            want = np.array(by_arm[side]['landmarks'], dtype=np.float32) * np.array([W, H, 1], dtype=np.float32)
                            assert np.allclose(data[off:off + 21], want, rtol=1e-6, atol=1e-3), (name, fi, side)
                        else:
                            assert np.all(conf[off:off + 21] == 0), (name, fi, side)
                    else:
                        # No body anywhere in the clip: hands by chirality, as without --body.
                        assert (conf[off] > 0) == (side in by_chirality), (name, fi, side)
                for h, hand in enumerate(f['hands']):
                    assert z['person'][fi, h] == hand.get('person', -1)
                    row = rows[r]; r += 1
                    assert row['person'] == str(hand.get('person', '')) and row['arm'] == hand.get('arm', '')
                    if 'person' in hand:
                        assert float(row['body_x11']) == f['bodies'][hand['person']]['landmarks'][11][0]
                        assert float(row['body_visibility11']) == f['bodies'][hand['person']]['visibility'][11]
                # A body no hand is tied to has a row of its own, with the hand's cells empty.
                for p, b in enumerate(f['bodies']):
                    if not any(h.get('person') == p for h in f['hands']):
                        row = rows[r]; r += 1
                        assert row['chirality'] == '' and row['person'] == str(p) and float(row['body_y0']) == b['landmarks'][0][1]
            assert r == len(rows), (name, r, len(rows))
            if not has_body:
                continue
            # pose-format's own functions, as a sign-language pipeline calls them.
            info = pose_normalization_info(pose.header)
            normalized = pose.normalize(info)
            d = np.ma.mean(np.linalg.norm(normalized.body.data[:, 0, info.p1] - normalized.body.data[:, 0, info.p2], axis=-1))
            assert abs(float(d) - 1) < 1e-3, d
            hand = estimate_active_hand(pose)
            assert hand in ('LEFT', 'RIGHT'), hand
            print(name, 'active hand', hand, 'shoulders after normalize', round(float(d), 4))
        assert with_body == 4, with_body
        print('ok')
        """#
        let (pyCode, pyOut) = try ToolRunner.process(python, ["-c", script, out.path])
        XCTAssertEqual(pyCode, 0, pyOut)
        XCTAssertTrue(pyOut.contains("ok"), pyOut)
        print(pyOut)

        // status: done with --body; asked without it, the same files were made with other settings.
        let input = dir.appendingPathComponent("in").path
        let (withBody, withText) = try ToolRunner.run(["status", out.path, "--inputs", input, "--models", models, "--body",
                                                        "--format", "json,pose,csv,npz"])
        XCTAssertEqual(withBody, 0, withText)
        let (plain, plainText) = try ToolRunner.run(["status", out.path, "--inputs", input, "--models", models])
        XCTAssertNotEqual(plain, 0, plainText)
        XCTAssertTrue(plainText.contains("body"), plainText)
        // Resuming with --body redoes nothing.
        let (again, againText) = try ToolRunner.run(["extract", input, "-o", out.path, "--models", models, "--body",
                                                     "--format", "json,pose,csv,npz", "--jobs", "2"])
        XCTAssertEqual(again, 0, againText)
        XCTAssertTrue(againText.contains("0 done, 5 skipped"), againText)

        // export actions with the upper body: a segment of the signer's clip and one of the gesture clip.
        try "video,label,start,end\nslp_sign_short.mp4,sign,0,0.375\nnvgesture_two_hands.avi,gesture,0,0.6\n"
            .write(to: dir.appendingPathComponent("in/annotations.csv"), atomically: true, encoding: .utf8)
        let dataset = dir.appendingPathComponent("dataset")
        let (refused, refusedText) = try ToolRunner.run(["export", "actions", dir.appendingPathComponent("in/annotations.csv").path,
                                                         "--keypoints", out.path, "--body-joints", "upper", "-o", dataset.path, "--models", models])
        XCTAssertEqual(refused, 64, refusedText)
        XCTAssertTrue(refusedText.contains("--body-joints needs keypoints with bodies"), refusedText)
        let (exported, exportText) = try ToolRunner.run(["export", "actions", dir.appendingPathComponent("in/annotations.csv").path,
                                                         "--keypoints", out.path, "--body", "--body-joints", "upper", "--fps", "24",
                                                         "--window", "8", "--origin", "top-left", "-o", dataset.path, "--models", models])
        XCTAssertEqual(exported, 0, exportText)
        let check = #"""
        import json, sys
        import numpy as np
        d, out = sys.argv[1], sys.argv[2]
        X, B, m = np.load(d + '/X.npy'), np.load(d + '/B.npy'), np.load(d + '/body_mask.npy')
        assert X.shape[1:] == (8, 3, 21) and B.shape == (X.shape[0], 8, 3, 25) and m.shape == (X.shape[0], 8), (X.shape, B.shape, m.shape)
        records = [json.loads(l) for l in open(d + '/manifest.jsonl')]
        assert json.load(open(d + '/dataset.json'))['settings']['body'] == 'upper'
        # The signer's first window's first frame is keypoint frame 0 (24 fps): B holds that frame's body.
        n = next(i for i, r in enumerate(records) if r['source'] == 'slp_sign_short.mp4')
        k = json.load(open(out + '/slp_sign_short.mp4.hands.json'))
        body = k['frames'][0]['bodies'][0]
        assert m[n, 0] == 1
        assert np.allclose(B[n, 0, 0], [p[0] for p in body['landmarks'][:25]], atol=1e-6), (B[n, 0, 0, :3], body['landmarks'][0])
        assert np.allclose(B[n, 0, 2], body['visibility'][:25], atol=1e-6)
        print('export ok', X.shape, B.shape, int(m.sum()))
        """#
        let (checked, checkText) = try ToolRunner.process(python, ["-c", check, dataset.path, out.path])
        XCTAssertEqual(checked, 0, checkText)
        print(checkText)
    }
}
