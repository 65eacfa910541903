import Landmarking

/// One person's body in one frame: MediaPipe's 33 pose landmarks.
public struct BodyObservation: Sendable {
    /// x and y normalised to the frame, z MediaPipe's depth (the scale of x, hips' midpoint near 0).
    public var landmarks: [Point3]
    /// Per landmark: the probability that it is visible (not hidden) and that it is in the frame.
    public var visibility: [Float]
    public var presence: [Float]
    /// Metres, origin at the hips' midpoint.
    public var world: [Point3]
    /// The landmark model's pose presence score.
    public var score: Float
    /// The rotated square the landmark model looked at.
    public var region: RegionOfInterest
    /// The person's identity across frames (as a hand's track): kept while tracking carries it.
    public var track = -1

    public init(landmarks: [Point3], visibility: [Float], presence: [Float], world: [Point3], score: Float, region: RegionOfInterest) {
        self.landmarks = landmarks; self.visibility = visibility; self.presence = presence
        self.world = world; self.score = score; self.region = region
    }
}
