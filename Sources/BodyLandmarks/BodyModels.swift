import Foundation
import Inference
import Landmarking

/// MediaPipe's pose detection and pose landmark (full) models, loaded from a folder, with their SHA-256.
/// They come from the same pinned wheel as the hand models (`make setup`, `scripts/models.sha256`).
public final class BodyModels {
    public let detector: TFLiteModel
    public let landmark: TFLiteModel
    /// File name to SHA-256 (hex) of the files loaded: recorded in keypoint files beside the hand models'.
    public let hashes: [String: String]
    public let sharing: SharedConstants?

    /// The detector and landmark model files.
    public static let fileNames = ["pose_detection.tflite", "pose_landmark_full.tflite"]

    public init(directory: URL, sharing: SharedConstants? = nil, hashes: [String: String]? = nil) throws {
        let urls = try ModelFiles.urls(directory: directory, names: Self.fileNames)
        detector = try TFLiteModel(path: urls[0].path)
        landmark = try TFLiteModel(path: urls[1].path)
        self.sharing = sharing
        self.hashes = try hashes ?? ModelFiles.identity(directory: directory, names: Self.fileNames)
    }
}
