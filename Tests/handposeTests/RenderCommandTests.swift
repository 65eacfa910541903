import Datasets
import Foundation
import Keypoints
import VideoIO
import XCTest

/// `render` writes the format its output name says, or refuses before any work.
final class RenderCommandTests: XCTestCase {
    var dir: URL!
    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("render-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }
    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    /// A 20-frame clip at 10 fps and keypoints for it (one hand, drawn from hand-made numbers).
    func fixture() throws -> (clip: String, keypoints: String) {
        let clip = dir.appendingPathComponent("clip.mp4")
        let writer = try VideoWriter(url: clip, width: 64, height: 48, frameRate: Rational(10, 1))
        for _ in 0..<20 { try writer.append(VideoFrame(width: 64, height: 48)) }
        try writer.finish()
        let hand = KeypointFile.Hand(chirality: .right, handedness: 0.9, presence: 0.9,
                                     landmarks: (0..<21).map { [0.3 + Float($0) * 0.01, 0.5, 0] }, world: nil, region: nil)
        let frames = (0..<20).map { KeypointFile.Frame(i: $0, t: Double($0) / 10, hands: [hand]) }
        let keypoints = dir.appendingPathComponent("clip.mp4.hands.json")
        try KeypointFile(source: "clip.mp4", width: 64, height: 48, fps: 10, frames: frames, tool: nil, settings: nil, models: nil)
            .write(to: keypoints)
        return (clip.path, keypoints.path)
    }

    func testOutputsByNameAndRefusals() throws {
        let (clip, keypoints) = try fixture()
        for ext in ["avi", "gif", "mkv"] {
            let out = dir.appendingPathComponent("out.\(ext)").path
            let (code, text) = try ToolRunner.run(["render", clip, "--keypoints", keypoints, "-o", out])
            XCTAssertEqual(code, 0, text)
            let reader = try VideoReader(url: URL(fileURLWithPath: out))
            XCTAssertEqual(reader.info.averageFrameRate, 10, accuracy: 0.2, ext)
        }
        let jpg = dir.appendingPathComponent("sheet.jpg").path
        XCTAssertEqual(try ToolRunner.run(["render", clip, "--keypoints", keypoints, "--sheet", "-o", jpg]).0, 0)
        XCTAssertEqual(Array(try Data(contentsOf: URL(fileURLWithPath: jpg)).prefix(2)), [0xFF, 0xD8])
        for (arguments, needle) in [(["--sheet", "--sheet-frames", "0", "-o", dir.appendingPathComponent("s.png").path], "--sheet-frames"),
                                    (["--frames", "9999", "-o", dir.appendingPathComponent("frames").path], "has 20 frames"),
                                    (["-o", dir.appendingPathComponent("out.webm").path], ".webm")] {
            let (code, text) = try ToolRunner.run(["render", clip, "--keypoints", keypoints] + arguments)
            XCTAssertNotEqual(code, 0, text)
            XCTAssertTrue(text.contains(needle), text)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.appendingPathComponent("frames").path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.appendingPathComponent("s.png").path))
    }

    func testAKeypointFileWithFiveLandmarksIsRefusedNamingFrameAndHand() throws {
        let (clip, keypoints) = try fixture()
        var text = try String(contentsOfFile: keypoints, encoding: .utf8)
        // Cut frame 3's hand down to five landmarks.
        var file = try KeypointFile.load(URL(fileURLWithPath: keypoints))
        file.frames[3].hands[0].landmarks = Array(file.frames[3].hands[0].landmarks.prefix(5))
        text = String(decoding: try JSONEncoder().encode(file), as: UTF8.self)
        try text.write(toFile: keypoints, atomically: true, encoding: .utf8)
        for command in [["render", clip, "--keypoints", keypoints, "-o", dir.appendingPathComponent("o.mp4").path],
                        ["compare", keypoints, keypoints]] {
            let (code, out) = try ToolRunner.run(command)
            XCTAssertNotEqual(code, 0, out)
            XCTAssertTrue(out.contains("frame 3, hand 0: 5 landmarks, expected 21"), out)
        }
    }

    /// The timeline draws the segments of the keypoint file's own clip, matched by path: `b/clip.mp4`'s
    /// segment is not drawn over `a/clip.mp4`'s keypoints although both clips are named clip.mp4.
    func testTimelineBandsAreTheClipsOwnMatchedByPath() throws {
        let frames = (0..<20).map { KeypointFile.Frame(i: $0, t: Double($0) / 10, hands: []) }
        let keypoints = dir.appendingPathComponent("clip.mp4.hands.json")
        try KeypointFile(source: "a/clip.mp4", width: 64, height: 48, fps: 10, frames: frames, tool: nil, settings: nil, models: nil)
            .write(to: keypoints)
        let annotations = dir.appendingPathComponent("ann.csv")
        try "video,label,start,end\na/clip.mp4,wave,0,1\nb/clip.mp4,grab,0,1.9\n".write(to: annotations, atomically: true, encoding: .utf8)
        let png = dir.appendingPathComponent("t.png")
        let (code, text) = try ToolRunner.run(["render", "--timeline", keypoints.path, "--annotations", annotations.path, "-o", png.path])
        XCTAssertEqual(code, 0, text)
        let frame = try XCTUnwrap(try VideoReader(url: png).nextFrame())
        // 0...1.9 s spans x 70...1180: t = 0.5 s is x 362 (wave's band), t = 1.5 s is x 946 (no band of a's).
        func rgb(_ x: Int) -> [UInt8] { let p = frame[x, 60]; return [p.r, p.g, p.b] }
        XCTAssertEqual(rgb(362), [200, 230, 255], "wave (class 1 of grab, wave) is drawn")
        XCTAssertEqual(rgb(946), [250, 250, 250], "b/clip.mp4's grab segment is not")
    }
}

