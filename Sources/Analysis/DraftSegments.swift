import Foundation
import Keypoints

/// Draft segments for annotators (pre-annotations): where in a clip a hand is present and moving, from
/// its keypoints, so that annotators correct drafts in ELAN or Label Studio instead of scrubbing every
/// clip. A hand's motion is its own: the speed of its joints relative to its wrist (fingers opening,
/// the hand turning) plus the speed of its wrist, both in palm sizes per second (the wrist-to-middle-
/// knuckle distance, so near and far hands count alike); each hand is compared with itself in the
/// previous frame of its own track, never with another hand. (A camera panning past a still hand moves
/// its wrist too; without the body, which the pose landmarker would give, it cannot be told apart.)
/// The frame's motion is its fastest hand's, smoothed by a centred median; frames above `minSpeed`
/// are active; gaps shorter than `mergeGap` are closed and runs shorter than `minDuration` dropped.
public enum DraftSegments {
    public struct Settings: Sendable {
        /// Palm sizes a second above which a hand is moving.
        public var minSpeed = 1.0
        /// Seconds: a pause shorter than this does not end a draft.
        public var mergeGap = 0.25
        /// Seconds: shorter drafts are dropped.
        public var minDuration = 0.3
        /// Seconds either side of a frame in the median of the motion (at most `maxSmoothingFrames`).
        public var smoothing = 0.1
        public init() {}
    }

    /// Frames either side of a frame that its median takes at most, whatever `smoothing` spans. The
    /// default 0.1 s is 24 frames at 240 fps (slow motion on phones and action cameras) and 32 at 320, so
    /// up to those rates the median is over the seconds asked, as it always was. Keypoint files may state
    /// up to 10^6 frames a second, where 0.1 s either side is 200,000 frames gathered and sorted for every
    /// frame: a clip of 120,000 frames took over half a minute, growing with the square of its frames.
    /// Capped, a frame costs the same at any rate.
    static let maxSmoothingFrames = 32

    /// The drafts of one clip: (start, end) in seconds, in order.
    public static func suggest(_ file: KeypointFile, settings: Settings = Settings()) -> [(start: Double, end: Double)] {
        let frames = file.frames
        guard frames.count > 1 else { return [] }
        let w = Float(file.video.width), h = Float(file.video.height)
        // Each track's hand in the previous frame it was seen in.
        var last: [Int: (t: Double, hand: KeypointFile.Hand)] = [:]
        var speed = [Double](repeating: 0, count: frames.count)
        for (k, frame) in frames.enumerated() {
            for (n, hand) in frame.hands.enumerated() {
                let track = hand.track ?? -(n + 1)
                defer { last[track] = (frame.t, hand) }
                guard let (t0, before) = last[track], frame.t > t0, frame.t - t0 < 0.5 else { continue }
                guard let palm = palmSize(hand, w, h), palm > 0 else { continue }
                let dt = Float(frame.t - t0)
                var wrist: Float = 0, shape: Float = 0
                let a0 = point(before, 0, w, h), b0 = point(hand, 0, w, h)
                wrist = distance(a0, b0)
                for j in 1..<min(hand.landmarks.count, before.landmarks.count) {
                    let a = point(before, j, w, h), b = point(hand, j, w, h)
                    shape += distance((a.0 - a0.0, a.1 - a0.1), (b.0 - b0.0, b.1 - b0.1))
                }
                shape /= Float(max(1, hand.landmarks.count - 1))
                speed[k] = max(speed[k], Double((wrist + shape) / palm / dt))
            }
        }
        // A centred median over `smoothing` seconds either side, and no more than `maxSmoothingFrames`.
        var smoothed = speed
        let most = maxSmoothingFrames
        for k in frames.indices {
            var window: [Double] = []
            var j = k
            while j >= 0 && k - j <= most && frames[k].t - frames[j].t <= settings.smoothing { window.append(speed[j]); j -= 1 }
            j = k + 1
            while j < frames.count && j - k <= most && frames[j].t - frames[k].t <= settings.smoothing { window.append(speed[j]); j += 1 }
            window.sort()
            smoothed[k] = window[window.count / 2]
        }
        // Active runs, as [start of first active frame, start of the frame after the last).
        var runs: [(Double, Double)] = []
        var open: Double?
        for k in frames.indices {
            let active = smoothed[k] >= settings.minSpeed
            if active && open == nil { open = frames[k].t }
            if !active, let o = open { runs.append((o, frames[k].t)); open = nil }
        }
        if let o = open {
            let step = frames.count > 1 ? frames[frames.count - 1].t - frames[frames.count - 2].t : 0
            runs.append((o, frames[frames.count - 1].t + step))
        }
        var merged: [(start: Double, end: Double)] = []
        for r in runs {
            if let lastRun = merged.last, r.0 - lastRun.end < settings.mergeGap { merged[merged.count - 1].end = r.1 } else { merged.append((r.0, r.1)) }
        }
        return merged.filter { $0.end - $0.start >= settings.minDuration }
    }

    static func point(_ hand: KeypointFile.Hand, _ j: Int, _ w: Float, _ h: Float) -> (Float, Float) {
        (hand.landmarks[j][0] * w, hand.landmarks[j][1] * h)
    }

    static func distance(_ a: (Float, Float), _ b: (Float, Float)) -> Float {
        ((a.0 - b.0) * (a.0 - b.0) + (a.1 - b.1) * (a.1 - b.1)).squareRoot()
    }

    /// Wrist to middle-finger knuckle (joints 0 and 9), in pixels.
    static func palmSize(_ hand: KeypointFile.Hand, _ w: Float, _ h: Float) -> Float? {
        guard hand.landmarks.count > 9 else { return nil }
        return distance(point(hand, 0, w, h), point(hand, 9, w, h))
    }
}
