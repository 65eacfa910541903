import Keypoints

/// A point: x and y normalised to the frame (0...1, origin top-left), z MediaPipe's relative depth;
/// or, for world landmarks, metres around the hand's centre.
public typealias Point3 = SIMD3<Float>

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

    public init(chirality: Chirality, handedness: Float, presence: Float, landmarks: [Point3], world: [Point3], region: RegionOfInterest) {
        self.chirality = chirality
        self.handedness = handedness
        self.presence = presence
        self.landmarks = landmarks
        self.world = world
        self.region = region
    }
}
