import HandLandmarks
import Landmarking
import XCTest

/// `TrackSmoother` (`--smooth`): no lag on smooth motion, less noise, every frame out once and in order,
/// and each track smoothed with its own frames only.
final class TrackSmootherTests: XCTestCase {
    /// A hand whose 21 landmarks sit at `x` plus a spread, at height `y`; world landmarks follow `x` too.
    func hand(track: Int, x: Float, y: Float = 0.5) -> HandObservation {
        var h = HandObservation(chirality: .right, handedness: 0.9, presence: 0.9,
                                landmarks: (0..<21).map { Point3(x + Float($0) * 0.01, y, 0) },
                                world: (0..<21).map { Point3(x, Float($0) * 0.001, 0) },
                                region: RegionOfInterest(xCenter: x, yCenter: y, width: 0.2, height: 0.2, rotation: 0))
        h.track = track
        return h
    }

    /// Runs frames through a smoother and returns what comes out, checking the delay on the way.
    func run(_ frames: [TrackedFrame], _ smoother: TrackSmoother) -> [TrackedFrame] {
        var smoother = smoother
        var out: [TrackedFrame] = []
        for (n, f) in frames.enumerated() {
            let ready = smoother.push(f)
            XCTAssertEqual(ready.count, n >= smoother.radius ? 1 : 0, "frame \(n): one frame out a frame once the window is full")
            out += ready
        }
        out += smoother.finish()
        XCTAssertEqual(out.map(\.index), frames.map(\.index), "every frame out once, in order")
        return out
    }

    /// A hand moving with constant acceleration, sampled at uneven times (variable frame rate), comes out
    /// where it was: a centred quadratic fit has no lag, where a causal filter trails behind.
    func testQuadraticMotionIsReproducedWithoutLag() {
        var times: [Double] = []
        var t = 0.0
        for i in 0..<40 { times.append(t); t += i % 3 == 0 ? 1.0 / 25 : 1.0 / 35 }
        func x(_ t: Double) -> Float { Float(0.1 + 0.6 * t + 0.9 * t * t) }
        let frames = times.enumerated().map { TrackedFrame(index: $0.offset, time: $0.element, hands: [hand(track: 0, x: x($0.element))]) }
        let out = run(frames, TrackSmoother(radius: 4))
        for (f, truth) in zip(out, frames) {
            for j in 0..<21 {
                XCTAssertEqual(f.hands[0].landmarks[j].x, truth.hands[0].landmarks[j].x, accuracy: 2e-5, "frame \(f.index) joint \(j)")
                XCTAssertEqual(f.hands[0].world[j].x, truth.hands[0].world[j].x, accuracy: 2e-5, "frame \(f.index) joint \(j), world")
            }
        }
    }

    /// Noise around a smooth path is reduced: frame-to-frame jitter of the deviation drops by more than a
    /// third, and the deviation itself drops too.
    func testNoiseIsReduced() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        /// Noise in -0.01...0.01 from a fixed sequence (SplitMix64), so the test always sees the same frames.
        func noise() -> Float {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            z ^= z >> 31
            return (Float(z >> 40) / Float(1 << 24) - 0.5) * 0.02
        }
        var frames: [TrackedFrame] = []
        var truth: [Float] = []
        for i in 0..<120 {
            let t = Double(i) / 30
            let x = Float(0.3 + 0.2 * sin(2 * .pi * 0.5 * t))
            truth.append(x)
            frames.append(.init(index: i, time: t, hands: [hand(track: 0, x: x + noise())]))
        }
        let out = run(frames, TrackSmoother(frameRate: 30))
        func measures(_ fs: [TrackedFrame]) -> (error: Float, jitter: Float) {
            let e = zip(fs, truth).map { $0.hands[0].landmarks[0].x - $1 }
            let jitter = zip(e.dropFirst(), e).map { abs($0 - $1) }.reduce(0, +) / Float(e.count - 1)
            return (e.map(abs).reduce(0, +) / Float(e.count), jitter)
        }
        let (raw, smooth) = (measures(frames), measures(out))
        XCTAssertLessThan(smooth.jitter, raw.jitter * 0.67, "jitter \(raw.jitter) -> \(smooth.jitter)")
        XCTAssertLessThan(smooth.error, raw.error, "error \(raw.error) -> \(smooth.error)")
    }

    /// Two hands, one leaving after frame 9, and a new hand (new track) appearing where the first was: the
    /// hand that stays is smoothed exactly as if it had been alone, and no window reaches across tracks,
    /// so the newcomer's first frames and the leaver's last ones are reported as estimated.
    func testTracksAreSmoothedApart() {
        func jitter(_ i: Int) -> Float { Float(i % 3) * 0.004 }
        var both: [TrackedFrame] = [], alone: [TrackedFrame] = []
        for i in 0..<24 {
            let t = Double(i) / 15
            let stayer = hand(track: 1, x: 0.6 - Float(i) * 0.01 + jitter(i))
            var hands = [stayer]
            if i < 10 { hands.insert(hand(track: 0, x: 0.1 + Float(i) * 0.01 + jitter(i)), at: 0) }
            if i >= 12 { hands.insert(hand(track: 2, x: 0.1 + jitter(i + 1)), at: 0) }
            both.append(.init(index: i, time: t, hands: hands))
            alone.append(.init(index: i, time: t, hands: [stayer]))
        }
        let out = run(both, TrackSmoother(radius: 2)), expected = run(alone, TrackSmoother(radius: 2))
        for (f, e) in zip(out, expected) {
            XCTAssertEqual(f.hands.first { $0.track == 1 }!.landmarks, e.hands[0].landmarks, "frame \(f.index)")
        }
        // Track 0 ends at frame 9 and track 2 starts at 12: frames 8, 9, 12 and 13 lack two frames of their
        // own track on one side.
        for i in [8, 9, 12, 13] {
            let own = both[i].hands.first { $0.track != 1 }!
            XCTAssertEqual(out[i].hands.first { $0.track == own.track }!.landmarks, own.landmarks, "frame \(i)")
        }
        // In the middle of track 0 the window is full and the jitter is averaged away.
        XCTAssertNotEqual(out[5].hands.first { $0.track == 0 }!.landmarks, both[5].hands[0].landmarks)
    }

    /// The window reaches 0.15 s either side: 2 frames at 15 fps, 3 at 25, 4 at 30, 9 at 60; at least two
    /// frames under 13.3 fps (12 fps, 5 fps); at most 20 whatever a container claims; 25 fps assumed for
    /// an unknown rate.
    func testWindowFollowsTheFrameRate() {
        let rates: [Double] = [15, 25, 29.97, 30, 60, 12, 5, 10_000, 0, .nan]
        XCTAssertEqual(rates.map { TrackSmoother(frameRate: $0).radius }, [2, 3, 4, 4, 9, 2, 2, 20, 3, 3])
        XCTAssertEqual(TrackSmoother(frameRate: 30).reach, 0.15, accuracy: 0.001)
        XCTAssertEqual(TrackSmoother(frameRate: 5).reach, 0.4, accuracy: 0.01)
        // Radius 0 passes frames straight through.
        let f = TrackedFrame(index: 0, time: 0, hands: [hand(track: 0, x: 0.3)])
        var s = TrackSmoother(radius: 0)
        XCTAssertEqual(s.push(f).map(\.index), [0])
        XCTAssertTrue(s.finish().isEmpty)
    }

    /// A gap in the timestamps (2 s between frames 9 and 10 of one track) ends the window: frames beside
    /// the gap are fitted from their own side's neighbours within reach only, so the two frames next to it
    /// on each side come out as estimated, and frames further in are smoothed.
    func testWindowsDoNotReachAcrossAGapInTime() {
        func jitter(_ i: Int) -> Float { Float(i % 3) * 0.004 }
        let frames = (0..<20).map { i in
            TrackedFrame(index: i, time: Double(i) / 30 + (i >= 10 ? 2 : 0), hands: [hand(track: 0, x: 0.3 + jitter(i))])
        }
        let out = run(frames, TrackSmoother(frameRate: 30))
        for i in [8, 9, 10, 11] {
            XCTAssertEqual(out[i].hands[0].landmarks, frames[i].hands[0].landmarks, "frame \(i)")
        }
        for i in [5, 14] {
            XCTAssertNotEqual(out[i].hands[0].landmarks, frames[i].hands[0].landmarks, "frame \(i)")
        }
    }
}
