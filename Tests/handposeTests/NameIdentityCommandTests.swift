import Foundation
import XCTest

/// `café.mp4` written by macOS (NFD) and by Linux (NFC) are two clips on Linux, through the whole tool: a CSV
/// naming both is validated as two clips, exported from two keypoint files, and converted with both names kept.
final class NameIdentityCommandTests: XCTestCase {
    var dir: URL!
    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("names-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("in"), withIntermediateDirectories: true)
    }
    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    func testTwoSpellingsOfOneNameAreTwoClipsFromAnnotationsToExport() throws {
        let nfc = "caf\u{E9}.mp4", nfd = "cafe\u{301}.mp4"
        let samples = ToolRunner.root.appendingPathComponent("Samples/actions")
        try FileManager.default.copyItem(at: samples.appendingPathComponent("grab_0.mp4"), to: dir.appendingPathComponent("in/" + nfc))
        try FileManager.default.copyItem(at: samples.appendingPathComponent("wave_0.mp4"), to: dir.appendingPathComponent("in/" + nfd))
        let csv = dir.appendingPathComponent("in/labels.csv")
        try Data("video,label,start,end\n\(nfc),grab,0,0.5\n\(nfd),wave,0.2,0.9\n".utf8).write(to: csv)

        let (code, text) = try ToolRunner.run(["validate", csv.path])
        XCTAssertEqual(code, 0, text)
        XCTAssertTrue(text.contains("2 clips, 2 segments"), text)
        XCTAssertFalse(text.contains("overlaps"), text)

        let out = dir.appendingPathComponent("ds")
        let (exportCode, exportText) = try ToolRunner.run(["export", "actions", csv.path, "--keypoints", dir.appendingPathComponent("kp").path,
                                                           "-o", out.path, "--fps", "15", "--window", "5", "--models", try ToolRunner.models()])
        XCTAssertEqual(exportCode, 0, exportText)
        let records = try String(decoding: Data(contentsOf: out.appendingPathComponent("manifest.jsonl")), as: UTF8.self)
            .split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        let sources = Set(records.map { Array(($0["source"] as! String).utf8) })
        XCTAssertEqual(sources, [Array(nfc.utf8), Array(nfd.utf8)], "\(records.map { $0["source"]! })")
        for r in records {
            XCTAssertEqual(r["label"] as? String, Array((r["source"] as! String).utf8) == Array(nfc.utf8) ? "grab" : "wave")
        }
        for name in [nfc, nfd] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: dir.appendingPathComponent("kp/" + name + ".hands.json").path), name)
        }

        let round = dir.appendingPathComponent("round.csv")
        let (convertCode, convertText) = try ToolRunner.run(["annotations", "convert", csv.path, "-o", round.path])
        XCTAssertEqual(convertCode, 0, convertText)
        let written = try Data(contentsOf: round)
        for name in [nfc, nfd] { XCTAssertNotNil(written.range(of: Data(name.utf8)), name) }
    }
}
