import Foundation
import Inference
import Landmarking

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

    /// Loads both models. `hashes`: their identity as `identity(directory:complexity:)` computed it
    /// once for the run (a supervisor passes it to its workers); nil: computed here.
    public init(directory: URL, complexity: HandTrackerOptions.Complexity, sharing: SharedConstants? = nil,
                hashes: [String: String]? = nil) throws {
        self.complexity = complexity
        self.sharing = sharing
        let urls = try Self.files(directory: directory, complexity: complexity)
        palm = try TFLiteModel(path: urls[0].path)
        landmark = try TFLiteModel(path: urls[1].path)
        self.hashes = try hashes ?? Self.identity(directory: directory, complexity: complexity)
    }

    /// The models' identity, file name to SHA-256 (hex), read from the files without parsing or planning
    /// them: what keypoint files record and verdicts compare.
    public static func identity(directory: URL, complexity: HandTrackerOptions.Complexity) throws -> [String: String] {
        try ModelFiles.identity(directory: directory, names: fileNames(complexity))
    }

    /// The palm and landmark model files in `directory`; an error names the first one missing.
    static func files(directory: URL, complexity: HandTrackerOptions.Complexity) throws -> [URL] {
        try ModelFiles.urls(directory: directory, names: fileNames(complexity))
    }
}
