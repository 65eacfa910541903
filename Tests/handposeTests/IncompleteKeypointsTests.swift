import Foundation
import Keypoints
import XCTest

/// A keypoint file of a damaged clip (`incomplete`) is named by every command that makes something from it:
/// `annotations suggest` and `render --timeline` write what they can and exit 1; `report` lists it among its
/// warnings (its exit code is 0 with warnings). `export` refuses such files and `status` names them (their own tests).
final class IncompleteKeypointsTests: XCTestCase {
    var dir: URL!
    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("incomplete-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("kp"), withIntermediateDirectories: true)
    }
    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    /// A hand sweeping across 30 frames at 10 fps; `damaged`: the clip broke after frame 29.
    func keypoints(damaged: Bool) throws -> URL {
        let frames = (0..<30).map { i in
            KeypointFile.Frame(i: i, t: Double(i) / 10, hands: [KeypointFile.Hand(
                chirality: .right, handedness: 0.9, presence: 0.9,
                landmarks: (0..<21).map { [0.2 + Float(i) * 0.02 + Float($0) * 0.005, 0.5, 0] }, world: nil, region: nil)])
        }
        var file = KeypointFile(source: "clip.mp4", width: 64, height: 48, fps: 10, frames: frames, tool: nil, settings: nil, models: nil)
        if damaged { file.incomplete = .init(error: "corrupt data at frame 30", lastGoodFrame: 29) }
        let url = dir.appendingPathComponent("kp/clip.mp4.hands.json")
        try file.write(to: url)
        return url
    }

    func testEachCommandNamesTheFileAndWhereItStops() throws {
        let note = "incomplete: the keypoints of clip.mp4 stop after frame 29, where its clip is damaged (corrupt data at frame 30)"
        for damaged in [false, true] {
            let url = try keypoints(damaged: damaged)
            let eaf = dir.appendingPathComponent("drafts-\(damaged).eaf").path
            let (s, sText) = try ToolRunner.run(["annotations", "suggest", url.path, "--root", dir.path, "-o", eaf])
            XCTAssertEqual(s, damaged ? 1 : 0, sText)
            XCTAssertEqual(sText.contains(note + ": drafts cover only the frames before"), damaged, sText)
            XCTAssertTrue(FileManager.default.fileExists(atPath: eaf), "the drafts of the frames there are written: \(sText)")

            let png = dir.appendingPathComponent("timeline-\(damaged).png").path
            let (t, tText) = try ToolRunner.run(["render", "--timeline", url.path, "-o", png])
            XCTAssertEqual(t, damaged ? 1 : 0, tText)
            XCTAssertEqual(tText.contains(note + ": the timeline covers only the frames before"), damaged, tText)
            XCTAssertTrue(FileManager.default.fileExists(atPath: png), tText)

            let (r, rText) = try ToolRunner.run(["report", "--keypoints", dir.appendingPathComponent("kp").path])
            XCTAssertEqual(r, 0, rText)
            XCTAssertEqual(rText.contains(note + ": its figures cover only the frames before"), damaged, rText)
        }
    }
}
