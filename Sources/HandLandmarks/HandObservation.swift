/// Which hand: as seen in the image as given (not mirrored).
public enum Chirality: String, Codable, Sendable {
    case left, right
}

/// MediaPipe's and Apple Vision's joint order: wrist, thumb CMC to tip, then index, middle,
/// ring and little finger from MCP to tip.
public enum Joint {
    public static let names = [
        "wrist", "thumbCMC", "thumbMP", "thumbIP", "thumbTip",
        "indexMCP", "indexPIP", "indexDIP", "indexTip",
        "middleMCP", "middlePIP", "middleDIP", "middleTip",
        "ringMCP", "ringPIP", "ringDIP", "ringTip",
        "littleMCP", "littlePIP", "littleDIP", "littleTip",
    ]
    public static let count = 21
    /// MediaPipe's 21 hand connections (bones), for drawing.
    public static let bones: [(Int, Int)] = [
        (0, 1), (1, 2), (2, 3), (3, 4), (0, 5), (5, 6), (6, 7), (7, 8), (5, 9), (9, 10), (10, 11), (11, 12),
        (9, 13), (13, 14), (14, 15), (15, 16), (13, 17), (0, 17), (17, 18), (18, 19), (19, 20),
    ]
}

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

    public init(chirality: Chirality, handedness: Float, presence: Float, landmarks: [Point3], world: [Point3], region: RegionOfInterest) {
        self.chirality = chirality
        self.handedness = handedness
        self.presence = presence
        self.landmarks = landmarks
        self.world = world
        self.region = region
    }
}
