import BodyLandmarks
import FaceLandmarks
import HandLandmarks
import HolisticLandmarks
import Keypoints
import Landmarking

// How the engine's values are stored in a keypoint file: the one place that knows both sides.

extension KeypointFile.Settings {
    /// The file fields of an extraction's settings.
    public init(_ s: ExtractionSettings) {
        let o = s.hands
        self.init(model: o.model.rawValue, maxHands: o.maxHands, minDetectionConfidence: o.minDetectionConfidence,
                  minPresenceConfidence: o.minPresenceConfidence, mode: o.mode.rawValue, mirrored: o.mirrored,
                  smoothing: s.smoothing, smoother: s.smooths ? TrackSmoother.name : nil, rules: o.rules.rawValue, pipeline: Self.currentPipeline,
                  completion: s.completes ? SequenceCompletion.name : nil,
                  body: s.body == nil ? nil : BodyTracker.name, maxBodies: s.body?.maxBodies,
                  holistic: s.holistic?.recorded)
    }
}

extension KeypointFile.Region {
    public init(_ r: RegionOfInterest) {
        self.init(xCenter: r.xCenter, yCenter: r.yCenter, width: r.width, height: r.height, rotation: r.rotation)
    }
}

extension KeypointFile.Body {
    /// A body as stored: coordinates rounded to 1e-6, scores to 1e-5. `mirrored` (selfie footage, as
    /// `--mirrored` says): the model saw the person mirrored, so its left landmarks are the person's
    /// right ones; they are stored under their own side's names, as hands' chirality is flipped back.
    public init(_ b: BodyObservation, mirrored: Bool = false) {
        func rounded(_ p: Point3) -> [Float] { [p.x, p.y, p.z].map { ($0 * 1e6).rounded() / 1e6 } }
        func score(_ v: Float) -> Float { (v * 1e5).rounded() / 1e5 }
        let order = mirrored ? BodyJoint.mirrored : Array(0..<BodyJoint.count)
        self.init(landmarks: order.map { rounded(b.landmarks[$0]) }, visibility: order.map { score(b.visibility[$0]) },
                  presence: order.map { score(b.presence[$0]) }, world: order.map { rounded(b.world[$0]) }, score: score(b.score),
                  region: KeypointFile.Region(b.region), track: b.track)
    }
}

extension KeypointFile.Face {
    /// A face as stored: coordinates rounded to 1e-6, its presence to 1e-5; `person`: the body it was found from.
    public init(_ f: FaceObservation, person: Int?) {
        self.init(landmarks: f.landmarks.map { p in [p.x, p.y, p.z].map { ($0 * 1e6).rounded() / 1e6 } },
                  presence: (f.presence * 1e5).rounded() / 1e5, region: KeypointFile.Region(f.region), person: person)
    }
}

extension KeypointFile.Hand {
    /// A hand as stored: coordinates rounded to 1e-6, scores to 1e-5; an interpolated hand has no region
    /// (no model looked at one).
    public init(_ h: HandObservation) {
        func rounded(_ p: Point3) -> [Float] { [p.x, p.y, p.z].map { ($0 * 1e6).rounded() / 1e6 } }
        self.init(chirality: h.chirality, handedness: (h.handedness * 1e5).rounded() / 1e5,
                  presence: (h.presence * 1e5).rounded() / 1e5,
                  landmarks: h.landmarks.map(rounded), world: h.world.map(rounded),
                  region: h.origin == .interpolated ? nil : KeypointFile.Region(h.region), track: h.track,
                  origin: h.origin == .tracked ? nil : h.origin.rawValue)
    }
}
