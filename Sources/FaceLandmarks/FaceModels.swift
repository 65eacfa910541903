import Foundation
import Inference
import Landmarking

/// MediaPipe's short-range face detector and face mesh (468 points), loaded from a folder, with their
/// SHA-256. They come from the same pinned wheel as the hand and pose models (`make setup`,
/// `scripts/models.sha256`).
public final class FaceModels {
    public let detector: TFLiteModel
    public let landmark: TFLiteModel
    /// File name to SHA-256 (hex) of the files loaded: recorded in keypoint files beside the others'.
    public let hashes: [String: String]
    public let sharing: SharedConstants?

    public static let fileNames = ["face_detection_short_range.tflite", "face_landmark.tflite"]

    public init(directory: URL, sharing: SharedConstants? = nil, hashes: [String: String]? = nil) throws {
        let urls = try ModelFiles.urls(directory: directory, names: Self.fileNames)
        detector = try TFLiteModel(path: urls[0].path)
        landmark = try TFLiteModel(path: urls[1].path)
        self.sharing = sharing
        self.hashes = try hashes ?? ModelFiles.identity(directory: directory, names: Self.fileNames)
    }
}
