import Foundation
import Keypoints
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
            throw XCTSkip("no pose-format in .venv")
        }
        return python
    }

    /// Inputs with people in them (a signer's clip, a gesture clip, two stills) from the shared corpus.
    func people() throws -> [String] {
        let names = ["clips/slp_sign_short.mp4", "clips/nvgesture_two_hands.avi", "images/mp_gesture_call_1.jpg", "images/vd_pointing_two_hands.jpg"]
        let paths = names.map { Self.corpus.appendingPathComponent($0).path }
        guard paths.allSatisfy(FileManager.default.fileExists) else {
            print("SKIP: the shared corpus (\(Self.corpus.path)) is absent: no footage of people to find bodies in")
            throw XCTSkip("shared corpus absent")
        }
        return paths
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
                for side, off in (('left', 33), ('right', 54)):
                    if f['bodies']:
                        if side in by_arm:
                            want = np.array(by_arm[side]['landmarks'], dtype=np.float32) * np.array([W, H, 1], dtype=np.float32)
                            assert np.allclose(data[off:off + 21], want, rtol=1e-6, atol=1e-3), (name, fi, side)
                        else:
                            assert np.all(conf[off:off + 21] == 0), (name, fi, side)
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
    }
}
