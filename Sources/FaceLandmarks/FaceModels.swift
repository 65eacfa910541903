import Foundation
import Inference
import Landmarking

/// MediaPipe's short-range face detector and face mesh (468 points), loaded from a folder, with their
/// SHA-256. They come from the same pinned wheel as the hand and pose models (`make setup`,
/// `scripts/models.sha256`).
public final class FaceModels: DetectorAndLandmarkModels {
    public static let fileNames = ["face_detection_short_range.tflite", "face_landmark.tflite"]

    public init(directory: URL, sharing: SharedConstants? = nil, hashes: [String: String]? = nil) throws {
        try super.init(directory: directory, names: Self.fileNames, sharing: sharing, hashes: hashes)
    }
}
