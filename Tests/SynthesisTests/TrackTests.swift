import Foundation
import HandLandmarks
import VideoIO
import XCTest

/// Track numbers and per-track smoothing on frames built from the sample stills with the real models:
/// a hand that leaves and comes back gets a new track; a hand that stays keeps its number and its own
/// smoothing filter when the other hand leaves.
final class TrackTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL

    func models() throws -> HandModels {
        let dir = Self.root.appendingPathComponent("Models")
        guard FileManager.default.fileExists(atPath: dir.appendingPathComponent("hand_landmark_full.tflite").path) else {
            print("SKIP: models absent; run `make setup`")
            throw XCTSkip("models absent")
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
        for (i, frame) in ([present, present, present, empty, empty, present, present] as [VideoFrame]).enumerated() {
            tracks.append(try tracker.process(frame, time: Double(i) / 15).map(\.track))
        }
        XCTAssertEqual(tracks, [[0], [0], [0], [], [], [1], [1]])
        tracker.reset()
        XCTAssertEqual(try tracker.process(present, time: 0).map(\.track), [0], "a new clip counts from 0")
        // In image mode nothing is carried over: every hand is a new track.
        var options = HandTrackerOptions()
        options.mode = .image
        let images = try HandTracker(models: try models(), options: options)
        XCTAssertEqual(try (0..<3).map { try images.process(present, time: Double($0)).map(\.track) }, [[0], [1], [2]])
    }

    /// With two hands tracked and one leaving, the hand that stays is smoothed by its own filter: its
    /// output equals a filter fed its own landmarks alone. Filters bound to list positions failed this
    /// when the first hand left (the second moved up and took the first one's filter).
    func testTheHandThatStaysKeepsItsOwnSmoothing() throws {
        func hand(_ track: Int, x: Float) -> HandObservation {
            var h = HandObservation(chirality: .right, handedness: 0.9, presence: 0.9,
                                    landmarks: (0..<21).map { Point3(x + Float($0) * 0.01, 0.5, 0) },
                                    world: [Point3](repeating: .zero, count: 21),
                                    region: RegionOfInterest(xCenter: x, yCenter: 0.5, width: 0.2, height: 0.2, rotation: 0))
            h.track = track
            return h
        }
        for leaver in 0..<2 {
            var bank = TrackSmoothing()
            var own = LandmarkSmoother()
            for step in 0..<8 {
                let t = Double(step) / 15
                // Hand 0 near the left, hand 1 near the right; both drift and jitter a little.
                let jitter = Float(step % 3) * 0.004
                var hands = [hand(0, x: 0.1 + Float(step) * 0.01 + jitter), hand(1, x: 0.6 - Float(step) * 0.01 + jitter)]
                if step >= 4 { hands.remove(at: leaver) }
                let stayer = hands.first { $0.track == 1 - leaver }!
                let expected = own.filter(stayer.landmarks, time: t)
                bank.apply(&hands, time: t)
                let got = hands.first { $0.track == 1 - leaver }!
                XCTAssertEqual(got.landmarks, expected, "leaver \(leaver), step \(step)")
            }
        }
    }
}
