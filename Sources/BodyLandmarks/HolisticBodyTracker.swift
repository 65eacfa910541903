import Foundation
import Inference
import Keypoints
import Landmarking
import VideoIO

/// The body as MediaPipe Holistic (legacy `mp.solutions.holistic`, mediapipe 0.10.14) tracks it:
/// pose_landmark_cpu.pbtxt, one person, with its smoothing (pose_landmark_filtering.pbtxt). It differs
/// from Tasks' PoseLandmarker (`BodyTracker`) in the heatmap refinement's window (9, `refineKernel`), in
/// the detector's suppression (IoU 0.3), in smoothing the
/// two auxiliary landmarks (One-Euro 0.01, 10) and cutting the next frame's region from the smoothed
/// ones, and in its clock: Holistic's Python API stamps frame n at n x 33333 microseconds whatever the
/// clip's rate, so its filters always run at 30 Hz.
///
/// Detection runs only when the frame before left no person. The landmark and auxiliary filters start
/// afresh after a frame without a person; the visibility and world filters are not run on such frames in
/// MediaPipe's graph and so keep their state (their next step spans the gap).
public final class HolisticBodyTracker {
    public static let name = "holistic-pose-full"
    /// The heatmap refinement's window as video_to_pose runs it: 9, not the graph's 7. MediaPipe's Python
    /// solutions rebuild the graph's config through Python protobufs, which keep only the options whose
    /// `_pb2` module was imported; pose-format's imports never load RefineLandmarksFromHeatmapCalculator's,
    /// so its `kernel_size: 7` is dropped and the calculator's default, 9, runs (measured: MediaPipe's graph
    /// with 9 equals `mp.solutions.holistic` under video_to_pose bit for bit; with 7 it is up to 0.26 away).
    /// A script that imports that module first gets 7; video_to_pose never does.
    public static let refineKernel = 9
    let detector: BodyDetector
    let landmarker: BodyLandmarker
    /// min_tracking_confidence: the landmark model's pose flag must exceed it.
    public var minTrackingConfidence: Float = 0.5
    private var previousRegion: RegionOfInterest?
    private var frames: Int64 = 0
    /// The person's track number: a new one each time detection finds them after a frame without.
    private var track = -1
    private var landmarkFilter = LandmarkSmoother(minCutoff: 0.05, beta: 80)
    private var auxiliaryFilter = LandmarkSmoother(minCutoff: 0.01, beta: 10)
    private var worldFilter = LandmarkSmoother(minCutoff: 0.1, beta: 40, scaled: false)
    private var visibilityFilter = VisibilitySmoother()

    /// The instruction set of the kernels running the models (`baseline`, `avx2`, `avx512`).
    public var kernels: String { landmarker.plan.isa.rawValue }

    public init(models: BodyModels, threads: Int = 1, minDetectionConfidence: Float = 0.5) throws {
        detector = try BodyDetector(model: models.detector, threads: threads, minScore: minDetectionConfidence, suppression: 0.3,
                                    sharing: models.sharing)
        landmarker = try BodyLandmarker(model: models.landmark, threads: threads, sharing: models.sharing, refineKernel: Self.refineKernel)
    }

    /// Forgets everything (a new clip): a new Holistic object.
    public func reset() {
        previousRegion = nil
        frames = 0
        track = -1
        landmarkFilter = LandmarkSmoother(minCutoff: 0.05, beta: 80)
        auxiliaryFilter = LandmarkSmoother(minCutoff: 0.01, beta: 10)
        worldFilter = LandmarkSmoother(minCutoff: 0.1, beta: 40, scaled: false)
        visibilityFilter = VisibilitySmoother()
    }

    /// The person in `frame`, or nil. Call once per frame, in order.
    public func process(_ frame: VideoFrame) throws -> BodyObservation? {
        frames += 1
        let time = frames * 33_333_000
        let W = frame.width, H = frame.height
        func lost() -> BodyObservation? {
            previousRegion = nil
            landmarkFilter = LandmarkSmoother(minCutoff: 0.05, beta: 80)
            auxiliaryFilter = LandmarkSmoother(minCutoff: 0.01, beta: 10)
            return nil
        }
        // Only the strongest detection is used.
        let tracking = previousRegion != nil
        guard let region = try previousRegion ?? detector.detect(frame).first.map({ BodyRegion.fromDetection($0, width: W, height: H) }) else {
            return lost()
        }
        let e = try landmarker.estimate(frame, region: region)
        guard e.score > minTrackingConfidence else { return lost() }
        // The object's size for the landmark and auxiliary filters: the region of the unsmoothed auxiliary
        // landmarks before scaling, (width + height) / 2 in pixels, that is twice their distance.
        let a0 = SIMD2(e.auxiliary[0].x * Float(W), e.auxiliary[0].y * Float(H))
        let a1 = SIMD2(e.auxiliary[1].x * Float(W), e.auxiliary[1].y * Float(H))
        let side = Double(((a1.x - a0.x) * (a1.x - a0.x) + (a1.y - a0.y) * (a1.y - a0.y)).squareRoot() * 2)
        let scale = (Double(side) + Double(side)) / 2
        let size = SIMD3<Double>(Double(W), Double(H), Double(W))
        var body = BodyObservation(landmarks: e.landmarks, visibility: e.visibility, presence: e.presence, world: e.world,
                                   score: e.score, region: region)
        if !tracking { track += 1 }
        body.track = track
        body.visibility = visibilityFilter.apply(e.visibility)
        body.landmarks = landmarkFilter.apply(e.landmarks.map { SIMD3<Double>($0) * size }, time: time, objectScale: scale)
            .map { Point3($0 / size) }
        let auxiliary = auxiliaryFilter.apply(e.auxiliary.map { SIMD3<Double>($0) * size }, time: time, objectScale: scale)
            .map { Point3($0 / size) }
        body.world = worldFilter.apply(e.world.map { SIMD3<Double>($0) }, time: time).map { Point3($0) }
        previousRegion = BodyRegion.fromAuxiliary(auxiliary, width: W, height: H)
        return body
    }
}
