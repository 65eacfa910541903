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

    /// File name to SHA-256 (hex) of the files `names` in `directory`, read without parsing or planning them.
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
        }
        return hashes
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
