import Annotations
import Foundation
import Keypoints
@testable import Datasets
import TestSupport
import XCTest

/// Resampling on real timestamps, gaps, the hand choice and window edges, on hand-built keypoint files.
final class WindowingTests: XCTestCase {
    func testResamplingInterpolatesOnRealTimestamps() {
        let f = keypointFile(times: (0..<50).map { Double($0) / 25 }, x: { Float(0.1 + 0.5 * $0) })
        let track = Windowing.resample(f, start: 0, end: 1, fps: 30, hand: .any)
        XCTAssertEqual(track.times.count, 30)
        for (k, t) in track.times.enumerated() {
            XCTAssertEqual(Double(track.slots[k][0]!.joints[0].x), 0.1 + 0.5 * t, accuracy: 1e-5, "frame \(k)")
        }
    }

    /// A segment running past the clip's end is resampled up to the end only: the nearest frame there would
    /// be the clip's last, copied into time the clip does not have and counted as a real hand.
    func testNothingIsResampledPastTheClipsEnd() {
        let f = keypointFile(times: (0..<20).map { Double($0) / 25 }, x: { Float(0.1 + 0.5 * $0) })
        XCTAssertEqual(Windowing.clipEnd(f), 0.8, accuracy: 1e-9)
        let track = Windowing.resample(f, start: 0.4, end: 20, fps: 10, hand: .any)
        XCTAssertEqual(track.times.count, 4, "0.4, 0.5, 0.6, 0.7: not 196 slots of the last frame")
        XCTAssertEqual(Windowing.resample(f, start: 0, end: 0.8, fps: 25, hand: .any).times.count, 20, "a segment to the clip's end is whole")
        XCTAssertEqual(Windowing.resample(f, start: 2, end: 3, fps: 10, hand: .any).times.count, 0)
        // Times as keypoint files store them (to 1e-6 s): 30 frames at 15 fps end at 1.933333 + 1/15, a hair
        // short of 2 s; a segment 0-2 s at 15 fps is still its 30 frames.
        var stored = keypointFile(times: (0..<30).map { (Double($0) / 15 * 1e6).rounded() / 1e6 }, x: { Float($0) })
        stored.video.fps = 15
        XCTAssertEqual(Windowing.resample(stored, start: 0, end: 2, fps: 15, hand: .any).times.count, 30)
    }

    /// `--hand track` follows one hand through the segment; `any` jumps to whichever hand is surer.
    func testTrackFollowsOneHandWhereAnyJumps() {
        func hand(_ x: Float, track: Int, presence: Float) -> KeypointFile.Hand {
            KeypointFile.Hand(chirality: .right, handedness: 0.9, presence: presence,
                              landmarks: (0..<21).map { _ in [x, 0.5, 0] }, world: nil, region: nil, track: track)
        }
        // Track 7 (x = 0.2, surer) is there for the first 10 of 20 frames; track 3 (x = 0.8) for all 20.
        let frames = (0..<20).map { i in
            KeypointFile.Frame(i: i, t: Double(i) / 10, hands: (i < 10 ? [hand(0.2, track: 7, presence: 0.99)] : []) + [hand(0.8, track: 3, presence: 0.6)])
        }
        let file = KeypointFile(source: "two.mp4", width: 100, height: 100, fps: 10, frames: frames, tool: nil, settings: nil, models: nil)
        let any = Windowing.resample(file, start: 0, end: 2, fps: 10, hand: .any)
        let followed = Windowing.resample(file, start: 0, end: 2, fps: 10, hand: .track)
        XCTAssertEqual(any.slots.map { $0[0]!.joints[0].x }, (0..<20).map { $0 < 10 ? 0.2 : 0.8 })
        XCTAssertEqual(followed.slots.map { $0[0]!.joints[0].x }, [Float](repeating: 0.8, count: 20))
        // Within the first second only, track 7 and 3 tie; the earlier track (3) is followed.
        XCTAssertEqual(Windowing.resample(file, start: 0, end: 1, fps: 10, hand: .track).slots.map { $0[0]!.joints[0].x },
                       [Float](repeating: 0.8, count: 10))
        // Without track numbers, as any.
        var bare = file
        for f in bare.frames.indices { for h in bare.frames[f].hands.indices { bare.frames[f].hands[h].track = nil } }
        XCTAssertEqual(Windowing.resample(bare, start: 0, end: 2, fps: 10, hand: .track).slots.map { $0[0]!.joints[0].x },
                       any.slots.map { $0[0]!.joints[0].x })
    }

    /// A segment is resampled from the frames its span reaches (`Windowing.Timeline`), found by binary search
    /// once the file's frames are in time order: the result must be the walk over the whole file, sample for
    /// sample, for files out of order, with repeated times, gaps, tracks and bodies, and segments before the
    /// first frame, after the last, between two frames, and of every length.
    func testASegmentResampledFromItsFramesIsTheWalkOverTheWholeFile() {
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 { seed &+= 0x9E37_79B9_7F4A_7C15; var z = seed; z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9; z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB; return z ^ (z >> 31) }
        func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
        func body(_ x: Float, track: Int?) -> KeypointFile.Body {
            KeypointFile.Body(landmarks: (0..<BodyJoint.count).map { [x + Float($0) * 0.01, 0.5, 0] }, visibility: .init(repeating: 0.7, count: BodyJoint.count),
                              presence: .init(repeating: 1, count: BodyJoint.count), world: nil, score: 1, region: nil, track: track)
        }
        var checked = 0
        for round in 0..<60 {
            let n = 1 + Int(next() % 40)
            var times = (0..<n).map { _ in (unit() * 3 * 1e6).rounded() / 1e6 }
            if n > 3 { times[1] = times[0]; times[n - 1] = times[n - 2] }   // repeated times
            let frames = times.enumerated().map { i, t -> KeypointFile.Frame in
                var hands: [KeypointFile.Hand] = []
                for h in 0..<Int(next() % 3) {
                    var hand = KeypointFile.Hand(chirality: h == 0 ? .right : .left, handedness: h == 0 ? 0.9 : 0.1, presence: Float(unit()),
                                                 landmarks: (0..<21).map { j in [Float(unit()), Float(j) * 0.01, 0] }, world: nil, region: nil,
                                                 track: next() % 4 == 0 ? nil : Int(next() % 3))
                    hand.person = next() % 2 == 0 ? nil : Int(next() % 2)
                    hands.append(hand)
                }
                let bodies = next() % 3 == 0 ? nil : (0..<Int(next() % 3)).map { _ in body(Float(unit()), track: next() % 4 == 0 ? nil : Int(next() % 2)) }
                return KeypointFile.Frame(i: i, t: t, hands: hands, bodies: bodies)
            }
            let file = KeypointFile(source: "r\(round).mp4", width: 64, height: 48, fps: next() % 2 == 0 ? 25 : nil, frames: frames,
                                    tool: nil, settings: nil, models: nil)
            let timeline = Windowing.Timeline(file)
            let sorted = file.frames.sorted { $0.t < $1.t }
            for _ in 0..<12 {
                // A third of the segments start on a frame's time, the repeated ones among them: the frames at the
                // start count for the span's track and body.
                let a = next() % 3 == 0 ? times[Int(next() % UInt64(min(n, 2)))] : unit() * 3.6 - 0.3
                let b = a + unit() * (next() % 2 == 0 ? 0.2 : 2)
                let fps = [7.0, 10, 25, 30, 59.94][Int(next() % 5)]
                let hand = HandChoice.allCases[Int(next() % UInt64(HandChoice.allCases.count))]
                let body: BodyJoints? = next() % 2 == 0 ? .upper : nil
                let end = min(b, timeline.clipEnd + 1e-4)
                let part = Windowing.resample(timeline, start: a, end: b, fps: fps, hand: hand, body: body)
                let whole = Windowing.resample(sorted: sorted, start: a, end: end, fps: fps, hand: hand, body: body)
                let what = "round \(round): [\(a), \(b)) at \(fps) fps, \(hand)"
                XCTAssertEqual(part.times, whole.times, what)
                XCTAssertEqual(part.slots, whole.slots, what)
                XCTAssertEqual(part.sourceTimes, whole.sourceTimes, what)
                XCTAssertEqual(part.bodies, whole.bodies, what)
                checked += whole.times.count
            }
        }
        XCTAssertGreaterThan(checked, 1000, "the segments must hold samples to compare")
    }

    func testVariableRateBecomesUniform() {
        let times = [0, 0.03, 0.11, 0.12, 0.3, 0.41, 0.5, 0.77, 0.8, 1.0, 1.1]
        let f = keypointFile(times: times, x: { Float($0) })
        let track = Windowing.resample(f, start: 0, end: 1, fps: 10, hand: .any)
        XCTAssertEqual(track.times, (0..<10).map { Double($0) / 10 })
        for (k, t) in track.times.enumerated() { XCTAssertEqual(Double(track.slots[k][0]!.joints[0].x), t, accuracy: 1e-5) }
    }

    func testGapsUseTheNearestFrameOrNothing() {
        // Frames 10..19 (0.4..0.76 s) have no hand.
        let f = keypointFile(times: (0..<25).map { Double($0) / 25 }, x: { Float($0) }, present: { !(10..<20).contains($0) })
        let track = Windowing.resample(f, start: 0, end: 1, fps: 25, hand: .any)
        XCTAssertNotNil(track.slots[9][0])
        XCTAssertNil(track.slots[12][0])
        // 0.39 s lies between a frame with a hand (0.36) and one without (0.40): nearest wins.
        let odd = Windowing.resample(f, start: 0.39, end: 0.4, fps: 100, hand: .any)
        XCTAssertNil(odd.slots[0][0])
    }

    func testHandChoice() {
        let f = keypointFile(times: [0, 0.04], x: { _ in 0.2 }, second: true)
        XCTAssertEqual(Windowing.resample(f, start: 0, end: 0.04, fps: 25, hand: .left).slots[0][0]?.chirality, .left)
        XCTAssertEqual(Windowing.resample(f, start: 0, end: 0.04, fps: 25, hand: .any).slots[0][0]?.chirality, .right)
        let both = Windowing.resample(f, start: 0, end: 0.04, fps: 25, hand: .both).slots[0]
        XCTAssertEqual(both.map { $0?.chirality }, [.left, .right])
    }

    func testWindowEdges() {
        XCTAssertEqual(Windowing.windowStarts(count: 130, window: 60, stride: 60, dropShort: false, padTail: false), [0, 60])
        XCTAssertEqual(Windowing.windowStarts(count: 130, window: 60, stride: 60, dropShort: false, padTail: true), [0, 60, 120])
        XCTAssertEqual(Windowing.windowStarts(count: 100, window: 60, stride: 20, dropShort: false, padTail: false), [0, 20, 40])
        XCTAssertEqual(Windowing.windowStarts(count: 30, window: 60, stride: 60, dropShort: false, padTail: false), [0])
        XCTAssertEqual(Windowing.windowStarts(count: 30, window: 60, stride: 60, dropShort: true, padTail: false), [])
        XCTAssertEqual(Windowing.windowStarts(count: 0, window: 60, stride: 60, dropShort: false, padTail: false), [])
    }
}
