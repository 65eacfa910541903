import Crypto
import Foundation
import Inference

/// The palm and landmark models of one complexity, loaded from a folder, with their SHA-256.
public final class HandModels {
    public let palm: TFLiteModel
    public let landmark: TFLiteModel
    /// File name to SHA-256 (hex) of the files loaded.
    public let hashes: [String: String]
    public let complexity: HandTrackerOptions.Complexity
    /// Where plans of these models share their packed weights with other processes (nil: each plan
    /// keeps its own copy).
    public let sharing: SharedConstants?

    /// The palm and landmark model files of `complexity`.
    public static func fileNames(_ complexity: HandTrackerOptions.Complexity) -> [String] {
        ["palm_detection_\(complexity.rawValue).tflite", "hand_landmark_\(complexity.rawValue).tflite"]
    }

    public init(directory: URL, complexity: HandTrackerOptions.Complexity, sharing: SharedConstants? = nil) throws {
        self.complexity = complexity
        self.sharing = sharing
        let (palmName, landmarkName) = (Self.fileNames(complexity)[0], Self.fileNames(complexity)[1])
        let palmURL = directory.appendingPathComponent(palmName), landmarkURL = directory.appendingPathComponent(landmarkName)
        for url in [palmURL, landmarkURL] where !FileManager.default.fileExists(atPath: url.path) {
            throw InferenceError.cannotOpen(path: url.path, reason: "no such file; run `make setup` to place the models")
        }
        palm = try TFLiteModel(path: palmURL.path)
        landmark = try TFLiteModel(path: landmarkURL.path)
        var hashes: [String: String] = [:]
        for url in [palmURL, landmarkURL] {
            let data = try Data(contentsOf: url, options: .alwaysMapped)
            hashes[url.lastPathComponent] = SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
        }
        self.hashes = hashes
    }
}
