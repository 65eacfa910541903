import Foundation
import Keypoints
import XCTest

/// The keypoint-file reader refuses what its users would index past or compute NaN from, naming the
/// file, frame and hand; the writer leaves no temporary file.
final class KeypointFileTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("kp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    func hand(landmarks: Int = 21, value: Float = 0.5, world: Int? = nil, handedness: Float = 0.9) -> KeypointFile.Hand {
        KeypointFile.Hand(chirality: .right, handedness: handedness, presence: 0.9,
                          landmarks: Array(repeating: [value, value, 0], count: landmarks),
                          world: world.map { Array(repeating: [0, 0, 0], count: $0) }, region: nil)
    }

    func file(_ hands: [[KeypointFile.Hand]], times: [Double]? = nil) -> KeypointFile {
        let frames = hands.enumerated().map { i, h in KeypointFile.Frame(i: i, t: times?[i] ?? Double(i) / 25, hands: h) }
        return KeypointFile(source: "clip.mp4", width: 64, height: 48, fps: 25, frames: frames, tool: nil, settings: nil, models: nil)
    }

    /// Writes `f` (without the reader's checks) and loads it back.
    func roundTrip(_ f: KeypointFile) throws -> KeypointFile {
        let url = dir.appendingPathComponent("clip.mp4.hands.json")
        try JSONEncoder().encode(f).write(to: url)
        return try KeypointFile.load(url)
    }

    func testAGoodFileLoadsAndWritesNoTemporaryFile() throws {
        let f = file([[hand()], [], [hand(world: 21), hand(handedness: 0.1)]])
        let url = dir.appendingPathComponent("sub/clip.mp4.hands.json")
        try f.write(to: url)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path), ["clip.mp4.hands.json"])
        XCTAssertEqual(try KeypointFile.load(url).frames.map(\.hands.count), [1, 0, 2])
    }

    func testAHandWithFiveLandmarksIsRefusedNamingFrameAndHand() throws {
        XCTAssertThrowsError(try roundTrip(file([[hand()], [hand(), hand(landmarks: 5)]]))) { error in
            XCTAssertEqual(error as? KeypointError,
                           .invalidHand(path: dir.appendingPathComponent("clip.mp4.hands.json").path, frame: 1, hand: 1, reason: "5 landmarks, expected 21"))
            XCTAssertTrue("\(error)".contains("frame 1, hand 1"), "\(error)")
        }
    }

    func testWrongWorldCountAndOutOfRangeValuesAreRefused() throws {
        for (bad, needle) in [(hand(world: 20), "frame 1, hand 0: 20 world landmarks"), (hand(handedness: 1.5), "frame 1, hand 0: handedness 1.5"),
                              (hand(value: 0.5, world: nil, handedness: -0.1), "handedness -0.1")] {
            XCTAssertThrowsError(try roundTrip(file([[hand()], [bad]])), needle) { error in
                XCTAssertTrue("\(error)".contains(needle), "\(error)")
            }
        }
    }

    func testNonFiniteNumbersAreRefusedNamingTheFile() throws {
        let url = dir.appendingPathComponent("clip.mp4.hands.json")
        let good = String(decoding: try JSONEncoder().encode(file([[hand(value: 0.123456)]])), as: UTF8.self)
        for replacement in ["NaN", "1e999", "\"x\""] {
            try Data(good.replacingOccurrences(of: "0.123456", with: replacement).utf8).write(to: url)
            XCTAssertThrowsError(try KeypointFile.load(url), replacement) { error in
                XCTAssertTrue("\(error)".hasPrefix(url.path), "\(error)")
            }
        }
    }

    func testFramesOutOfOrderAreRefused() throws {
        XCTAssertThrowsError(try roundTrip(file([[hand()], [hand()]], times: [0.5, 0.2]))) { error in
            XCTAssertTrue("\(error)".contains("frame 1"), "\(error)")
        }
    }

    func testAnIncompleteMarkRoundTrips() throws {
        var f = file([[hand()]])
        f.incomplete = .init(error: "cut short", lastGoodFrame: 0)
        XCTAssertEqual(try roundTrip(f).incomplete, f.incomplete)
        XCTAssertNil(try roundTrip(file([[hand()]])).incomplete)
        // Where the keypoints stop is the last frame: another value (or none) was edited in, and is refused.
        for edited in [5, -9, nil] as [Int?] {
            f.incomplete = .init(error: "cut short", lastGoodFrame: edited)
            XCTAssertThrowsError(try roundTrip(f), "\(String(describing: edited))") { error in
                XCTAssertTrue("\(error)".contains("incomplete.lastGoodFrame"), "\(error)")
            }
        }
    }

    /// A file of the first layout (MediaPipe's reference files: no presence, region, world, tool,
    /// settings or models) and one a later version wrote with fields this one does not know both load.
    func testAnOlderFileAndOneWithUnknownFieldsLoad() throws {
        let row = "[0.5, 0.5, 0.0]"
        let rows = Array(repeating: row, count: 21).joined(separator: ", ")
        let older = """
        {"schema": "handpose/keypoints@1", "source": {"path": "clips/a.mp4"}, "video": {"width": 64, "height": 48, "frames": 2},
         "joints": [], "frames": [{"i": 0, "t": 0.0, "hands": []},
                                  {"i": 1, "t": 0.04, "hands": [{"chirality": "right", "handedness": 0.9, "landmarks": [\(rows)]}]}]}
        """
        let url = dir.appendingPathComponent("a.mp4.hands.json")
        try Data(older.utf8).write(to: url)
        let a = try KeypointFile.load(url)
        XCTAssertEqual(a.frames.map(\.hands.count), [0, 1])
        XCTAssertNil(a.settings)
        XCTAssertNil(a.frames[1].hands[0].presence)

        let newer = """
        {"schema": "handpose/keypoints@1", "source": {"path": "clips/a.mp4", "sha256": "abc"}, "colour": "blue",
         "video": {"width": 64, "height": 48, "frames": 1, "fps": 25, "codec": "h264"},
         "settings": {"model": "lite", "maxHands": 1, "someFutureOption": 3, "rules": "tasks2"},
         "frames": [{"i": 0, "t": 0.0, "extra": true,
                     "hands": [{"chirality": "left", "handedness": 0.1, "track": 7, "landmarks": [\(rows)]}]}]}
        """
        try Data(newer.utf8).write(to: url)
        let b = try KeypointFile.load(url)
        XCTAssertEqual(b.frames[0].hands[0].chirality, .left)
        XCTAssertEqual(b.settings?.model, "lite")
        XCTAssertEqual(b.settings?.rules, "tasks2")
        XCTAssertNil(b.settings?.minDetectionConfidence, "a setting not recorded is unknown, not a default")
        // A setting not recorded differs from any asked value: such files are not taken as made otherwise.
        let asked = KeypointFile.Settings(model: "lite", maxHands: 1, minDetectionConfidence: 0.5, minPresenceConfidence: 0.5,
                                          mode: "video", mirrored: false, smoothing: false, rules: "tasks")
        XCTAssertEqual(b.settings!.differences(from: asked).first, .init(field: .minDetectionConfidence, recorded: "not recorded", asked: "0.5"))
        XCTAssertEqual(b.settings!.differences(from: asked).first?.description, "minDetectionConfidence: not recorded (asked 0.5)")
        XCTAssertTrue(b.settings!.differences(from: asked).map(\.description).contains("rules: tasks2 (asked tasks)"))
        XCTAssertEqual(asked.differences(from: asked), [])
    }

    /// Another schema name (here a version this reader does not know) is refused, naming it.
    func testAnotherSchemaIsRefused() throws {
        let url = dir.appendingPathComponent("x.hands.json")
        try Data(#"{"schema": "handpose/keypoints@9", "source": {"path": "x"}, "video": {"width": 1, "height": 1, "frames": 0}, "frames": []}"#.utf8).write(to: url)
        XCTAssertThrowsError(try KeypointFile.load(url)) { XCTAssertTrue("\($0)".contains("keypoints@9"), "\($0)") }
    }

    /// The streaming writer's bytes are exactly those of encoding the whole file with sorted keys.
    func testTheStreamingWriterWritesWhatJSONEncoderWould() throws {
        var f = file([[hand(world: 21)], [], [hand(), hand(handedness: 0.25)]])
        f.tool = .handpose
        f.settings = KeypointFile.Settings(model: "full", maxHands: 2, minDetectionConfidence: 0.5, minPresenceConfidence: 0.5,
                                           mode: "video", mirrored: false, smoothing: true, rules: "legacy")
        f.models = ["a.tflite": String(repeating: "0", count: 64)]
        f.frames[0].hands[0].region = .init(xCenter: 0.5, yCenter: 0.25, width: 0.3, height: 0.3, rotation: -0.1)
        f.incomplete = .init(error: "cut", lastGoodFrame: 2)
        let url = dir.appendingPathComponent("w.hands.json")
        try f.write(to: url)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        XCTAssertEqual(try Data(contentsOf: url), try encoder.encode(f))
    }
}
