import Foundation
import Keypoints
import XCTest

/// `extract --shard` and `status`: shard runs add up to one run byte for byte, and status is right in
/// both directions (complete, and each way of not being: missing, failed with its reason, stale, made
/// with other settings).
final class StatusCommandTests: XCTestCase {
    var dir: URL!
    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("status-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }
    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    func testShardsAddUpToOneRunAndStatusSaysWhatIsLeft() throws {
        let models = try ToolRunner.models()
        let inputs = dir.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: inputs.appendingPathComponent("clips"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: ToolRunner.root.appendingPathComponent("Samples/poses"), to: inputs.appendingPathComponent("poses"))
        for clip in ["wave_0.mp4", "grab_1.mp4"] {
            try FileManager.default.copyItem(at: ToolRunner.root.appendingPathComponent("Samples/actions/\(clip)"),
                                             to: inputs.appendingPathComponent("clips/\(clip)"))
        }
        let sharded = dir.appendingPathComponent("sharded").path, single = dir.appendingPathComponent("single").path
        func status(_ extra: [String] = []) throws -> (Int32, String) {
            try ToolRunner.run(["status", sharded, "--inputs", inputs.path, "-r", "--shards", "3", "--models", models] + extra)
        }
        XCTAssertEqual(try ToolRunner.run(["extract", inputs.path, "-r", "-o", sharded, "--shard", "1/3", "--models", models]).0, 0)
        var (code, text) = try status()
        XCTAssertEqual(code, 1, text)
        XCTAssertTrue(text.contains("shard 0/3") && text.contains("missing") && text.contains("<- resubmit"), text)
        XCTAssertFalse(text.contains("complete\n"), text)
        for k in [0, 2] {
            // Tasks 0 and 2 of a --array=0-2 job; the count also matches the one recorded by shard 1/3.
            let env = ["SLURM_ARRAY_TASK_ID": "\(k)", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "2", "SLURM_ARRAY_TASK_COUNT": "3"]
            let (c, t) = try ToolRunner.run(["extract", inputs.path, "-r", "-o", sharded, "--shard", "auto", "--models", models], environment: env)
            XCTAssertEqual(c, 0, t)
        }
        (code, text) = try status()
        XCTAssertEqual(code, 0, text)
        XCTAssertTrue(text.hasSuffix("complete\n"), text)
        XCTAssertEqual(try ToolRunner.run(["extract", inputs.path, "-r", "-o", single, "--models", models]).0, 0)
        let a = try ToolRunner.files(in: URL(fileURLWithPath: sharded)), b = try ToolRunner.files(in: URL(fileURLWithPath: single))
        XCTAssertEqual(a.keys.sorted(), b.keys.sorted())
        XCTAssertTrue(a == b, "three shard runs write what one run writes, byte for byte")
        let index = try String(contentsOfFile: sharded + "/index.jsonl", encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(index.count, b.count)
        XCTAssertTrue(index.allSatisfy { $0.contains("\"state\":\"done\"") && $0.contains("\"framesWithHand\"") })

        // A file that crashes its worker: failed, with the reason from the run.
        try FileManager.default.removeItem(atPath: sharded + "/clips/wave_0.mp4.hands.json")
        let (crashed, crashText) = try ToolRunner.run(["extract", inputs.path, "-r", "-o", sharded, "--models", models],
                                                      environment: ["HANDPOSE_TEST_CRASH_ON": "wave_0.mp4"])
        XCTAssertEqual(crashed, 1, crashText)
        // An input changed after its keypoints were made (the keypoints are dated before it): stale.
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-3600)],
                                              ofItemAtPath: sharded + "/clips/grab_1.mp4.hands.json")
        (code, text) = try status()
        XCTAssertEqual(code, 1, text)
        XCTAssertTrue(text.contains("failed: clips/wave_0.mp4") && text.contains("SIGSEGV"), text)
        XCTAssertTrue(text.contains("stale: clips/grab_1.mp4"), text)
        // Asked with other settings, every other file is made otherwise.
        (code, text) = try status(["--max-hands", "1", "--json"])
        XCTAssertEqual(code, 1, text)
        let json = try JSONSerialization.jsonObject(with: Data(text.utf8)) as! [String: Any]
        let counts = (json["overall"] as! [String: Any])["counts"] as! [String: Int]
        XCTAssertEqual(counts["other-settings"], b.count - 2)
        XCTAssertEqual(counts["failed"], 1)
        XCTAssertEqual(json["complete"] as? Bool, false)
        // The rerun makes the file and clears the failure record.
        XCTAssertEqual(try ToolRunner.run(["extract", inputs.path, "-r", "-o", sharded, "--models", models]).0, 0)
        (code, text) = try status()
        XCTAssertEqual(code, 0, text)
        XCTAssertFalse(FileManager.default.fileExists(atPath: sharded + "/clips/wave_0.mp4.failed.json"))
    }
}
