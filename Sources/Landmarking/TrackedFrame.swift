import Keypoints

/// One frame of a clip as the landmarkers tracked it: its hands and bodies, and when it was shown
/// (seconds). What extraction hands to smoothing (`TrackSmoother`) and completion (`SequenceCompletion`)
/// and then writes.
public struct TrackedFrame: Sendable {
    public var index: Int
    public var time: Double
    public var hands: [HandObservation]
    /// The frame's bodies as stored (`extract --body`), carried along untouched; nil when not looked for.
    public var bodies: [KeypointFile.Body]?
    /// The frame's faces as stored (`extract --holistic`), carried along untouched; nil when not looked for.
    public var faces: [KeypointFile.Face]?

    public init(index: Int, time: Double, hands: [HandObservation], bodies: [KeypointFile.Body]? = nil, faces: [KeypointFile.Face]? = nil) {
        self.index = index; self.time = time; self.hands = hands; self.bodies = bodies; self.faces = faces
    }
}
