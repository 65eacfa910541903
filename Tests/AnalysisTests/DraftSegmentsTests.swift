import Foundation
import Keypoints
import XCTest
@testable import Analysis

/// Drafts from a hand's own motion: still, then moving (sliding, or only its fingers), then still.
final class DraftSegmentsTests: XCTestCase {
    /// A hand of palm size 0.1 (wrist to middle knuckle) at `x`, its fingertips `spread` apart.
    func hand(x: Float, spread: Float = 0, track: Int = 0) -> KeypointFile.Hand {
        let landmarks: [[Float]] = (0..<21).map { j in
            j == 0 ? [x, 0.6, 0] : [x + Float(j % 4) * 0.01 * (1 + spread), 0.5 - Float(j / 4) * 0.01, 0]
        }
        return KeypointFile.Hand(chirality: .right, handedness: 0.9, presence: 0.99, landmarks: landmarks, world: nil, region: nil, track: track)
    }

    func file(_ hands: [(Double) -> KeypointFile.Hand?], seconds: Double = 3, fps: Double = 30) -> KeypointFile {
        let frames = (0..<Int(seconds * fps)).map { i -> KeypointFile.Frame in
            let t = Double(i) / fps
            return KeypointFile.Frame(i: i, t: t, hands: hands.compactMap { $0(t) })
        }
        return KeypointFile(source: "clip.mp4", width: 640, height: 480, fps: fps, frames: frames, tool: nil, settings: nil, models: nil)
    }

    func testASlideBetweenTwoStillsIsOneDraft() {
        // Still at 0.3, slides to 0.7 between 1 s and 2 s (0.4 of the width a second: about 2.5 palm sizes).
        let drafts = DraftSegments.suggest(file([{ t in self.hand(x: Float(0.3 + 0.4 * min(1, max(0, t - 1)))) }]))
        XCTAssertEqual(drafts.count, 1)
        XCTAssertEqual(drafts[0].start, 1.0, accuracy: 0.1)
        XCTAssertEqual(drafts[0].end, 2.0, accuracy: 0.1)
    }

    func testFingersMovingWithAStillWristCount() {
        let drafts = DraftSegments.suggest(file([{ t in self.hand(x: 0.5, spread: t < 1 || t > 2 ? 0 : Float(sin(t * 20)) * 0.8) }]))
        XCTAssertEqual(drafts.count, 1)
        XCTAssertEqual(drafts.first?.start ?? 0, 1.0, accuracy: 0.15)
    }

    func testStillHandsTrackChangesAndShortJitterMakeNoDraft() {
        XCTAssertTrue(DraftSegments.suggest(file([{ _ in self.hand(x: 0.5) }])).isEmpty)
        // Two still hands far apart, and a hand whose track changes while it jumps: never compared across.
        XCTAssertTrue(DraftSegments.suggest(file([{ _ in self.hand(x: 0.2, track: 0) }, { _ in self.hand(x: 0.8, track: 1) }])).isEmpty)
        XCTAssertTrue(DraftSegments.suggest(file([{ t in self.hand(x: t < 1.5 ? 0.2 : 0.8, track: t < 1.5 ? 0 : 1) }])).isEmpty)
        // One frame's jump (a detection glitch) is smoothed away; so is a draft under --min-duration.
        XCTAssertTrue(DraftSegments.suggest(file([{ t in self.hand(x: abs(t - 1.5) < 0.01 ? 0.6 : 0.5) }])).isEmpty)
    }

    /// The median takes at most `maxSmoothingFrames` either side, whatever the rate. At 10^6 frames a second
    /// 0.1 s either side was the whole of this millisecond clip for every frame (a cost growing with the
    /// square of the frames), and the clip's one median hid a slide over its first 40%. At 240 fps the
    /// window is still the 0.1 s asked, and a slide's draft is the one found at 30 fps.
    func testTheMedianWindowIsCappedInFramesAtAnyRate() {
        var settings = DraftSegments.Settings()
        settings.minDuration = 0
        // 1,000 frames at 10^6 fps: sliding for the first 400 microseconds, then still.
        let fast = file([{ t in self.hand(x: Float(0.3 + 0.01 * min(t, 0.0004) / 0.0004)) }], seconds: 0.001, fps: 1_000_000)
        XCTAssertEqual(fast.frames.count, 1000)
        let drafts = DraftSegments.suggest(fast, settings: settings)
        XCTAssertEqual(drafts.count, 1)
        XCTAssertEqual(drafts.first?.start ?? -1, 0, accuracy: 1e-9)
        XCTAssertEqual(drafts.first?.end ?? -1, 0.0004, accuracy: 0.000005)

        // At 240 fps, 0.1 s either side is 24 frames, under the cap: the median is the one asked for, and a
        // one-frame jump every 20 frames (under half of any window) is smoothed away as at 30 fps.
        XCTAssertGreaterThanOrEqual(DraftSegments.maxSmoothingFrames, 24)
        XCTAssertTrue(DraftSegments.suggest(file([{ t in self.hand(x: Int((t * 240).rounded()) % 20 == 0 ? 0.6 : 0.5) }], fps: 240)).isEmpty)
        let slide = DraftSegments.suggest(file([{ t in self.hand(x: Float(0.3 + 0.4 * min(1, max(0, t - 1)))) }], fps: 240))
        XCTAssertEqual(slide.count, 1)
        XCTAssertEqual(slide.first?.start ?? -1, 1.0, accuracy: 0.1)
        XCTAssertEqual(slide.first?.end ?? -1, 2.0, accuracy: 0.1)
    }
}
