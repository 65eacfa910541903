import Foundation
import Inference
import Landmarking
import VideoIO

/// One face in one frame: MediaPipe's face mesh, 468 points (478 with attention, `--refine-face`).
public struct FaceObservation: Sendable {
    /// x and y normalised to the frame, z in the units of x (MediaPipe's relative depth).
    public var landmarks: [Point3]
    /// The sigmoid of the mesh model's face flag (above 0.5 for every face reported).
    public var presence: Float
    /// The rotated square the mesh model looked at.
    public var region: RegionOfInterest
}

/// MediaPipe Holistic's face, found from the body's pose rather than a detector over the whole frame
/// (holistic_landmark/face_landmarks_from_pose_cpu.pbtxt): a region around the pose's face landmarks,
/// the short-range face detector inside it, a region from the strongest face's eyes, kept from the last
/// frame's mesh while it still fits (`RegionTracking.face`), then the face mesh. Nothing is smoothed.
/// A frame where the detector finds no face has none, as in Holistic.
public final class FaceFromPose {
    let detector: FaceDetector
    let landmarker: FaceLandmarker
    /// Last frame's mesh: Holistic remembers one frame only.
    private var previous: [Point3]?
    public var minPresence: Float = 0.5

    public init(models: FaceModels, threads: Int = 1) throws {
        detector = try FaceDetector(model: models.detector, threads: threads, sharing: models.sharing)
        landmarker = try FaceLandmarker(model: models.landmark, threads: threads, sharing: models.sharing)
        // The file named for the mesh with attention must be it (and the plain mesh's must not), or the
        // settings recorded would not say what made the faces.
        guard landmarker.refines == models.refined else {
            throw InferenceError.malformed(path: models.landmark.path, reason: models.refined
                ? "it is the plain face mesh (2 outputs), not the mesh with attention (7)" : "it is the face mesh with attention, not the plain one")
        }
    }

    /// Points of each face: 478 with the mesh with attention, else 468.
    public var pointCount: Int { landmarker.pointCount }

    /// Forgets the last frame's face (a frame without a body, or a new clip).
    public func reset() { previous = nil }

    /// The face in `frame`, given the pose's first 11 landmarks (nose, eyes, ears, mouth; normalised).
    public func process(_ frame: VideoFrame, poseFace: [SIMD2<Float>]) throws -> FaceObservation? {
        let W = frame.width, H = frame.height
        // face_landmarks_from_pose_to_recrop_roi: the pose's face points' box, turned right eye (5) ->
        // left eye (2) to 0 degrees, 3 times as large.
        let fromPose = RegionOfInterest.bounding(poseFace, from: 5, to: 2, target: 0, width: W, height: H)
            .transformed(imageWidth: W, imageHeight: H, scale: 3, shiftY: 0)
        guard let face = try detector.detect(frame, region: fromPose).first else { previous = nil; return nil }
        // face_detection_front_detections_to_roi: the box of the six keypoints, turned right eye (0) ->
        // left eye (1) to 0 degrees, twice as large, moved up a tenth.
        let recrop = RegionOfInterest.bounding(face.keypoints, from: 0, to: 1, target: 0, width: W, height: H)
            .transformed(imageWidth: W, imageHeight: H, scale: 2, shiftY: -0.1)
        // face_landmarks_to_roi: the last mesh's box, turned eye corner 33 -> 263 to 0 degrees, 1.5 times.
        let tracked = previous.map {
            RegionOfInterest.bounding($0.map { SIMD2($0.x, $0.y) }, from: 33, to: 263, target: 0, width: W, height: H)
                .transformed(imageWidth: W, imageHeight: H, scale: 1.5, shiftY: 0)
        }
        let region = RegionTracking.face.choose(recrop: recrop, previous: tracked, previousLandmarks: previous ?? [], width: W, height: H)
        let (presence, landmarks) = try landmarker.estimate(frame, region: region)
        guard presence > minPresence else { previous = nil; return nil }
        previous = landmarks
        return FaceObservation(landmarks: landmarks, presence: presence, region: region)
    }
}
