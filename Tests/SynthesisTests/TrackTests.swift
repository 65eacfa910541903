import Foundation
import HandLandmarks
import TestSupport
import VideoIO
import XCTest

/// Track numbers on frames built from the sample stills with the real models: a hand that leaves and
/// comes back gets a new track. (Smoothing per track: `TrackSmootherTests`.)
final class TrackTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL

    func models() throws -> HandModels {
        let dir = Self.root.appendingPathComponent("Models")
        guard FileManager.default.fileExists(atPath: dir.appendingPathComponent("hand_landmark_full.tflite").path) else {
            print("SKIP: models absent; run `make setup`")
            throw Prerequisite.missing("models absent")
        }
        return try HandModels(directory: dir, complexity: .full)
    }

    func still(_ relative: String) throws -> VideoFrame {
        let reader = try VideoReader(url: Self.root.appendingPathComponent("Samples/poses/\(relative)"))
        return try XCTUnwrap(reader.nextFrame())
    }

    /// `left` and `right` side by side (either may be absent: grey there).
    func canvas(_ left: VideoFrame?, _ right: VideoFrame?, width: Int, height: Int) -> VideoFrame {
        var out = VideoFrame(width: 2 * width, height: height)
        for y in 0..<height {
            for x in 0..<(2 * width) {
                let src = x < width ? left : right
                let sx = x % width
                for c in 0..<3 {
                    out.pixels[(y * 2 * width + x) * 3 + c] = src.map { $0.pixels[(y * $0.width + sx) * 3 + c] } ?? 128
                }
            }
        }
        return out
    }

    func testAHandThatLeavesAndComesBackGetsANewTrack() throws {
        let fist = try still("fist/fist_0.png")
        let tracker = try HandTracker(models: try models(), options: HandTrackerOptions())
        let present = canvas(fist, nil, width: fist.width, height: fist.height)
        let empty = canvas(nil, nil, width: fist.width, height: fist.height)
        var tracks: [[Int]] = []
        for frame in [present, present, present, empty, empty, present, present] as [VideoFrame] {
            tracks.append(try tracker.process(frame).map(\.track))
        }
        XCTAssertEqual(tracks, [[0], [0], [0], [], [], [1], [1]])
        tracker.reset()
        XCTAssertEqual(try tracker.process(present).map(\.track), [0], "a new clip counts from 0")
        // In image mode nothing is carried over: every hand is a new track.
        var options = HandTrackerOptions()
        options.mode = .image
        let images = try HandTracker(models: try models(), options: options)
        XCTAssertEqual(try (0..<3).map { _ in try images.process(present).map(\.track) }, [[0], [1], [2]])
    }
}
