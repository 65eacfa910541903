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

    /// Time spent since the clip began (`reset`); read it when `frames` holds no frame (after `finish`).
    public var timings: Timings {
        var t = Timings()
        (t.body, t.face, t.people) = (bodyTime, faceTime, people)
        (t.hands, t.arms) = (handTime, arms)
        return t
    }
    /// The times and counts apart: with `frames` on two threads, the hands' are written by the second and
    /// the others by the caller's.
    private var bodyTime: Duration = .zero, faceTime: Duration = .zero, people = 0
    private var handTime: Duration = .zero, arms = 0

    /// The instruction set of the kernels running the models (`baseline`, `avx2`, `avx512`).
    public var kernels: String { body.kernels }
    /// The most engine threads the models run on (the process's `ThreadShare` may allow fewer).
    public let threads: Int
    /// The thread that finds a frame's hands while the caller's finds the next frame's body and face
    /// (`frames`); made on first need.
    private var stage: StageThread<Hands>?
    /// The frames whose hands the second thread is finding (or whose hand tracks it resets: no person), oldest
    /// first, each with its body and its face (or the face's error).
    private var pending: [Held] = []
    private typealias Held = (frame: VideoFrame, person: BodyObservation?, face: Result<FaceObservation?, Error>)
    /// The most frames held before the caller waits for the oldest. The second thread may lag two frames behind:
    /// a frame's hands take from nothing (no arm past the gate) to two landmark runs. Held at most 1, 3 or 8,
    /// the corpus ran within the runs' noise of each other (hand-timed, docs/engine-kernels.md); two frames are
    /// 12 MB at 1080p.
    static let depth = 2

    public init(models: HolisticModels, threads: Int = 1) throws {
        self.models = models
        self.threads = max(1, threads)
        body = try HolisticBodyTracker(models: models.body, threads: threads)
        hands = try HandFromPose(recropModel: models.recrop, landmarkModel: models.handLandmark, threads: threads,
                                 sharing: models.body.sharing)
        face = try FaceFromPose(models: models.face, threads: threads)
    }

    deinit { stage?.stop() }

    /// Points of each face: 478 with refine_face_landmarks, else 468.
    public var facePoints: Int { face.pointCount }
    public var refinesFace: Bool { facePoints == FaceRefinement.pointCount }

    /// Forgets the clip so far (call between clips): what a new Holistic object starts from. A frame of the
    /// last clip still with the second thread (`frames`, a clip given up before `finish`) is waited for and
    /// dropped.
    public func reset() {
        if let stage { while stage.inFlight > 0 { _ = stage.wait() } }
        pending = []
        (bodyTime, faceTime, people, handTime, arms) = (.zero, .zero, 0, .zero, 0)
        body.reset()
        hands.resetTracks()
        face.reset()
    }

    /// One frame; call once per frame, in order (not while `frames` holds one: `finish` first).
    public func process(_ frame: VideoFrame) throws -> HolisticObservation {
        precondition(pending.isEmpty, "frames are with the second thread: finish them first")
        guard let person = try findBody(frame) else {
            hands.reset()
            face.reset()
            return .empty
        }
        let found = try findHands(frame, person)
        return HolisticObservation(body: person, leftHand: found.left, rightHand: found.right, face: try findFace(frame, person))
    }

    /// The body, which the next frame's body depends on and nothing else.
    private func findBody(_ frame: VideoFrame) throws -> BodyObservation? {
        let start = ContinuousClock.now
        defer { bodyTime += ContinuousClock.now - start }
        return try body.process(frame)
    }

    /// Each hand from the person's arm, following its own track.
    private func findHands(_ frame: VideoFrame, _ person: BodyObservation) throws -> (left: HandObservation?, right: HandObservation?) {
        let found = try Self.hands(hands, frame, person)
        (handTime, arms) = (handTime + found.time, arms + found.arms)
        return (found.left, found.right)
    }

    /// `findHands` on the second thread: it holds the hand tracker, not the Holistic one, and its time and
    /// arms are added by the caller once it has waited for them.
    private static func hands(_ hands: HandFromPose, _ frame: VideoFrame, _ person: BodyObservation) throws -> Hands {
        let start = ContinuousClock.now
        let armsBefore = hands.arms
        func arm(_ wrist: Int, _ pinky: Int, _ index: Int) -> HandFromPose.Arm {
            let p = person.landmarks
            return .init(wrist: SIMD2(p[wrist].x, p[wrist].y), pinky: SIMD2(p[pinky].x, p[pinky].y),
                         index: SIMD2(p[index].x, p[index].y), wristVisibility: person.visibility[wrist])
        }
        let left = try hands.process(frame, side: .left, arm: arm(15, 17, 19)), right = try hands.process(frame, side: .right, arm: arm(16, 18, 20))
        return Hands(left: left, right: right, time: ContinuousClock.now - start, arms: hands.arms - armsBefore)
    }

    private struct Hands {
        var left: HandObservation?, right: HandObservation?
        var time: Duration, arms: Int
    }

    /// The face from the person's head, following its own track.
    private func findFace(_ frame: VideoFrame, _ person: BodyObservation) throws -> FaceObservation? {
        let start = ContinuousClock.now
        defer { faceTime += ContinuousClock.now - start }
        people += 1
        return try face.process(frame, poseFace: person.landmarks[0..<11].map { SIMD2($0.x, $0.y) })
    }

    /// One frame into a clip's stream; `emit` gets each frame whose observation is complete, in order, with
    /// that observation: `frame` itself, or, when the engine may run on two threads or more (the process's
    /// `ThreadShare`, up to `threads`), the frames whose hands are found by then, which may be a few frames
    /// behind. Then a frame's hands are found on a second thread while this one finds the next frames' bodies
    /// and faces: a frame's hands and face need its body, but the next frame's body needs only the body
    /// before it, and each track (body, left hand, right hand, face) still sees its frames in order, so the
    /// observations are `process`'s bit for bit (the models' values do not depend on their threads). This
    /// side runs on half the share while frames are with the second thread (from a clip's second frame on,
    /// whether or not that thread is working at the moment), on all of it otherwise; the second
    /// thread on the other half, taken as each frame's work is handed over (a share that falls meanwhile,
    /// which an extract worker's does not, holds from the next frame). At most `depth` frames are held between calls.
    /// Call `finish` after the clip's last frame. Errors are thrown in `process`'s order: a frame's hands'
    /// before its face's, and those before a later frame's body's.
    public func frames(_ frame: VideoFrame, emit: (VideoFrame, HolisticObservation) throws -> Void) throws {
        let share = min(threads, ThreadShare.forThisThread)
        guard share >= 2 else {
            try finish(emit: emit)
            try emit(frame, try process(frame))
            return
        }
        let (stage, theirs) = StageThread.split(&self.stage, share: share)
        func mine() -> Int { stage.inFlight > 0 ? share - theirs : share }
        let person = Result { try ThreadShare.capped(mine()) { try findBody(frame) } }
        guard case .success(let found) = person else {
            try finish(emit: emit)
            _ = try person.get()
            return
        }
        var face: Result<FaceObservation?, Error> = .success(nil)
        if let found {
            face = Result { try ThreadShare.capped(mine()) { try findFace(frame, found) } }
        } else {
            self.face.reset()
        }
        pending.append((frame, found, face))
        let hands = self.hands
        stage.start {
            // No person: the hand tracks start afresh, after the frames before have used them.
            guard let found else {
                hands.reset()
                return Hands(left: nil, right: nil, time: .zero, arms: 0)
            }
            return try ThreadShare.capped(theirs) { try Self.hands(hands, frame, found) }
        }
        // The frames whose hands are back, in order; the caller's work on them (a fallback hand tracker,
        // writing) runs beside the second thread's.
        while let oldest = pending.first {
            guard let result = pending.count > Self.depth ? stage.wait() : stage.poll() else { break }
            pending.removeFirst()
            let observation = try observation(oldest, result)
            try ThreadShare.capped(mine()) { try emit(oldest.frame, observation) }
        }
    }

    /// Emits the frames the second thread holds, if any (see `frames`): after a clip's last frame.
    public func finish(emit: (VideoFrame, HolisticObservation) throws -> Void) throws {
        guard let stage else { return }
        while !pending.isEmpty {
            let oldest = pending.removeFirst()
            try emit(oldest.frame, try observation(oldest, stage.wait()))
        }
    }

    /// A held frame's observation once its hands are back (their error first, then its face's); their time
    /// and arms counted.
    private func observation(_ p: Held, _ result: Result<Hands, Error>) throws -> HolisticObservation {
        let found = try result.get()
        (handTime, arms) = (handTime + found.time, arms + found.arms)
        return HolisticObservation(body: p.person, leftHand: found.left, rightHand: found.right, face: try p.face.get())
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
