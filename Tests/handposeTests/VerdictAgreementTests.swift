import Foundation
import Keypoints
import TestSupport
import XCTest

/// `extract`, `status` and `export` agree on every input's verdict: one table, a case per verdict
/// (an edited clip and a JPEG read before libjpeg-turbo among them), each command run as a user runs
/// it on its own copy of one keypoints folder.
final class VerdictAgreementTests: XCTestCase {
    var dir: URL!
    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("verdicts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }
    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    /// What each command does with an input of a verdict: status's state; whether extract (without
    /// --overwrite) makes its keypoints again; export's accept, refuse or extract.
    struct Row {
        var input: String
        var state: String
        var extractRedoes: Bool
        var export: String
    }

    let table: [Row] = [
        Row(input: "clips/done.mp4", state: "done", extractRedoes: false, export: "accept"),
        Row(input: "clips/missing.mp4", state: "missing", extractRedoes: true, export: "extract"),
        Row(input: "clips/failed.mp4", state: "failed", extractRedoes: true, export: "extract"),
        Row(input: "clips/incomplete.mp4", state: "incomplete", extractRedoes: false, export: "refuse"),
        Row(input: "clips/edited.mp4", state: "stale", extractRedoes: true, export: "extract"),
        Row(input: "clips/maxhands.mp4", state: "other-settings", extractRedoes: true, export: "refuse"),
        Row(input: "clips/models.mp4", state: "other-models", extractRedoes: true, export: "refuse"),
        Row(input: "clips/garbage.mp4", state: "unreadable", extractRedoes: true, export: "extract"),
        Row(input: "poses/fist/new.jpg", state: "done", extractRedoes: false, export: "accept"),
        Row(input: "poses/fist/old.jpg", state: "other-settings", extractRedoes: true, export: "refuse"),
    ]

    func cp(_ from: URL, _ to: URL) throws {
        let (code, text) = try ToolRunner.process("/bin/cp", ["-a", from.path, to.path])
        XCTAssertEqual(code, 0, text)
    }

    /// Each keypoint file's bytes and time, by input.
    func snapshot(_ kp: URL) -> [String: (Data, Date)] {
        var out: [String: (Data, Date)] = [:]
        for row in table {
            let url = kp.appendingPathComponent(row.input + ".hands.json")
            if let data = try? Data(contentsOf: url), let date = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date {
                out[row.input] = (data, date)
            }
        }
        return out
    }

    func rewrite(_ url: URL, _ edit: (inout KeypointFile) -> Void) throws {
        var file = try KeypointFile.load(url)
        edit(&file)
        try file.write(to: url)
    }

    func testExtractStatusAndExportAgreeOnEveryVerdict() throws {
        let models = try ToolRunner.models()
        let input = dir.appendingPathComponent("in"), kp = dir.appendingPathComponent("kp")
        let fm = FileManager.default
        try fm.createDirectory(at: input.appendingPathComponent("clips"), withIntermediateDirectories: true)
        try fm.createDirectory(at: input.appendingPathComponent("poses/fist"), withIntermediateDirectories: true)
        let samples = ToolRunner.root.appendingPathComponent("Samples")
        let sources = ["done": "wave_0", "missing": "wave_1", "failed": "grab_0", "incomplete": "grab_1", "edited": "pinch_0",
                       "maxhands": "pinch_1", "models": "point_0", "garbage": "point_1"]
        for (name, source) in sources {
            try fm.copyItem(at: samples.appendingPathComponent("actions/\(source).mp4"), to: input.appendingPathComponent("clips/\(name).mp4"))
        }
        for (name, source) in ["new": "fist_0", "old": "fist_1"] {
            let (code, text) = try ToolRunner.process("/usr/bin/ffmpeg", ["-v", "error", "-i", samples.appendingPathComponent("poses/fist/\(source).png").path,
                                                                          input.appendingPathComponent("poses/fist/\(name).jpg").path])
            guard code == 0 else { print("SKIP: ffmpeg cannot write JPEG here: \(text)"); throw Prerequisite.missing("ffmpeg") }
        }
        // Everything extracted, then each case made as a user's folder comes to hold it.
        let (first, firstText) = try ToolRunner.run(["extract", input.path, "-r", "-o", kp.path, "--models", models, "-q"])
        XCTAssertEqual(first, 0, firstText)
        func keypoints(_ input: String) -> URL { kp.appendingPathComponent(input + ".hands.json") }
        try fm.removeItem(at: keypoints("clips/missing.mp4"))
        try fm.removeItem(at: keypoints("clips/failed.mp4"))
        let (crashed, crashText) = try ToolRunner.run(["extract", input.path, "-r", "-o", kp.path, "--models", models, "-q"],
                                                      environment: ["HANDPOSE_TEST_CRASH_ON": "failed.mp4"])
        XCTAssertEqual(crashed, 1, crashText)
        try fm.removeItem(at: keypoints("clips/missing.mp4"))   // made again by the run above
        try rewrite(keypoints("clips/incomplete.mp4")) { $0.incomplete = .init(error: "frame 20: Invalid data found when processing input", lastGoodFrame: $0.frames.last?.i) }
        try rewrite(keypoints("clips/models.mp4")) { $0.models?["hand_landmark_full.tflite"] = String(repeating: "0", count: 64) }
        try Data("{\"schema\": 7".utf8).write(to: keypoints("clips/garbage.mp4"))
        try rewrite(keypoints("poses/fist/old.jpg")) { $0.video.decoder = nil }
        let (other, otherText) = try ToolRunner.run(["extract", input.appendingPathComponent("clips/maxhands.mp4").path, "-o", kp.appendingPathComponent("clips").path,
                                                     "--models", models, "--max-hands", "1", "-q"])
        XCTAssertEqual(other, 0, otherText)
        // The clip is edited after its keypoints were made: a new version of it, dated later.
        try fm.removeItem(at: input.appendingPathComponent("clips/edited.mp4"))
        try fm.copyItem(at: samples.appendingPathComponent("actions/swipe_left_0.mp4"), to: input.appendingPathComponent("clips/edited.mp4"))
        for row in table where fm.fileExists(atPath: keypoints(row.input).path) {
            let age: TimeInterval = row.input == "clips/edited.mp4" ? 3600 : 0
            try fm.setAttributes([.modificationDate: Date().addingTimeInterval(-age)], ofItemAtPath: keypoints(row.input).path)
        }
        try fm.setAttributes([.modificationDate: Date().addingTimeInterval(-7200)], ofItemAtPath: input.appendingPathComponent("clips/done.mp4").path)
        let before = snapshot(kp)
        let kpStatus = dir.appendingPathComponent("kp-status"), kpExtract = dir.appendingPathComponent("kp-extract"), kpExport = dir.appendingPathComponent("kp-export")
        for copy in [kpStatus, kpExtract, kpExport] { try cp(kp, copy) }

        // status
        let (statusCode, statusText) = try ToolRunner.run(["status", kpStatus.path, "--inputs", input.path, "-r", "--models", models])
        XCTAssertEqual(statusCode, 1, statusText)
        var states: [String: String] = [:]
        for line in try String(contentsOf: kpStatus.appendingPathComponent("index.jsonl"), encoding: .utf8).split(separator: "\n") {
            let entry = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            states[entry["path"] as! String] = entry["state"] as? String
        }

        // extract, without --overwrite
        // Exit 1: the incomplete file is kept and listed, as a damaged clip is on every run.
        let (extractCode, extractText) = try ToolRunner.run(["extract", input.path, "-r", "-o", kpExtract.path, "--models", models])
        XCTAssertEqual(extractCode, 1, extractText)
        XCTAssertTrue(extractText.contains("2 skipped, 1 incomplete, 0 failed"), extractText)
        let afterExtract = snapshot(kpExtract)

        // export: actions over the clips, poses over the stills, --skip-bad so refusals are listed
        var csv = "video,label,start,end\n"
        for row in table where row.input.hasPrefix("clips/") { csv += "\(row.input),\(row.input.contains("e") ? "a" : "b"),0,1\n" }
        try csv.write(to: input.appendingPathComponent("annotations.csv"), atomically: true, encoding: .utf8)
        let (actionsCode, actionsText) = try ToolRunner.run(["export", "actions", input.appendingPathComponent("annotations.csv").path, "--keypoints", kpExport.path,
                                                             "-o", dir.appendingPathComponent("actions").path, "--models", models, "--fps", "15", "--window", "5", "--skip-bad"])
        XCTAssertEqual(actionsCode, 0, actionsText)
        let (posesCode, posesText) = try ToolRunner.run(["export", "poses", input.appendingPathComponent("poses").path, "--keypoints", kpExport.appendingPathComponent("poses").path,
                                                         "-o", dir.appendingPathComponent("poses").path, "--models", models, "--skip-bad"])
        XCTAssertEqual(posesCode, 0, posesText)
        var refused: Set<String> = []
        for (folder, base) in [("actions", input), ("poses", input.appendingPathComponent("poses"))] {
            let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent(folder + "/dataset.json"))) as! [String: Any]
            for s in manifest["skipped"] as? [[String: String]] ?? [] {
                let path = URL(fileURLWithPath: s["path"]!).standardizedFileURL.path
                refused.insert((folder == "poses" ? "poses/" : "") + String(path.dropFirst(base.standardizedFileURL.path.count + 1)))
            }
        }
        let afterExport = snapshot(kpExport)

        for row in table {
            XCTAssertEqual(states[row.input], row.state, "status on \(row.input)")
            let redone = afterExtract[row.input].map { a in before[row.input].map { a.0 != $0.0 || a.1 != $0.1 } ?? true } ?? false
            XCTAssertEqual(redone, row.extractRedoes, "extract on \(row.input) (\(row.state))")
            let rewritten = afterExport[row.input].map { a in before[row.input].map { a.0 != $0.0 || a.1 != $0.1 } ?? true } ?? false
            let action = refused.contains(row.input) ? "refuse" : rewritten ? "extract" : "accept"
            XCTAssertEqual(action, row.export, "export on \(row.input) (\(row.state)): \(actionsText) \(posesText)")
        }
        XCTAssertTrue(actionsText.contains("incomplete.mp4: its keypoints are incomplete (frame 20: Invalid data"), actionsText)
        XCTAssertTrue(actionsText.contains("maxhands.mp4: its keypoints were made with other settings (--max-hands 1 (asked 2))"), actionsText)
    }

    /// Without the models here, export takes the models most files share as the reference, so the same
    /// export twice refuses the same files (it took them from whichever file a dictionary gave first).
    func testWithoutModelsTheSameExportRefusesTheSameFiles() throws {
        let models = try ToolRunner.models()
        let input = dir.appendingPathComponent("in"), kp = dir.appendingPathComponent("kp")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        var csv = "video,label,start,end\n"
        for (k, source) in ["wave_0", "wave_1", "grab_0", "grab_1", "pinch_0"].enumerated() {
            try FileManager.default.copyItem(at: ToolRunner.root.appendingPathComponent("Samples/actions/\(source).mp4"), to: input.appendingPathComponent("\(source).mp4"))
            csv += "\(source).mp4,\(k % 2 == 0 ? "a" : "b"),0,1\n"
        }
        try csv.write(to: input.appendingPathComponent("annotations.csv"), atomically: true, encoding: .utf8)
        XCTAssertEqual(try ToolRunner.run(["extract", input.path, "-o", kp.path, "--models", models, "-q"]).0, 0)
        for name in ["grab_0", "wave_1"] {
            try rewrite(kp.appendingPathComponent("\(name).mp4.hands.json")) { $0.models?["palm_detection_full.tflite"] = String(repeating: "1", count: 64) }
        }
        var outputs: [String] = []
        for k in 0..<3 {
            let (code, text) = try ToolRunner.run(["export", "actions", input.appendingPathComponent("annotations.csv").path, "--keypoints", kp.path,
                                                   "-o", dir.appendingPathComponent("ds\(k)").path, "--models", dir.appendingPathComponent("none").path,
                                                   "--fps", "15", "--window", "5"])
            XCTAssertEqual(code, 1, text)
            outputs.append(text.split(separator: "\n").filter { $0.hasPrefix("error:") }.sorted().joined(separator: "\n"))
        }
        XCTAssertEqual(Set(outputs).count, 1, outputs.joined(separator: "\n---\n"))
        XCTAssertTrue(outputs[0].contains("grab_0.mp4: its keypoints were made with other models") && outputs[0].contains("wave_1.mp4"), outputs[0])
        XCTAssertFalse(outputs[0].contains("wave_0.mp4") || outputs[0].contains("pinch_0.mp4"), outputs[0])
    }

    /// Failures of the run print one sentence and exit 3, never usage text or 64; usage errors do.
    func testRuntimeFailuresAreNotUsageErrors() throws {
        let clip = ToolRunner.root.appendingPathComponent("Samples/actions/wave_0.mp4").path
        let (noModels, noModelsText) = try ToolRunner.run(["extract", clip, "-o", dir.appendingPathComponent("out").path,
                                                           "--models", dir.appendingPathComponent("no-models").path])
        XCTAssertEqual(noModels, 3, noModelsText)
        XCTAssertTrue(noModelsText.contains("cannot find palm_detection_full.tflite"), noModelsText)
        XCTAssertFalse(noModelsText.contains("Usage:"), noModelsText)
        let models = try ToolRunner.models()
        // A folder that cannot be written: /proc takes no new folders, even from root.
        let (unwritable, unwritableText) = try ToolRunner.run(["extract", clip, "-o", "/proc/handpose-test/out", "--models", models])
        XCTAssertEqual(unwritable, 3, unwritableText)
        XCTAssertTrue(unwritableText.contains("/proc/handpose-test/out"), unwritableText)
        XCTAssertFalse(unwritableText.contains("Usage:"), unwritableText)
        let (usage, usageText) = try ToolRunner.run(["extract", clip, "-o", dir.path, "--max-hands", "0"])
        XCTAssertEqual(usage, 64, usageText)
        XCTAssertTrue(usageText.contains("Usage: handpose extract"), usageText)
    }
}
