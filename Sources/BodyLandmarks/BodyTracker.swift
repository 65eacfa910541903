import Foundation
import Inference
import Keypoints
import Landmarking
import VideoIO

/// Settings of the body pipeline (MediaPipe Tasks' PoseLandmarker options, its defaults).
public struct BodyTrackerOptions: Hashable, Sendable, Codable {
    /// num_poses: the most people reported per frame.
    public var maxBodies = 1
    /// min_pose_detection_confidence.
    public var minDetectionConfidence: Float = 0.5
    /// min_pose_presence_confidence: a region whose pose presence score is not above it holds no body.
    public var minPresenceConfidence: Float = 0.5
    /// `video`: people tracked from frame to frame and smoothed as Tasks' VIDEO mode smooths them;
    /// `image`: every frame detected afresh, unsmoothed (Tasks' IMAGE mode).
    public var mode: RunningMode = .video

    public init() {}
}

/// MediaPipe Tasks' PoseLandmarker, frame by frame. In video mode the next frame's region comes from
/// this frame's auxiliary landmarks and detection runs only while fewer than `maxBodies` people are
/// tracked; with one person at most, landmarks, world landmarks and visibility are smoothed with Tasks'
/// filters. In image mode every frame is detected afresh and nothing is smoothed.
public final class BodyTracker {
    /// What keypoint files record as `settings.body`.
    public static let name = "pose-full"
    public var options: BodyTrackerOptions {
        didSet { detector.minScore = options.minDetectionConfidence; reset() }
    }
    public let models: BodyModels
    let detector: BodyDetector
    let landmarker: BodyLandmarker
    private var tracked: [(region: RegionOfInterest, track: Int)] = []
    private var nextTrack = 0

    public init(models: BodyModels, options: BodyTrackerOptions, threads: Int = 1) throws {
        self.models = models
        self.options = options
        detector = try BodyDetector(model: models.detector, threads: threads, minScore: options.minDetectionConfidence, sharing: models.sharing)
        landmarker = try BodyLandmarker(model: models.landmark, threads: threads, sharing: models.sharing)
    }

    /// Forgets tracked people and their filters (call between clips).
    public func reset() {
        tracked = []
        smoothing = Filters()
        nextTrack = 0
    }

    /// Tasks' smoothing (pose_landmarker_graph.cc, VIDEO mode with num_poses 1 only;
    /// mediapipe/framework/api2/stream/smoothing.cc): visibility low-passed with alpha 0.1, then One-Euro
    /// filters on the landmarks (min_cutoff 0.05, beta 80, derivate_cutoff 1, the object's scale from the
    /// next frame's region) and the world landmarks (0.1, 40, 1, no value scaling). A frame without a
    /// person resets the landmark filter only: the visibility and world filters are not invoked on such
    /// frames in Tasks' graph, so they keep their state.
    struct Filters {
        var landmarks = LandmarkSmoother(minCutoff: 0.05, beta: 80)
        var world = LandmarkSmoother(minCutoff: 0.1, beta: 40, scaled: false)
        var visibility = VisibilitySmoother()
    }
    private var smoothing = Filters()

    /// Whether Tasks smooths: VIDEO mode with one person at most.
    var smooths: Bool { options.mode == .video && options.maxBodies == 1 }

    /// MediaPipe's AssociationNormRectCalculator (min_similarity_threshold = min_tracking_confidence, 0.5),
    /// run on the tracked regions then the detections' (`association_calculator.h`): each region in turn
    /// removes every region before it whose axis-aligned IoU with it exceeds 0.5, then joins. So two
    /// tracked regions that drifted onto one person become one, and a detection replaces the tracked
    /// region it overlaps. A region that removes others carries on the oldest track among them and its own.
    static func associate(_ regions: [(region: RegionOfInterest, track: Int?)]) -> [(region: RegionOfInterest, track: Int?)] {
        var kept: [(region: RegionOfInterest, track: Int?)] = []
        for var r in regions {
            kept.removeAll { k in
                guard k.region.bounds.iou(r.region.bounds) > 0.5 else { return false }
                if let t = k.track { r.track = min(r.track ?? t, t) }
                return true
            }
            kept.append(r)
        }
        return kept
    }

    /// People in `frame`.
    public func process(_ frame: VideoFrame) throws -> [BodyObservation] {
        let W = frame.width, H = frame.height
        let video = options.mode == .video
        // Tasks (pose_landmarker_graph.cc): the detector runs when the previous frame left fewer than
        // num_poses regions; then, every frame, AssociationNormRectCalculator and the clip to num_poses.
        let previous: [(region: RegionOfInterest, track: Int?)] = video ? tracked.map { ($0.region, $0.track) } : []
        let found = previous.count < options.maxBodies
            ? try detector.detect(frame).map { (region: BodyRegion.fromDetection($0, width: W, height: H), track: Int?.none) } : []
        let candidates = Array(Self.associate(previous + found).prefix(options.maxBodies))
        // The frame's time in whole milliseconds, as Tasks' detect_for_video takes it, in nanoseconds, as
        // its filters read it.
        let time = Int64((frame.time * 1000).rounded()) * 1_000_000
        var bodies: [BodyObservation] = []
        var next: [(region: RegionOfInterest, track: Int)] = []
        for (region, track) in candidates {
            let e = try landmarker.estimate(frame, region: region)
            // ThresholdingCalculator: a score strictly above the threshold holds a person.
            guard e.score > options.minPresenceConfidence else { continue }
            let id = track ?? { defer { nextTrack += 1 }; return nextTrack }()
            var body = BodyObservation(landmarks: e.landmarks, visibility: e.visibility, presence: e.presence, world: e.world,
                                       score: e.score, region: region)
            body.track = id
            // The next region: from the auxiliary landmarks as estimated (Tasks does not smooth them).
            let nextRegion = BodyRegion.fromAuxiliary(e.auxiliary, width: W, height: H)
            if smooths {
                let size = SIMD3<Double>(Double(W), Double(H), Double(W))
                let scale = (Double(nextRegion.width) * Double(W) + Double(nextRegion.height) * Double(H)) / 2
                body.visibility = smoothing.visibility.apply(e.visibility)
                body.landmarks = smoothing.landmarks.apply(e.landmarks.map { SIMD3<Double>($0) * size }, time: time, objectScale: scale)
                    .map { Point3($0 / size) }
                body.world = smoothing.world.apply(e.world.map { SIMD3<Double>($0) }, time: time).map { Point3($0) }
            }
            bodies.append(body)
            next.append((nextRegion, id))
        }
        if smooths && bodies.isEmpty { smoothing.landmarks = LandmarkSmoother(minCutoff: 0.05, beta: 80) }
        tracked = video ? next : []
        return bodies
    }
}
