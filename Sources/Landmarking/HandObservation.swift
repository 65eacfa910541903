import Keypoints

/// One hand found in one frame.
public struct HandObservation: Sendable {
    public var chirality: Chirality
    /// Probability that this is a right hand, in the image as given.
    public var handedness: Float
    /// Hand presence score from the landmark model.
    public var presence: Float
    public var landmarks: [Point3]
    public var world: [Point3]
    /// The region the landmark model looked at.
    public var region: RegionOfInterest
    /// This hand's identity across frames: the same number while tracking carries the hand from frame
    /// to frame, a new one (counting from 0 in each clip) when palm detection finds it anew.
    public var track = -1
    /// How the hand was found: by MediaPipe's forward tracking (as a live tracker finds it), or by
    /// `--complete` after the clip was read (`SequenceCompletion`).
    public var origin: Origin = .tracked

    /// How a hand came to be reported.
    public enum Origin: String, Sendable {
        /// Palm detection or tracking from the frame before, frame by frame as MediaPipe does.
        case tracked
        /// The landmark model, tracking time reversed from a later frame of the same track.
        case backward
        /// No model: interpolated in time between the track's hands on either side of a short gap.
        case interpolated
        /// `extract --holistic --hand-fallback`: handpose's own hand tracker (palm detection and tracking),
        /// for a hand Holistic's pose-based crop missed.
        case fallback
    }

    public init(chirality: Chirality, handedness: Float, presence: Float, landmarks: [Point3], world: [Point3], region: RegionOfInterest) {
        self.chirality = chirality
        self.handedness = handedness
        self.presence = presence
        self.landmarks = landmarks
        self.world = world
        self.region = region
    }
}
