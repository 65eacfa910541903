import Foundation
import Inference
import Landmarking

/// MediaPipe's short-range face detector and face mesh (468 points, or 478 with `refined`: the mesh with
/// attention, whose lips, eyes and irises are refined), loaded from a folder, with their SHA-256. They come
/// from the same pinned wheel as the hand and pose models (`make setup`, `scripts/models.sha256`).
public final class FaceModels: DetectorAndLandmarkModels {
    public static func fileNames(refined: Bool = false) -> [String] {
        ["face_detection_short_range.tflite", refined ? "face_landmark_with_attention.tflite" : "face_landmark.tflite"]
    }

    /// The mesh is the one with attention (478 points).
    public let refined: Bool

    public init(directory: URL, refined: Bool = false, sharing: SharedConstants? = nil, hashes: [String: String]? = nil) throws {
        self.refined = refined
        try super.init(directory: directory, names: Self.fileNames(refined: refined), sharing: sharing, hashes: hashes)
    }
}
