import Foundation
import Inference
import Landmarking

/// MediaPipe's pose detection and pose landmark (full) models, loaded from a folder, with their SHA-256.
/// They come from the same pinned wheel as the hand models (`make setup`, `scripts/models.sha256`).
public final class BodyModels: DetectorAndLandmarkModels {
    /// The detector and landmark model files.
    public static let fileNames = ["pose_detection.tflite", "pose_landmark_full.tflite"]

    public init(directory: URL, sharing: SharedConstants? = nil, hashes: [String: String]? = nil) throws {
        try super.init(directory: directory, names: Self.fileNames, sharing: sharing, hashes: hashes)
    }
}
