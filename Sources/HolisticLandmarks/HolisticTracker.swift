import BodyLandmarks
import FaceLandmarks
import Foundation
import HandLandmarks
import Inference
import Keypoints
import Landmarking
import VideoIO

/// What MediaPipe Holistic reports for one frame: one person's body, their left and right hands (the
/// person's own sides, from the pose) and face; nothing when no body was found.
public struct HolisticObservation: Sendable {
    public var body: BodyObservation?
    public var leftHand: HandObservation?
    public var rightHand: HandObservation?
    public var face: FaceObservation?
    public static let empty = HolisticObservation()
}

/// Holistic's models from one folder: the legacy pose pipeline's two, the hand re-crop and the full hand
/// landmark model, the short-range face detector and the face mesh (with attention for `refineFace`).
public final class HolisticModels {
    public let body: BodyModels
    public let face: FaceModels
    public let recrop: TFLiteModel
    public let handLandmark: TFLiteModel
    public let hashes: [String: String]
    public static let handFileNames = ["hand_recrop.tflite", "hand_landmark_full.tflite"]
    public static func fileNames(refineFace: Bool = false) -> [String] {
        BodyModels.fileNames + handFileNames + FaceModels.fileNames(refined: refineFace)
    }

    /// `hashes`: the models' identity when already known (a supervisor's, passed to its workers); nil or
    /// lacking one: computed here.
    public init(directory: URL, refineFace: Bool = false, sharing: SharedConstants? = nil, hashes: [String: String]? = nil) throws {
        body = try BodyModels(directory: directory, sharing: sharing, hashes: ModelFiles.known(hashes, names: BodyModels.fileNames))
        face = try FaceModels(directory: directory, refined: refineFace, sharing: sharing,
                              hashes: ModelFiles.known(hashes, names: FaceModels.fileNames(refined: refineFace)))
        let urls = try ModelFiles.urls(directory: directory, names: Self.handFileNames)
        recrop = try TFLiteModel(path: urls[0].path)
        handLandmark = try TFLiteModel(path: urls[1].path)
        let hands = try ModelFiles.known(hashes, names: Self.handFileNames) ?? ModelFiles.identity(directory: directory, names: Self.handFileNames)
        self.hashes = body.hashes.merging(face.hashes) { a, _ in a }.merging(hands) { a, _ in a }
    }
}

/// MediaPipe Holistic (legacy `mp.solutions.holistic` in mediapipe 0.10.14, as pose-format's
/// `video_to_pose` runs it: model_complexity 1, smoothing on; refine_face_landmarks as its models ask), frame by frame:
/// the body (`HolisticBodyTracker`), then from its smoothed landmarks each hand (`HandFromPose`: left
/// from landmarks 15, 17, 19, right from 16, 18, 20) and the face (`FaceFromPose`, landmarks 0-10).
/// docs/holistic.md follows each step to MediaPipe's graphs.
public final class HolisticTracker {
    /// What keypoint files record as `settings.holistic`: the MediaPipe release whose legacy graph this follows.
    public static let name = "mediapipe-0.10.14"
    public let models: HolisticModels
    let body: HolisticBodyTracker
    let hands: HandFromPose
    let face: FaceFromPose

    /// Where a clip's time went (`bench holistic --profile`): each part of a frame's work and how often the
    /// models with a gate ran.
    public struct Timings: Sendable {
        /// The pose: its detector when the frame before left none, the crop, landmarks, refinement, smoothing.
        public var body: Duration = .zero
        /// The hands from the pose's arms: re-crop model and landmark model per arm past the visibility gate.
        public var hands: Duration = .zero
        /// The face from the pose's head: the detector inside its region and the face mesh.
        public var face: Duration = .zero
        /// Frames with a person (the face's detector runs once on each); arms past the gate (each a re-crop and
        /// a landmark run).
        public var people = 0, arms = 0
        public init() {}

        public mutating func add(_ other: Timings) {
            body += other.body; hands += other.hands; face += other.face
            people += other.people; arms += other.arms
        }
    }

    /// Time spent since the clip began (`reset`).
    public private(set) var timings = Timings()

    /// The instruction set of the kernels running the models (`baseline`, `avx2`, `avx512`).
    public var kernels: String { body.kernels }

    public init(models: HolisticModels, threads: Int = 1) throws {
        self.models = models
        body = try HolisticBodyTracker(models: models.body, threads: threads)
        hands = try HandFromPose(recropModel: models.recrop, landmarkModel: models.handLandmark, threads: threads,
                                 sharing: models.body.sharing)
        face = try FaceFromPose(models: models.face, threads: threads)
    }

    /// Points of each face: 478 with refine_face_landmarks, else 468.
    public var facePoints: Int { face.pointCount }
    public var refinesFace: Bool { facePoints == FaceRefinement.pointCount }

    /// Forgets the clip so far (call between clips): what a new Holistic object starts from.
    public func reset() {
        timings = Timings()
        body.reset()
        hands.resetTracks()
        face.reset()
    }

    /// One frame; call once per frame, in order.
    public func process(_ frame: VideoFrame) throws -> HolisticObservation {
        let start = ContinuousClock.now
        let found = try body.process(frame)
        let bodyDone = ContinuousClock.now
        timings.body += bodyDone - start
        guard let person = found else {
            hands.reset()
            face.reset()
            return .empty
        }
        timings.people += 1
        func arm(_ wrist: Int, _ pinky: Int, _ index: Int) -> HandFromPose.Arm {
            let p = person.landmarks
            return .init(wrist: SIMD2(p[wrist].x, p[wrist].y), pinky: SIMD2(p[pinky].x, p[pinky].y),
                         index: SIMD2(p[index].x, p[index].y), wristVisibility: person.visibility[wrist])
        }
        var out = HolisticObservation(body: person)
        let armsBefore = hands.arms
        out.leftHand = try hands.process(frame, side: .left, arm: arm(15, 17, 19))
        out.rightHand = try hands.process(frame, side: .right, arm: arm(16, 18, 20))
        timings.arms += hands.arms - armsBefore
        let handsDone = ContinuousClock.now
        timings.hands += handsDone - bodyDone
        out.face = try face.process(frame, poseFace: person.landmarks[0..<11].map { SIMD2($0.x, $0.y) })
        timings.face += ContinuousClock.now - handsDone
        return out
    }
}

/// What `--holistic` asks for: MediaPipe Holistic with video_to_pose's configuration, whether a hand it
/// misses is taken from handpose's own hand tracker (`--hand-fallback`), and whether the face is refined
/// (`--refine-face`: video_to_pose's `refine_face_landmarks=true`, 478 points).
public struct HolisticOptions: Hashable, Sendable, Codable {
    public var handFallback = false
    public var refineFace = false
    public init(handFallback: Bool = false, refineFace: Bool = false) {
        self.handFallback = handFallback
        self.refineFace = refineFace
    }
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        handFallback = try c.decodeIfPresent(Bool.self, forKey: .handFallback) ?? false
        refineFace = try c.decodeIfPresent(Bool.self, forKey: .refineFace) ?? false
    }
    /// What keypoint files record as `settings.holistic`.
    public var recorded: String { HolisticTracker.name + (refineFace ? "+refine-face" : "") + (handFallback ? "+hand-fallback" : "") }
}
