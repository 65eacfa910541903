import Foundation
import Keypoints
import XCTest

/// `compare` on folders says what it did not compare: a reference without its counterpart is an error
/// (exit 1), a file of ours without a reference a note, frames one file lacks are counted.
final class CompareCommandTests: XCTestCase {
    var dir: URL!
    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("compare-\(UUID().uuidString)")
    }
    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    func write(_ path: String, frames: Int) throws {
        let url = dir.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let hand = KeypointFile.Hand(chirality: .right, handedness: 0.9, presence: 0.9,
                                     landmarks: (0..<21).map { [0.3 + Float($0) * 0.01, 0.5, 0] }, world: nil, region: nil)
        try KeypointFile(source: "clip.mp4", width: 64, height: 48, fps: 10,
                         frames: (0..<frames).map { KeypointFile.Frame(i: $0, t: Double($0) / 10, hands: [hand]) },
                         tool: nil, settings: nil, models: nil).write(to: url)
    }

    func testWhatIsNotComparedIsSaid() throws {
        try write("a/x.mp4.hands.json", frames: 10)
        try write("a/sub/y.mp4.hands.json", frames: 10)
        try write("b/x.mp4.truth.hands.json", frames: 10)
        try write("b/sub/y.mp4.hands.json", frames: 8)
        let a = dir.appendingPathComponent("a").path, b = dir.appendingPathComponent("b").path
        var (code, text) = try ToolRunner.run(["compare", a, b])
        XCTAssertEqual(code, 0, text)
        XCTAssertTrue(text.contains("not compared: 2 frames only A holds, 0 only B holds (figures are over the 18 both hold)"), text)

        // Ours without a reference: noted, still exit 0.
        try write("a/w.mp4.hands.json", frames: 3)
        (code, text) = try ToolRunner.run(["compare", a, b])
        XCTAssertEqual(code, 0, text)
        XCTAssertTrue(text.contains("note: 1 keypoint files of \(a) have no reference in \(b), not compared: w.mp4.hands.json"), text)

        // A reference without its counterpart: the comparison covers less than asked.
        try write("b/sub/z.mp4.truth.hands.json", frames: 3)
        (code, text) = try ToolRunner.run(["compare", a, b])
        XCTAssertEqual(code, 1, text)
        XCTAssertTrue(text.contains("error: 1 reference files of \(b) have no counterpart in \(a), not compared: sub/z.mp4.truth.hands.json"), text)
        let (jsonCode, json) = try ToolRunner.run(["compare", a, b, "--json"])
        XCTAssertEqual(jsonCode, 1, json)
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        XCTAssertEqual(object?["only_in_b"] as? [String], ["sub/z.mp4.truth.hands.json"])
        XCTAssertEqual(object?["only_in_a"] as? [String], ["w.mp4.hands.json"])
        XCTAssertEqual((object?["overall"] as? [String: Any])?["frames_only_in_a"] as? Int, 2)
    }
}
