import Foundation
import XCTest

/// #45's findings replayed through the tool as a user meets them: a FIFO among the inputs, keypoint
/// files emptied, cut or holding 1e30, a report of nothing, a suggest root that is not there, a flag of -1,
/// overlapping labels converted to ELAN and read back. Each gives a named error and a non-zero exit, or
/// the whole result; none hangs, crashes or loses a file.
final class HostileCommandTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("in"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: ToolRunner.root.appendingPathComponent("Samples/actions/grab_0.mp4"),
                                         to: dir.appendingPathComponent("in/grab_0.mp4"))
    }

    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    func handpose(_ arguments: [String]) throws -> (Int32, String) {
        try ToolRunner.run(arguments, environment: ["HANDPOSE_MODELS": try ToolRunner.models()])
    }

    func path(_ relative: String) -> String { dir.appendingPathComponent(relative).path }

    /// Extracts `in/` into `out/` (one clip), for the tests that then damage its keypoint file.
    func extracted() throws -> URL {
        let (code, output) = try handpose(["extract", path("in"), "-o", path("out"), "--jobs", "1", "-q"])
        XCTAssertEqual(code, 0, output)
        return dir.appendingPathComponent("out/grab_0.mp4.hands.json")
    }

    /// Rewrites a keypoint file through a JSON edit, as a user's script would.
    func edit(_ url: URL, to: URL? = nil, _ change: (inout [String: Any]) -> Void) throws {
        var object = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
        change(&object)
        try JSONSerialization.data(withJSONObject: object).write(to: to ?? url)
    }

    func testAFIFOAmongTheInputsFailsAloneAndNothingHangs() throws {
        XCTAssertEqual(mkfifo(path("in/p.mp4"), 0o644), 0)
        let (code, output) = try handpose(["extract", path("in"), "-o", path("out"), "--jobs", "1"])
        XCTAssertEqual(code, 1, output)
        XCTAssertTrue(output.contains("p.mp4") && output.contains("FIFO"), output)
        XCTAssertTrue(FileManager.default.fileExists(atPath: path("out/grab_0.mp4.hands.json")), output)
        let probe = try handpose(["probe", path("in/p.mp4")])
        XCTAssertNotEqual(probe.0, 0)
        XCTAssertTrue(probe.1.contains("FIFO"), probe.1)
        try "video,label,start,end\np.mp4,wave,0,1\ngrab_0.mp4,grab,0,1\n".write(toFile: path("in/a.csv"), atomically: true, encoding: .utf8)
        let validate = try handpose(["validate", path("in/a.csv")])
        XCTAssertEqual(validate.0, 2, validate.1)
        XCTAssertTrue(validate.1.contains("a.csv:2") && validate.1.contains("FIFO"), validate.1)
        // The annotation file itself a FIFO: named, not waited on.
        XCTAssertEqual(mkfifo(path("in/b.csv"), 0o644), 0)
        let fifo = try handpose(["validate", path("in/b.csv")])
        XCTAssertNotEqual(fifo.0, 0)
        XCTAssertTrue(fifo.1.contains("FIFO"), fifo.1)
    }

    /// A keypoint file emptied of frames: not done for status, refused by render and report, and export
    /// keeps it beside the new one, naming it and the reason.
    func testAKeypointFileWithoutItsFramesIsNotDoneAnywhere() throws {
        let url = try extracted()
        try edit(url) { $0["frames"] = [Any]() }
        let original = try Data(contentsOf: url)
        let status = try handpose(["status", path("out"), "--inputs", path("in")])
        XCTAssertEqual(status.0, 1, status.1)
        XCTAssertTrue(status.1.contains("unreadable") && status.1.contains("holds 0"), status.1)
        let render = try handpose(["render", path("in/grab_0.mp4"), "--keypoints", url.path, "--sheet", "-o", path("sheet.png")])
        XCTAssertNotEqual(render.0, 0)
        XCTAssertTrue(render.1.contains("holds 0"), render.1)
        let report = try handpose(["report", "--keypoints", path("out")])
        XCTAssertEqual(report.0, 2, report.1)
        XCTAssertTrue(report.1.contains("none of the 1 keypoint files"), report.1)
        try "video,label,start,end\ngrab_0.mp4,grab,0,1\n".write(toFile: path("in/b.csv"), atomically: true, encoding: .utf8)
        let export = try handpose(["export", "actions", path("in/b.csv"), "--keypoints", path("out"), "-o", path("exp"), "--fps", "15", "--window", "10", "-q"])
        XCTAssertEqual(export.0, 0, export.1)
        XCTAssertTrue(export.1.contains("grab_0.mp4") && export.1.contains("kept as") && export.1.contains("holds 0"), export.1)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: url.path + ".unreadable")), original, "the broken file is kept as it was")
        let remade = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any]
        XCTAssertGreaterThan((remade?["frames"] as? [Any])?.count ?? 0, 0, "the clip was extracted again")
    }

    /// A landmark of 1e30 (finite, so once accepted): refused by render --sheet, status and export.
    func testAnImplausibleLandmarkIsRefusedNotDrawnOrExported() throws {
        let url = try extracted()
        try edit(url) { object in
            var frames = object["frames"] as! [[String: Any]]
            var hands = frames[3]["hands"] as! [[String: Any]]
            var landmarks = hands[0]["landmarks"] as! [[Double]]
            landmarks[5][0] = 1e30
            hands[0]["landmarks"] = landmarks
            frames[3]["hands"] = hands
            object["frames"] = frames
        }
        let render = try handpose(["render", path("in/grab_0.mp4"), "--keypoints", url.path, "--sheet", "-o", path("sheet.png")])
        XCTAssertEqual(render.0, 3, render.1)
        XCTAssertTrue(render.1.contains("frame 3") && render.1.contains("landmark 5"), render.1)
        let status = try handpose(["status", path("out"), "--inputs", path("in")])
        XCTAssertEqual(status.0, 1, status.1)
        try "video,label,start,end\ngrab_0.mp4,grab,0,1\n".write(toFile: path("in/b.csv"), atomically: true, encoding: .utf8)
        let export = try handpose(["export", "actions", path("in/b.csv"), "--keypoints", path("out"), "-o", path("exp"), "--fps", "15", "--window", "10", "-q"])
        XCTAssertEqual(export.0, 0, export.1)
        let check = try ToolRunner.process(ToolRunner.root.appendingPathComponent(".venv/bin/python").path,
                                           ["-c", "import numpy as np, sys; x = np.load(sys.argv[1]); print(float(np.abs(x).max()))", path("exp/X.npy")])
        XCTAssertEqual(check.0, 0, check.1)
        XCTAssertLessThan(Double(check.1.trimmingCharacters(in: .whitespacesAndNewlines)) ?? .infinity, 100, "X.npy holds no 1e30: \(check.1)")
    }

    func testReportSuggestAndFlagsSayWhatIsWrong() throws {
        let url = try extracted()
        let suggest = try handpose(["annotations", "suggest", url.path, "--root", "/nonexistent-\(UUID().uuidString)", "-o", path("drafts.csv")])
        XCTAssertNotEqual(suggest.0, 0, suggest.1)
        XCTAssertTrue(suggest.1.contains("--root") && suggest.1.contains("no such folder"), suggest.1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("drafts.csv")))
        let file = try handpose(["report", "--keypoints", url.path])
        XCTAssertNotEqual(file.0, 0)
        XCTAssertTrue(file.1.contains("not a folder"), file.1)
        let jobs = try handpose(["extract", path("in"), "-o", path("out2"), "--jobs", "-1"])
        XCTAssertEqual(jobs.0, 64, jobs.1)
        XCTAssertTrue(jobs.1.contains("--jobs must be at least 1"), jobs.1)
    }

    /// The findings of 2026-11-29's audit, through the tool: a wrist below the frame's edge (a hand raised
    /// from below, as MediaPipe reports it) drawn, not a crash; numbers no file holds refused as flags; a
    /// NumPy header with its shape's brackets reversed refused by `report`, naming the file.
    func testEdgesOfTheFrameAndOfTheFormatsAreNotCrashes() throws {
        let url = try extracted()
        try edit(url) { object in
            object["frames"] = (object["frames"] as! [[String: Any]]).map { frame in
                var frame = frame
                frame["hands"] = (frame["hands"] as! [[String: Any]]).map { hand in
                    var hand = hand, landmarks = hand["landmarks"] as! [[Double]]
                    landmarks[0][1] = 1.2
                    hand["landmarks"] = landmarks
                    return hand
                }
                return frame
            }
        }
        for extra in [["--sheet", "-o", path("sheet.png")], ["--frames", "0,5", "-o", path("frames")], ["-o", path("drawn.mp4")]] {
            let render = try handpose(["render", path("in/grab_0.mp4"), "--keypoints", url.path] + extra)
            XCTAssertEqual(render.0, 0, "\(extra): \(render.1)")
        }
        let bodies = try handpose(["extract", path("in"), "-o", path("out3"), "--body", "--max-bodies", "65536", "--format", "pose"])
        XCTAssertEqual(bodies.0, 64, bodies.1)
        XCTAssertTrue(bodies.1.contains("--max-bodies takes 1 to 100"), bodies.1)
        let sheet = try handpose(["render", path("in/grab_0.mp4"), "--keypoints", url.path, "--sheet", "--sheet-frames", "9223372036854775807", "-o", path("s.png")])
        XCTAssertEqual(sheet.0, 64, sheet.1)
        XCTAssertTrue(sheet.1.contains("--sheet-frames takes 1 to 100"), sheet.1)

        try "video,label,start,end\ngrab_0.mp4,grab,0,1\n".write(toFile: path("in/b.csv"), atomically: true, encoding: .utf8)
        let export = try handpose(["export", "actions", path("in/b.csv"), "--keypoints", path("out"), "-o", path("exp"), "--fps", "15", "--window", "10", "-q"])
        XCTAssertEqual(export.0, 0, export.1)
        XCTAssertEqual(try handpose(["report", path("exp")]).0, 0)
        let y = dir.appendingPathComponent("exp/y.npy")
        var bytes = try Data(contentsOf: y)
        let open = try XCTUnwrap(bytes.range(of: Data("'shape': (".utf8))).upperBound - 1
        let close = try XCTUnwrap(bytes[open...].firstIndex(of: UInt8(ascii: ")")))
        (bytes[open], bytes[close]) = (UInt8(ascii: ")"), UInt8(ascii: "("))
        try bytes.write(to: y)
        let report = try handpose(["report", path("exp")])
        XCTAssertNotEqual(report.0, 0, report.1)
        XCTAssertLessThan(report.0, 128, "an exit, not a signal: \(report.1)")
        XCTAssertTrue(report.1.contains("y.npy") && report.1.contains("no shape"), report.1)
    }

    /// Overlapping segments on one clip, converted to ELAN (further tiers) and back, without --tier.
    func testConvertedOverlapsReadBackByDefault() throws {
        let csv = "video,label,start,end\ngrab_0.mp4,grab,0.0,1.0\ngrab_0.mp4,wave,0.5,1.5\ngrab_0.mp4,point,0.7,0.9\n"
        try csv.write(toFile: path("in/o.csv"), atomically: true, encoding: .utf8)
        let to = try handpose(["annotations", "convert", path("in/o.csv"), "-o", path("elan"), "--to", "eaf"])
        XCTAssertEqual(to.0, 0, to.1)
        let back = try handpose(["annotations", "convert", path("elan"), "-o", path("back.csv"), "--root", path("in")])
        XCTAssertEqual(back.0, 0, back.1)
        let lines = try String(contentsOfFile: path("back.csv"), encoding: .utf8).split(separator: "\n").dropFirst().sorted()
        XCTAssertEqual(lines, csv.split(separator: "\n").dropFirst().sorted())
    }

    /// A name with a byte that is not UTF-8 (`b\xff.mp4`, as a Latin-1 machine writes it), made in `folder`:
    /// a hard link to `source`, or a folder when `source` is nil.
    func oddName(in folder: String, _ stem: String, _ suffix: String, linking source: String?) throws {
        let bytes = Array((folder + "/" + stem).utf8) + [0xFF] + Array(suffix.utf8)
        let made = bytes.map { CChar(bitPattern: $0) } + [0]
        let rc = source.map { link($0, made) } ?? mkdir(made, 0o755)
        XCTAssertEqual(rc, 0, "cannot make \(stem)\\xFF\(suffix): errno \(errno)")
    }

    /// The sixth audit's findings through the tool (2026-11-29): an edited shard record, synth's counts,
    /// frame rates below the range, and names that are not UTF-8, which FileManager turned into other names
    /// (a clip skipped as "a link to nothing" with exit 0, a class or keypoint file silently missing). Each is
    /// now an error naming the path and a non-zero exit; nothing traps or runs without end.
    func testTheSixthAuditsInputsAreNamedErrorsNotCrashesOrSilentGaps() throws {
        let url = try extracted()
        // status: a record of 0 divided by, of -3 trapped, of 10^12 listed a trillion shards.
        for text in ["0", "-3", "1000000000000"] {
            try Data((text + "\n").utf8).write(to: dir.appendingPathComponent("out/.handpose-shards"))
            let status = try handpose(["status", path("out"), "--inputs", path("in")])
            XCTAssertEqual(status.0, 3, "\(text): \(status.1)")
            XCTAssertTrue(status.1.contains(".handpose-shards") && status.1.contains("not a shard count"), status.1)
        }
        try FileManager.default.removeItem(at: dir.appendingPathComponent("out/.handpose-shards"))
        for flag in ["--montages=-1", "--poses-per-class=-1", "--per-class=100000000"] {
            let synth = try handpose(["synth", "-o", path("syn"), flag])
            XCTAssertEqual(synth.0, 64, "\(flag): \(synth.1)")
        }
        try "video,label,start,end\ngrab_0.mp4,grab,0,1\n".write(toFile: path("in/b.csv"), atomically: true, encoding: .utf8)
        let convert = try handpose(["annotations", "convert", path("in/b.csv"), "-o", path("b.json"), "--to", "label-studio", "--output-frame-rate", "1e-300"])
        XCTAssertEqual(convert.0, 64, convert.1)
        XCTAssertTrue(convert.1.contains("--output-frame-rate must be from"), convert.1)
        let suggest = try handpose(["annotations", "suggest", url.path, "-o", path("d.json"), "--to", "label-studio", "--frame-rate", "1e-300", "--root", path("in")])
        XCTAssertEqual(suggest.0, 64, suggest.1)

        // Names that are not UTF-8: a clip among the inputs is named and fails the run; the others are done.
        try oddName(in: path("in"), "b", ".mp4", linking: path("in/grab_0.mp4"))
        let extract = try handpose(["extract", path("in"), "-o", path("out-odd"), "--jobs", "1"])
        XCTAssertEqual(extract.0, 1, extract.1)
        XCTAssertTrue(extract.1.contains("b\\xFF.mp4") && extract.1.contains("not valid UTF-8"), extract.1)
        XCTAssertTrue(FileManager.default.fileExists(atPath: path("out-odd/grab_0.mp4.hands.json")), "the other clip is done")
        // A labelled folder's clip so named is an error of validate, not a class that quietly holds fewer clips.
        try FileManager.default.createDirectory(atPath: path("labelled/grab"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: path("in/grab_0.mp4"), toPath: path("labelled/grab/a.mp4"))
        try oddName(in: path("labelled/grab"), "c", ".mp4", linking: path("in/grab_0.mp4"))
        let validate = try handpose(["validate", path("labelled")])
        XCTAssertEqual(validate.0, 2, validate.1)
        XCTAssertTrue(validate.1.contains("c\\xFF.mp4") && validate.1.contains("not valid UTF-8"), validate.1)
        // report and compare: a sub-folder so named may hold keypoint files; it is named, and the exit says so.
        try oddName(in: path("out"), "sub", "", linking: nil)
        let report = try handpose(["report", "--keypoints", path("out")])
        XCTAssertEqual(report.0, 1, report.1)
        XCTAssertTrue(report.1.contains("sub\\xFF") && report.1.contains("not valid UTF-8"), report.1)
        let compare = try handpose(["compare", path("out"), path("out-odd")])
        XCTAssertEqual(compare.0, 1, compare.1)
        XCTAssertTrue(compare.1.contains("sub\\xFF"), compare.1)
    }

    /// The eighth audit's flags (2026-11-29): each out of its range is a usage error (64) naming it, never a trap,
    /// an allocation failure, empty clips or segments collapsed to 0 s.
    func testTheEighthAuditsFlagsAreUsageErrors() throws {
        try "video,label,start,end\ngrab_0.mp4,grab,0,1\n".write(toFile: path("in/c.csv"), atomically: true, encoding: .utf8)
        let model = ToolRunner.root.appendingPathComponent("Models/hand_landmark_lite.tflite").path
        let cases: [([String], String)] = [
            (["annotations", "convert", path("in/c.csv"), "-o", path("c.json"), "--to", "label-studio", "--frame-rate", "inf"], "--frame-rate must be from"),
            (["validate", path("in/c.csv"), "--frame-rate", "1e7"], "--frame-rate must be from"),
            (["validate", path("in/c.csv"), "--fps", "inf"], "--fps must be from"),
            (["validate", path("in/c.csv"), "--window", "4294967297000000"], "--window must be from"),
            (["synth", "-o", path("syn0"), "--seconds", "0.03", "--per-class", "1"], "less than one frame"),
            (["bench", "profile", model, "--threads", "9223372036854775807"], "--threads must be from"),
            (["bench", "profile", model, "--top=-1"], "--top must be from"),
            (["bench", "profile", model, "--against-unfused", "--runs", "0"], "--runs must be from"),
            (["bench", "models", "--threads", "1000000"], "--threads must be from"),
            (["bench", "decode", path("in/grab_0.mp4"), "--passes", "0"], "--passes must be from"),
        ]
        for (arguments, expected) in cases {
            let (code, text) = try handpose(arguments)
            XCTAssertEqual(code, 64, "\(arguments): \(text)")
            XCTAssertTrue(text.contains(expected), "\(arguments): \(text)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("syn0")), "no clip without frames is written")

        // Another model's file under a known name: the run cannot start (3), naming the file, and blames no input.
        let models = try ToolRunner.models()
        try FileManager.default.createDirectory(atPath: path("models"), withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: models) where name.hasSuffix(".tflite") {
            let source = name == "palm_detection_full.tflite" ? "pose_detection.tflite" : name
            try FileManager.default.copyItem(atPath: models + "/" + source, toPath: path("models/" + name))
        }
        let (code, text) = try handpose(["extract", path("in"), "-o", path("out-swapped"), "--models", path("models")])
        XCTAssertEqual(code, 3, text)
        XCTAssertTrue(text.contains("palm_detection_full.tflite") && text.contains("another model's file"), text)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("out-swapped/grab_0.mp4.failed.json")), text)
    }
}
