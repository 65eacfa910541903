import Foundation
import Keypoints
import VideoIO
import XCTest

/// `handpose report` end to end: the baseline on the Samples/ export (its classes are separable), the
/// warnings on a made-up unbalanced dataset, the keypoint-only report, the PNG.
final class ReportCommandTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("report-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    func json(_ text: String) throws -> [String: Any] {
        let start = try XCTUnwrap(text.firstIndex(of: "{"), text)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text[start...].utf8)) as? [String: Any], text)
    }

    func testTheBaselineOnTheSamplesBeatsChanceWidely() throws {
        let models = try ToolRunner.models()
        let kp = dir.appendingPathComponent("kp").path, ds = dir.appendingPathComponent("ds").path
        let (code, text) = try ToolRunner.run(["export", "actions", "Samples/annotations.csv", "--keypoints", kp, "-o", ds, "--models", models,
                                               "--fps", "15", "--window", "15", "--split", "train=0.75,val=0.25", "--seed", "1"])
        XCTAssertEqual(code, 0, text)
        let (rc, out) = try ToolRunner.run(["report", ds, "--keypoints", kp, "--json"])
        XCTAssertEqual(rc, 0, out)
        let report = try json(out)
        let baseline = try XCTUnwrap(report["baseline"] as? [String: Any], out)
        let score = try XCTUnwrap(baseline["score"] as? [String: Any])
        let accuracy = try XCTUnwrap(score["accuracy"] as? Double), chance = try XCTUnwrap(score["chance"] as? Double)
        print("report baseline on Samples/: accuracy \(accuracy), chance \(chance)")
        XCTAssertGreaterThanOrEqual(accuracy, 2.5 * chance, "the baseline must beat chance widely on separable classes")
        XCTAssertEqual((score["confusion"] as? [[Int]])?.count, (report["classes"] as? [Any])?.count)
        XCTAssertEqual(baseline["scoredOn"] as? String, "val")
        // Every dataset clip has its keypoints and figures.
        XCTAssertEqual((report["clipsWithoutKeypoints"] as? [Any])?.count, 0)
        XCTAssertGreaterThanOrEqual((report["clips"] as? [Any])?.count ?? 0, 14)
        // The picture is a real PNG of the chart's size, written into the dataset.
        let png = URL(fileURLWithPath: ds).appendingPathComponent("report.png")
        let reader = try VideoReader(url: png)
        XCTAssertEqual(reader.info.width, 1176)
        // The same windows written as npz, or as CSV in the other layout, are read back to the same baseline.
        for (name, extra) in [("npz", ["--format", "npz"]), ("csv", ["--format", "csv", "--layout", "ntjc"])] {
            let other = dir.appendingPathComponent(name).path
            let (c, t) = try ToolRunner.run(["export", "actions", "Samples/annotations.csv", "--keypoints", kp, "-o", other, "--models", models,
                                             "--fps", "15", "--window", "15", "--split", "train=0.75,val=0.25", "--seed", "1"] + extra)
            XCTAssertEqual(c, 0, t)
            let (_, again) = try ToolRunner.run(["report", other, "--keypoints", kp, "--json"])
            let score = try XCTUnwrap((try json(again)["baseline"] as? [String: Any])?["score"] as? [String: Any], again)
            XCTAssertEqual(score["accuracy"] as? Double, accuracy, name)
            XCTAssertEqual(score["confusion"] as? [[Int]], (baseline["score"] as? [String: Any])?["confusion"] as? [[Int]], name)
        }
        // Text: a table per class, the confusion matrix, no warnings for the negative class's handless clip.
        let (_, plain) = try ToolRunner.run(["report", ds, "--keypoints", kp])
        XCTAssertTrue(plain.contains("baseline: logistic regression") && plain.contains("recall"), plain)
        XCTAssertFalse(plain.contains("Background_1.mp4: a hand in only"), plain)
    }

    /// Hand-made keypoints: class "big" with 10 clips, "tiny" with one (under a tenth; it cannot reach
    /// both split parts), and a "big" clip with hands in 3 of 10 frames.
    func testWarningsOnAnUnbalancedDataset() throws {
        let clips = dir.appendingPathComponent("clips"), kp = dir.appendingPathComponent("kp")
        try FileManager.default.createDirectory(at: clips, withIntermediateDirectories: true)
        var csv = "video,label,start,end\n"
        for i in 0..<11 {
            let name = "c\(i).mp4"
            let writer = try VideoWriter(url: clips.appendingPathComponent(name), width: 64, height: 48, frameRate: Rational(10, 1))
            for _ in 0..<10 { try writer.append(VideoFrame(width: 64, height: 48)) }
            try writer.finish()
            csv += "\(name),\(i == 10 ? "tiny" : "big"),0,\(i == 10 ? "0.5" : "1")\n"
            let hand = KeypointFile.Hand(chirality: .right, handedness: 0.9, presence: 0.9,
                                         landmarks: (0..<21).map { [0.3 + Float($0 + i) * 0.01, 0.5, 0] }, world: nil, region: nil)
            let file = KeypointFile(source: name, width: 64, height: 48, fps: 10,
                                    frames: (0..<10).map { KeypointFile.Frame(i: $0, t: Double($0) / 10, hands: i == 3 && $0 >= 3 ? [] : [hand]) },
                                    tool: .handpose, settings: .init(), models: nil)
            try file.write(to: kp.appendingPathComponent(name + ".hands.json"))
        }
        try csv.write(to: clips.appendingPathComponent("annotations.csv"), atomically: true, encoding: .utf8)
        let ds = dir.appendingPathComponent("ds").path
        let (code, text) = try ToolRunner.run(["export", "actions", clips.appendingPathComponent("annotations.csv").path, "--keypoints", kp.path,
                                               "-o", ds, "--fps", "10", "--window", "5", "--split", "train=0.7,val=0.3", "--allow-mixed",
                                               "--models", dir.appendingPathComponent("no-models").path])
        XCTAssertEqual(code, 0, text)
        let (rc, out) = try ToolRunner.run(["report", ds, "--keypoints", kp.path, "--png", dir.appendingPathComponent("r.png").path])
        XCTAssertEqual(rc, 0, out)
        XCTAssertTrue(out.contains("class tiny: 1 example, under a tenth of the largest class (20)"), out)
        XCTAssertTrue(out.contains("has no example of class tiny"), out)
        XCTAssertTrue(out.contains("clip c3.mp4: a hand in only 30% of its 10 frames (longest gap 7 frames)"), out)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir.appendingPathComponent("r.png").path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: URL(fileURLWithPath: ds).appendingPathComponent("report.png").path),
                       "--png puts the picture where it says")
        // Keypoints alone: per clip figures and the same clip warning; a folder without keypoint files is an error.
        let (rk, alone) = try ToolRunner.run(["report", "--keypoints", kp.path, "--json", "--png", dir.appendingPathComponent("k.png").path])
        XCTAssertEqual(rk, 0, alone)
        let report = try json(alone)
        XCTAssertEqual((report["clips"] as? [Any])?.count, 11)
        XCTAssertEqual((report["warnings"] as? [String])?.count, 1, alone)
        let (re, empty) = try ToolRunner.run(["report", "--keypoints", clips.path])
        XCTAssertEqual(re, 3, empty)
        XCTAssertTrue(empty.contains("no keypoint files"), empty)
    }
}
