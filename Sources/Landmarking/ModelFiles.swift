import Crypto
import FileSystem
import Foundation
import Inference

/// A landmarker's model files in a folder, and their identity (file name to SHA-256), which keypoint
/// files record and verdicts compare. Hands, bodies and faces each name their own files.
public enum ModelFiles {
    /// The files `names` in `directory`; an error names the first one missing.
    public static func urls(directory: URL, names: [String]) throws -> [URL] {
        let urls = names.map { directory.appendingPathComponent($0) }
        for url in urls where !FileManager.default.fileExists(atPath: url.path) {
            throw InferenceError.cannotOpen(path: url.path, reason: "no such file; run `make setup` to place the models")
        }
        return urls
    }

    /// The identity of the files `names` taken from `hashes` (one computed for more models, a supervisor's
    /// for its workers), or nil when it lacks one of them (then computed again with `identity`).
    public static func known(_ hashes: [String: String]?, names: [String]) -> [String: String]? {
        guard let hashes else { return nil }
        var picked: [String: String] = [:]
        for name in names {
            guard let hash = hashes[name] else { return nil }
            picked[name] = hash
        }
        return picked
    }

    /// File name to SHA-256 (hex) of the files `names` in `directory`, each also parsed (not planned) to check
    /// that it is the model its name says (`checkRole`).
    public static func identity(directory: URL, names: [String]) throws -> [String: String] {
        var hashes: [String: String] = [:]
        for url in try urls(directory: directory, names: names) {
            // Only a regular file is read: a FIFO in the models folder would block the read forever.
            let data: Data
            do {
                let handle = FileHandle(fileDescriptor: try RegularFile.open(url.path), closeOnDealloc: true)
                data = try handle.readToEnd() ?? Data()
            } catch let refusal as RegularFile.Refusal {
                throw InferenceError.cannotOpen(path: url.path, reason: refusal.reason)
            } catch {
                throw InferenceError.cannotOpen(path: url.path, reason: "\(error.localizedDescription)")
            }
            hashes[url.lastPathComponent] = SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
            try checkRole(url)
        }
        return hashes
    }

    /// What each model handpose runs takes (its input's shape) and gives (the values of each output), as the
    /// pinned MediaPipe release's files do. A file of another model under a known name fails here, naming it,
    /// before any input is read: otherwise every input failed with "input has N values" and the model unnamed.
    static let roles: [String: (input: [Int], outputs: [Int])] = [
        "palm_detection_full.tflite": ([1, 192, 192, 3], [36288, 2016]),
        "palm_detection_lite.tflite": ([1, 192, 192, 3], [36288, 2016]),
        "hand_landmark_full.tflite": ([1, 224, 224, 3], [63, 1, 1, 63]),
        "hand_landmark_lite.tflite": ([1, 224, 224, 3], [63, 1, 1, 63]),
        "hand_recrop.tflite": ([1, 256, 256, 3], [4]),
        "pose_detection.tflite": ([1, 224, 224, 3], [27048, 2254]),
        "pose_landmark_full.tflite": ([1, 256, 256, 3], [195, 1, 65536, 159744, 117]),
        "face_detection_short_range.tflite": ([1, 128, 128, 3], [14336, 896]),
        "face_landmark.tflite": ([1, 192, 192, 3], [1404, 1]),
        "face_landmark_with_attention.tflite": ([1, 192, 192, 3], [1404, 160, 142, 142, 10, 10, 1]),
    ]

    static func checkRole(_ url: URL) throws {
        let name = url.lastPathComponent
        guard let role = roles[name] else { return }
        let model = try TFLiteModel(path: url.path)
        let input = model.inputs.first.map { model.tensors[$0].shape } ?? []
        let outputs = model.outputs.map { model.tensors[$0].count }
        guard model.inputs.count == 1, input == role.input, outputs == role.outputs else {
            throw InferenceError.malformed(path: url.path, reason: "is not the model \(name) names: it takes \(input) and gives \(outputs) values, "
                                           + "where \(name) takes \(role.input) and gives \(role.outputs) (another model's file under this name?)")
        }
    }
}

/// A landmarker's detector and landmark model, loaded from one folder, with the SHA-256 of each: what
/// `BodyModels` and `FaceModels` are, each naming its two files.
open class DetectorAndLandmarkModels {
    public let detector: TFLiteModel
    public let landmark: TFLiteModel
    /// File name to SHA-256 (hex) of the files loaded: recorded in keypoint files.
    public let hashes: [String: String]
    public let sharing: SharedConstants?

    /// `names`: the detector's file, then the landmark model's; `hashes`: their identity when already known.
    public init(directory: URL, names: [String], sharing: SharedConstants?, hashes: [String: String]?) throws {
        let urls = try ModelFiles.urls(directory: directory, names: names)
        detector = try TFLiteModel(path: urls[0].path)
        landmark = try TFLiteModel(path: urls[1].path)
        self.sharing = sharing
        self.hashes = try hashes ?? ModelFiles.identity(directory: directory, names: names)
    }
}
