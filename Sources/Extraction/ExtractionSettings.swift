import BodyLandmarks
import HandLandmarks
import HolisticLandmarks

/// What extraction is asked to make of an input, as one typed value: the hands (MediaPipe's hand
/// landmarker), the body beside them when asked, and what runs after tracking (smoothing, completion).
/// The supervisor sends it to its workers, keypoint files record it (`KeypointFile.Settings`), and a
/// verdict compares it. Holistic (`holistic`) replaces the hand and body pipelines with its own.
public struct ExtractionSettings: Hashable, Sendable, Codable {
    /// The hand pipeline's settings.
    public var hands: HandTrackerOptions
    /// `--body`: MediaPipe's pose landmarker beside the hands, each hand tied to its person; nil when not
    /// asked. It runs in the hands' mode (`bodyOptions`).
    public var body: BodyTrackerOptions?
    /// `--smooth`: each track's landmarks smoothed over time by `TrackSmoother` after the tracker (video mode).
    public var smoothing: Bool
    /// `--complete`: once a clip has been read, `SequenceCompletion` follows tracks backwards, rejoins
    /// them, fills short gaps and votes chirality (video mode).
    public var completion: Bool
    /// `--holistic`: MediaPipe Holistic in place of the hand (and body) pipelines: its body, hands found
    /// from the body, and face; nil when not asked.
    public var holistic: HolisticOptions?

    public init(hands: HandTrackerOptions = HandTrackerOptions(), body: BodyTrackerOptions? = nil, smoothing: Bool = false,
                completion: Bool = false, holistic: HolisticOptions? = nil) {
        self.hands = hands; self.body = body; self.smoothing = smoothing; self.completion = completion; self.holistic = holistic
    }

    /// Whether smoothing applies: it follows hands over time, so video mode only.
    public var smooths: Bool { smoothing && hands.mode == .video }
    /// Whether completion applies: video mode only.
    public var completes: Bool { completion && hands.mode == .video }
    /// Whether handpose's hand tracker (palm detection, hand landmarks) runs: always, but under Holistic only
    /// with `--hand-fallback`. What a worker plans, what a run records as its models, and which models `extract`
    /// and `status` look for follow from it.
    public var runsHandTracker: Bool { holistic.map(\.handFallback) ?? true }
    /// The body pipeline's settings in the hands' mode (a still is an image for both), when a body is asked.
    public var bodyOptions: BodyTrackerOptions? {
        body.map { var b = $0; b.mode = hands.mode; return b }
    }
}
