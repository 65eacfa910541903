import Foundation
import Inference
import Keypoints
import Landmarking
import VideoIO

/// MediaPipe Holistic's hands, found from the body's pose rather than palm detection
/// (holistic_landmark/hand_landmarks_from_pose_cpu.pbtxt), one side at a time: when the pose's wrist is
/// visible enough, a region from its wrist, index and pinky points, re-cut by the `hand_recrop` model,
/// kept from the last frame's hand while it still fits (`RegionTracking.hand`), then the hand landmark
/// model (full). The side is the person's own, from the pose; the landmark model's handedness is not
/// used. Nothing is smoothed; one frame is remembered.
public final class HandFromPose {
    /// The re-crop model's input side.
    public static let recropSize = 256
    let recrop: ExecutionPlan
    let landmarker: HandLandmarker
    private var tensor: [Float]
    /// Each side's hand in the last frame.
    private var previous: [Chirality: [Point3]] = [:]
    /// Each side's track number while its hand is found frame after frame, and the next new one.
    private var tracks: [Chirality: Int] = [:]
    private var nextTrack = 0
    /// hand_visibility_from_hand_landmarks_from_pose: the wrist's (smoothed) visibility must exceed 0.1.
    public var minWristVisibility: Float = 0.1
    public var minPresence: Float = 0.5
    /// Arms that passed the gate so far, each a re-crop and a landmark run (`bench holistic --profile`).
    public private(set) var arms = 0

    /// `recropModel`: `hand_recrop.tflite`; `landmarkModel`: `hand_landmark_full.tflite`.
    public init(recropModel: TFLiteModel, landmarkModel: TFLiteModel, threads: Int = 1, sharing: SharedConstants? = nil) throws {
        recrop = try ExecutionPlan(model: recropModel, threads: threads, sharing: sharing)
        landmarker = try HandLandmarker(model: landmarkModel, threads: threads, sharing: sharing)
        tensor = [Float](repeating: 0, count: Self.recropSize * Self.recropSize * 3)
    }

    /// Forgets both sides' last hands.
    public func reset() { previous = [:] }

    /// Forgets the clip: the last hands and the track numbers.
    public func resetTracks() { previous = [:]; tracks = [:]; nextTrack = 0 }

    /// The pose's points for one arm, normalised to the frame.
    public struct Arm: Sendable {
        public var wrist: SIMD2<Float>, pinky: SIMD2<Float>, index: SIMD2<Float>
        public var wristVisibility: Float
        public init(wrist: SIMD2<Float>, pinky: SIMD2<Float>, index: SIMD2<Float>, wristVisibility: Float) {
            self.wrist = wrist; self.pinky = pinky; self.index = index; self.wristVisibility = wristVisibility
        }
    }

    /// The hand at the end of `arm` (the person's `side`), or nil.
    public func process(_ frame: VideoFrame, side: Chirality, arm: Arm) throws -> HandObservation? {
        guard arm.wristVisibility > minWristVisibility else { previous[side] = nil; return nil }
        arms += 1
        let W = frame.width, H = frame.height
        let size = SIMD2(Float(W), Float(H))
        // hand_detections_from_pose_to_rects: centred on (2 index + pinky) / 3, twice its distance from the
        // wrist across, turned wrist -> centre upright; then 2.7 times, moved up a tenth.
        let wrist = arm.wrist * size, centre = (2 * arm.index + arm.pinky) / 3 * size
        let side2 = ((centre.x - wrist.x) * (centre.x - wrist.x) + (centre.y - wrist.y) * (centre.y - wrist.y)).squareRoot() * 2
        let fromPose = RegionOfInterest(xCenter: centre.x / size.x, yCenter: centre.y / size.y, width: side2 / size.x, height: side2 / size.y,
                                        rotation: RegionOfInterest.rotation(from: wrist, to: centre))
            .transformed(imageWidth: W, imageHeight: H, scale: 2.7, shiftY: -0.1)
        // hand_recrop_by_roi: the re-crop model gives a centre and a scale point (256-pixel units).
        try tensor.withUnsafeMutableBufferPointer { t in
            RegionCrop.sample(frame, region: fromPose, size: Self.recropSize, border: .replicate, into: t.baseAddress!)
            try recrop.run(UnsafeBufferPointer(t))
        }
        let out = recrop.output(0), s = Float(Self.recropSize)
        let a = fromPose.project(Point3(out[0] / s, out[1] / s, 0)), b = fromPose.project(Point3(out[2] / s, out[3] / s, 0))
        let recropRegion = RegionOfInterest.aligned(centre: SIMD2(a.x, a.y), scale: SIMD2(b.x, b.y), target: -.pi / 2, width: W, height: H)
            .transformed(imageWidth: W, imageHeight: H, scale: 1, shiftY: -0.1)
        let last = previous[side]
        let tracked = last.map { RegionOfInterest.fromLandmarks($0, imageWidth: W, imageHeight: H) }
        let region = RegionTracking.hand.choose(recrop: recropRegion, previous: tracked, previousLandmarks: last ?? [], width: W, height: H)
        let r = try landmarker.estimate(frame, region: region)
        guard r.presence > minPresence else { previous[side] = nil; return nil }
        // The same track while the side's hand was found in the frame before; a new one when it comes back.
        if last == nil || tracks[side] == nil {
            tracks[side] = nextTrack
            nextTrack += 1
        }
        previous[side] = r.landmarks
        var hand = HandObservation(chirality: side, handedness: side == .right ? 1 : 0, presence: r.presence,
                                   landmarks: r.landmarks, world: r.world, region: region)
        hand.track = tracks[side]!
        return hand
    }
}
