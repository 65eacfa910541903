import Foundation
import Keypoints
import Landmarking

/// `--smooth`: each hand's landmarks (image and world) replaced by a local quadratic fit over the frames of
/// its own track within 0.15 s on both sides (at least two frames a side), evaluated at the frame's own
/// time (Savitzky-Golay smoothing on the frames' real timestamps, so variable frame rates are fitted
/// correctly).
///
/// Why this filter for hands: the landmark model's error on a hand is mostly a bias that changes with the
/// pose, and a little frame-to-frame noise. A causal low-pass filter (One-Euro, MediaPipe's choice for
/// faces and poses) trades that noise for lag, and a hand moves fast enough that the lag costs more
/// accuracy than the noise did. A centred quadratic fit has no lag: a landmark moving at constant speed or
/// acceleration is reproduced exactly, and only the noise is averaged. Its cost is a delay of `radius`
/// frames before a frame is final, which a file renamed into place after the whole clip does not notice.
///
/// A window holds as many frames on each side: near the first or last frame of a track, or beside a gap in
/// time, it shrinks to the frames available on both sides, and a frame with fewer than two on either side
/// is reported as estimated (a quadratic through three points is the points). Tracks are never mixed: a
/// hand found anew starts a new track.
public struct TrackSmoother {
    /// Half-width of the window in seconds: wide enough to average several frames at common frame rates
    /// (2 frames a side at 15 fps, 4 at 30), narrow enough that a quadratic still follows a hand's
    /// motion within it. Measured on `handpose synth` clips against their truth (README, "`--smooth` is a
    /// centred quadratic fit").
    public static let halfWidth = 0.15
    /// At frame rates under 13.3 fps, 0.15 s holds less than two frames a side, too few for a quadratic to
    /// average anything: the window then takes two frames a side.
    public static let minimumFrames = 2
    /// The most frames held on each side, whatever the frame rate claims (a container's bogus rate must
    /// not hold a whole clip back).
    public static let maximumFrames = 20

    /// How keypoint files name this smoothing (`settings.smoother`).
    public static let name = "centred-quadratic-0.15s"

    /// Frames on each side of the one being smoothed: the most a window can hold.
    public let radius: Int
    /// How far (seconds) a window reaches from the frame being smoothed; frames further away (beyond a gap in
    /// the timestamps) are left out, and the other side is cut to as many frames. The fit uses the frames' real
    /// times, so a window uneven in time still reproduces quadratic motion exactly.
    public let reach: Double
    /// Frames as estimated: up to `radius` already released (the next ones' past), then those waiting.
    private var window: [TrackedFrame] = []
    /// Position in `window` of the next frame to release.
    private var next = 0

    /// A smoother for footage at `frameRate` frames a second (the clip's average; the caller falls back to
    /// its nominal rate when that is unknown).
    public init(frameRate: Double) {
        let fps = frameRate.isFinite && frameRate > 0 ? frameRate : 25
        // A hundredth of a frame of slack, so a frame exactly 0.15 s (or two frames) away is not lost to
        // rounding in its timestamp.
        reach = max(Self.halfWidth, Double(Self.minimumFrames) / fps) + 0.01 / fps
        radius = min(Self.maximumFrames, max(Self.minimumFrames, Int((reach * fps).rounded(.down))))
    }

    /// A smoother with a window of `radius` frames a side reaching `reach` seconds (tests; `radius` 0
    /// passes frames straight through).
    public init(radius: Int, reach: Double = .infinity) {
        precondition(radius >= 0)
        self.radius = radius
        self.reach = reach
    }

    /// Takes the next frame as estimated; returns the frames now final, in order (none while the
    /// window fills, then one a frame).
    public mutating func push(_ frame: TrackedFrame) -> [TrackedFrame] {
        window.append(frame)
        var out: [TrackedFrame] = []
        while window.count - 1 - next >= radius { out.append(release()) }
        return out
    }

    /// The frames still waiting, smoothed with what is known (the end of a clip, or of a run cut short).
    public mutating func finish() -> [TrackedFrame] {
        var out: [TrackedFrame] = []
        while next < window.count { out.append(release()) }
        window = []
        next = 0
        return out
    }

    private mutating func release() -> TrackedFrame {
        var frame = window[next]
        // Hands `--complete` interpolated are neither smoothed nor used to smooth: no model saw them.
        for h in frame.hands.indices where frame.hands[h].origin != .interpolated {
            let track = frame.hands[h].track
            // The track's frames next to this one, each side, up to `radius` and within `reach`.
            func extent(_ step: Int) -> Int {
                var n = 0
                var i = next + step
                while n < radius, window.indices.contains(i), abs(window[i].time - frame.time) <= reach,
                      window[i].hands.contains(where: { $0.track == track && $0.origin != .interpolated }) {
                    n += 1
                    i += step
                }
                return n
            }
            let k = min(extent(-1), extent(1))
            guard k >= 2 else { continue }
            let span = (next - k...next + k)
            let weights = Self.weights(times: span.map { window[$0].time }, at: frame.time)
            let hands = span.map { i in window[i].hands.first { $0.track == track && $0.origin != .interpolated }! }
            frame.hands[h].landmarks = Self.combine(hands.map(\.landmarks), weights)
            frame.hands[h].world = Self.combine(hands.map(\.world), weights)
        }
        next += 1
        if next > radius {
            window.removeFirst(next - radius)
            next = radius
        }
        return frame
    }

    /// Weights whose sum over the samples is the least-squares quadratic through (times, values),
    /// evaluated at `t`: the first row of (AᵀA)⁻¹Aᵀ with A's rows (1, τ, τ²), τ the time from `t` in units
    /// of the farthest sample's (so -1...1, for conditioning).
    static func weights(times: [Double], at t: Double) -> [Float] {
        let scale = max(times.map { abs($0 - t) }.max() ?? 1, 1e-9)
        let tau = times.map { ($0 - t) / scale }
        // Normal equations: M = AᵀA (moments of τ), solve M c = e0; weight j = c · (1, τj, τj²).
        var s = [Double](repeating: 0, count: 5)
        for x in tau { var p = 1.0; for d in 0..<5 { s[d] += p; p *= x } }
        let m = [[s[0], s[1], s[2]], [s[1], s[2], s[3]], [s[2], s[3], s[4]]]
        let c = solve3(m, [1, 0, 0])
        return tau.map { Float(c[0] + c[1] * $0 + c[2] * $0 * $0) }
    }

    /// Cramer's rule for a 3x3 system. The normal matrix comes from at least five distinct times (the
    /// reader makes them strictly increase) scaled to -1...1, symmetric about 0 for even frame rates.
    static func solve3(_ m: [[Double]], _ b: [Double]) -> [Double] {
        func det(_ a: [[Double]]) -> Double {
            a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
                + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0])
        }
        let d = det(m)
        return (0..<3).map { col in
            var a = m
            for r in 0..<3 { a[r][col] = b[r] }
            return det(a) / d
        }
    }

    static func combine(_ series: [[Point3]], _ weights: [Float]) -> [Point3] {
        var out = [Point3](repeating: .zero, count: series[0].count)
        for (points, w) in zip(series, weights) {
            for j in out.indices { out[j] += w * points[j] }
        }
        return out
    }
}
