import Foundation
import TestSupport
import XCTest

/// `extract --complete` end to end with the real models, on `handpose synth --losses` clips (hands that
/// rise into view and are hidden for a few frames): every output format read by its own reader in .venv
/// (the marks of backward and interpolated hands in JSON, CSV, npz and pose-format), plain extraction's
/// hands kept bit for bit, one chirality per track, `status` and resume telling completed files from plain
/// ones, `export` refusing to mix them and carrying interpolated hands into its mask as 2.
final class CompleteCommandTests: XCTestCase {
    var dir: URL!
    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("complete-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }
    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    func testCompleteEndToEnd() throws {
        let models = try ToolRunner.models()
        let python = ToolRunner.root.appendingPathComponent(".venv/bin/python").path
        let (check, missing) = try ToolRunner.process(python, ["-c", "import pose_format, numpy"])
        guard check == 0 else {
            print("SKIP: .venv lacks pose-format or NumPy (run `make setup`): \(missing.suffix(200))")
            throw Prerequisite.missing("no pose-format in .venv")
        }
        let synth = dir.appendingPathComponent("synth").path
        let plain = dir.appendingPathComponent("plain").path, completed = dir.appendingPathComponent("completed").path
        var (code, text) = try ToolRunner.run(["synth", "-o", synth, "--per-class", "1", "--montages", "1", "--poses-per-class", "0", "--seed", "3", "--losses"])
        XCTAssertEqual(code, 0, text)
        let formats = ["--format", "json,csv,npz,pose", "--models", models]
        (code, text) = try ToolRunner.run(["extract", synth, "-r", "-o", plain] + formats)
        XCTAssertEqual(code, 0, text)
        (code, text) = try ToolRunner.run(["extract", synth, "-r", "-o", completed, "--complete"] + formats)
        XCTAssertEqual(code, 0, text)

        let script = #"""
        import csv, json, os, sys
        import numpy as np
        from pose_format import Pose
        plain, done = sys.argv[1], sys.argv[2]
        names = sorted(os.path.relpath(os.path.join(r, f), done)[:-len('.hands.json')]
                       for r, _, fs in os.walk(done) for f in fs if f.endswith('.hands.json'))
        assert len(names) == 8, names
        totals = {'backward': 0, 'interpolated': 0, 'kept': 0}
        for name in names:
            p, c = (json.load(open(os.path.join(d, name + '.hands.json'))) for d in (plain, done))
            assert 'completion' not in p['settings'], p['settings']
            assert c['settings']['completion'] == 'backward-1s+join-0.5s+fill-0.3s+vote', c['settings']
            assert [f['i'] for f in p['frames']] == [f['i'] for f in c['frames']]
            chirality = {}
            for fp, fc in zip(p['frames'], c['frames']):
                found = [h for h in fc['hands'] if 'origin' not in h]
                assert len(found) == len(fp['hands']), (name, fp['i'])
                for a, b in zip(fp['hands'], found):
                    for k in ('landmarks', 'world', 'handedness', 'presence'): assert a[k] == b[k], (name, fp['i'], k)
                    totals['kept'] += 1
                for h in fc['hands']:
                    if 'origin' in h:
                        assert h['origin'] in ('backward', 'interpolated'), h['origin']
                        totals[h['origin']] += 1
                        assert ('region' in h) == (h['origin'] == 'backward'), 'an interpolated hand has no region'
                    assert chirality.setdefault(h['track'], h['chirality']) == h['chirality'], (name, 'one chirality per track')
            # npz: mask stays bool (every hand); `interpolated` marks the filled ones, and only completed files have it.
            zp, zc = (np.load(os.path.join(d, name + '.npz')) for d in (plain, done))
            assert zp['mask'].dtype == bool and zc['mask'].dtype == bool and zc['interpolated'].dtype == bool
            assert 'interpolated' not in zp.files, zp.files
            for k, fc in enumerate(c['frames']):
                n = len(fc['hands'])
                assert list(zc['mask'][k][:n]) == [True] * n and not zc['mask'][k][n:].any(), (name, k)
                assert list(zc['interpolated'][k][:n]) == [h.get('origin') == 'interpolated' for h in fc['hands']], (name, k)
            # csv: an origin column last, one row per hand in order; the plain file has none.
            hp = next(csv.reader(open(os.path.join(plain, name + '.csv'), newline='')))
            rows = list(csv.reader(open(os.path.join(done, name + '.csv'), newline='')))
            assert rows[0] == hp + ['origin'], rows[0][-2:]
            assert [r[-1] for r in rows[1:]] == [h.get('origin', '') for f in c['frames'] for h in f['hands']], name
            # pose-format: per side, a hand found forward goes first, then backward, then interpolated; an
            # interpolated hand keeps its points with confidence 0 (masked as not observed).
            pose = Pose.read(open(os.path.join(done, name + '.pose'), 'rb').read())
            conf, data = pose.body.confidence, pose.body.data.data
            rank = {None: 2, 'backward': 1, 'interpolated': 0}
            for k, fc in enumerate(c['frames']):
                for side, chirality in ((0, 'left'), (21, 'right')):
                    mine = [h for h in fc['hands'] if h['chirality'] == chirality]
                    if not mine:
                        assert (conf[k, 0, side:side + 21] == 0).all(); continue
                    top = max(rank[h.get('origin')] for h in mine)
                    chosen = [h for h in mine if rank[h.get('origin')] == top]
                    assert any(abs(data[k, 0, side, 0] - h['landmarks'][0][0] * c['video']['width']) < 0.01 for h in chosen), (name, k, side)
                    if top == 0: assert (conf[k, 0, side:side + 21] == 0).all(), (name, k)
                    else: assert (conf[k, 0, side:side + 21] > 0).all(), (name, k)
        assert totals['backward'] > 0 and totals['interpolated'] > 0, totals
        print(json.dumps(totals))
        """#
        (code, text) = try ToolRunner.process(python, ["-c", script, plain, completed])
        XCTAssertEqual(code, 0, text)

        // status and resume tell completed files from plain ones.
        (code, text) = try ToolRunner.run(["status", completed, "--inputs", synth, "-r", "--complete"] + formats)
        XCTAssertEqual(code, 0, text)
        (code, text) = try ToolRunner.run(["status", completed, "--inputs", synth, "-r"] + formats)
        XCTAssertNotEqual(code, 0, text)
        // Named by its flag, as export names it below: one table for both.
        XCTAssertTrue(text.contains("--complete backward-1s+join-0.5s+fill-0.3s+vote (asked none)"), text)
        (code, text) = try ToolRunner.run(["status", completed, "--inputs", synth, "-r", "--json"] + formats)
        XCTAssertNotEqual(code, 0, text)
        // --json gives the difference typed: field, recorded, asked.
        struct Open: Decodable { var open: [Entry]; struct Entry: Decodable { var differences: [[String: String]]? } }
        let json = try XCTUnwrap(text.firstIndex(of: "{").flatMap { a in text.lastIndex(of: "}").map { text[a...$0] } }, text)
        let open = try JSONDecoder().decode(Open.self, from: Data(json.utf8)).open
        XCTAssertFalse(open.isEmpty, text)
        for entry in open {
            XCTAssertEqual(entry.differences, [["field": "completion", "recorded": "backward-1s+join-0.5s+fill-0.3s+vote", "asked": "none"]], text)
        }
        // The index on disk keeps its format: the differences are told from the settings it holds.
        let index = try String(contentsOfFile: completed + "/index.jsonl", encoding: .utf8)
        XCTAssertFalse(index.isEmpty)
        XCTAssertFalse(index.contains("differences"), index)
        (code, text) = try ToolRunner.run(["extract", synth, "-r", "-o", completed, "--complete"] + formats)
        XCTAssertEqual(code, 0, text)
        XCTAssertTrue(text.contains("8 files: 0 done, 8 skipped"), text)
        (code, text) = try ToolRunner.run(["extract", synth, "-r", "-o", plain, "--complete"] + formats)
        XCTAssertEqual(code, 0, text)
        XCTAssertTrue(text.contains("8 files: 8 done, 0 skipped"), "plain files are redone for --complete: \(text)")

        // export never mixes: completed keypoints are refused without --complete, and with it the mask says 2.
        let annotations = synth + "/annotations.csv"
        (code, text) = try ToolRunner.run(["export", "actions", annotations, "--keypoints", completed, "-o", dir.appendingPathComponent("e1").path,
                                           "--window", "15", "--fps", "15", "--models", models])
        XCTAssertNotEqual(code, 0, text)
        XCTAssertTrue(text.contains("its keypoints were made with other settings (--complete backward-1s+join-0.5s+fill-0.3s+vote (asked none))"), text)
        let export = dir.appendingPathComponent("e2").path
        (code, text) = try ToolRunner.run(["export", "actions", annotations, "--keypoints", completed, "-o", export,
                                           "--window", "15", "--fps", "15", "--complete", "--models", models])
        XCTAssertEqual(code, 0, text)
        (code, text) = try ToolRunner.process(python, ["-c", "import numpy as np, sys; m = np.load(sys.argv[1]); print(sorted(set(m.ravel().tolist())))",
                                                       export + "/mask.npy"])
        XCTAssertEqual(code, 0, text)
        XCTAssertEqual(text.trimmingCharacters(in: .whitespacesAndNewlines), "[0, 1, 2]", "no hand, estimated and interpolated slots")
    }

    func testCompleteNeedsVideoMode() throws {
        let (code, text) = try ToolRunner.run(["extract", "Samples/poses", "-r", "-o", dir.path, "--complete", "--mode", "image"])
        XCTAssertEqual(code, 64, text)
        XCTAssertTrue(text.contains("--complete follows hands over time: it needs --mode video"), text)
    }
}
