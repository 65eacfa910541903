import Foundation
import XCTest
import Datasets
import HandLandmarks

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
            XCTAssertEqual(error as? DatasetError,
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
    }
}
