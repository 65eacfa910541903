import Foundation
import Keypoints

/// The files `extract` writes for each input, beside one another as `OUT/<relative path><suffix>`.
public enum OutputFormat: String, CaseIterable, Codable, Sendable {
    /// The keypoint file (`handpose/keypoints@1`, `@2` with bodies): always written, since it alone carries the settings
    /// and models that made the keypoints, and `export`, `status`, `compare`, `render` and resuming read it.
    case json
    /// pose-format's `.pose` (`PoseFileWriter`).
    case pose
    /// One row per hand per frame (`HandCSVWriter`).
    case csv
    /// NumPy arrays per clip (`NpzKeypointWriter`).
    case npz

    public var suffix: String {
        switch self {
        case .json: return ".hands.json"
        case .pose: return ".pose"
        case .csv: return ".csv"
        case .npz: return ".npz"
        }
    }

    /// The format of an output file, by its name's suffix.
    public static func of(_ url: URL) -> OutputFormat? {
        allCases.first { url.lastPathComponent.hasSuffix($0.suffix) }
    }

    /// Where the output of `relative` (an input's path relative to its folder) goes under `root`.
    public func url(for relative: String, in root: URL) -> URL {
        root.appendingPathComponent(relative + suffix)
    }

    /// Formats from a comma-separated list (`json,pose,csv`); json is always among them, first.
    public static func parse(_ text: String) throws -> [OutputFormat] {
        var out: [OutputFormat] = [.json]
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let name = part.trimmingCharacters(in: .whitespaces).lowercased()
            guard let f = OutputFormat(rawValue: name) else {
                throw KeypointError.invalid(path: "--format", reason: "'\(name.prefix(40))' is not a format (json, pose, csv, npz)")
            }
            if !out.contains(f) { out.append(f) }
        }
        return out
    }
}

/// Every output of one input, written together: frames go to each as they complete; at the end each
/// is completed, then the others are renamed into place and the keypoint file last, so a keypoint file
/// that is in place means its companions are too. Any error removes every temporary file.
public final class KeypointOutputs {
    public let outputs: [KeypointOutput]
    /// Files of the formats not asked for this time: removed when the new outputs are in place, so no
    /// companion from an earlier run (other settings, other models) stays beside the new keypoint file.
    let stale: [URL]

    /// Outputs made elsewhere (nothing else is removed).
    public init(outputs: [KeypointOutput]) {
        self.outputs = outputs
        stale = []
    }

    /// `completed`: the hands come from `extract --complete` (the CSV gains its `origin` column).
    /// `bodies`: the most bodies a frame holds (`extract --body`'s `--max-bodies`), which every format
    /// gains; 0 without bodies.
    /// `holistic`: MediaPipe Holistic's person (`extract --holistic`): the .pose file takes video_to_pose's layout;
    /// `facePoints`: its faces' points (468, or 478 with `--refine-face`).
    public init(formats: [OutputFormat], relative: String, root: URL, completed: Bool = false, bodies: Int = 0, holistic: Bool = false,
                facePoints: Int = KeypointFile.Face.meshPoints) throws {
        stale = OutputFormat.allCases.filter { !formats.contains($0) }.map { $0.url(for: relative, in: root) }
        var made: [KeypointOutput] = []
        do {
            for f in formats {
                let url = f.url(for: relative, in: root)
                switch f {
                case .json: made.append(try KeypointFileWriter(url: url))
                case .pose: made.append(holistic ? try HolisticPoseFileWriter(url: url, facePoints: facePoints) : try PoseFileWriter(url: url, bodies: bodies))
                case .csv: made.append(try HandCSVWriter(url: url, origins: completed, bodies: bodies > 0 || holistic,
                                                          faces: holistic ? facePoints : nil))
                case .npz: made.append(try NpzKeypointWriter(url: url, bodies: bodies > 0 || holistic, faces: holistic ? facePoints : nil))
                }
            }
        } catch {
            for o in made { o.abandon() }
            throw error
        }
        outputs = made
    }

    public func append(_ frame: KeypointFile.Frame) throws {
        do { for o in outputs { try o.append(frame) } } catch { abandon(); throw error }
    }

    /// Completes every output, recording the companions' sizes in the keypoint file (`KeypointFile.outputs`),
    /// then moves them into place.
    public func finish(_ file: KeypointFile) throws {
        do {
            var file = file
            var sizes: [String: KeypointFile.Output] = [:]
            for o in outputs where !(o is KeypointFileWriter) {
                try o.complete(file)
                guard let format = OutputFormat.of(o.url) else { continue }
                guard let bytes = (try? FileManager.default.attributesOfItem(atPath: o.temporary.path))?[.size] as? NSNumber else {
                    throw KeypointError.unwritable(path: o.url.path, reason: "its temporary file \(o.temporary.lastPathComponent) is gone")
                }
                sizes[format.rawValue] = KeypointFile.Output(bytes: bytes.uint64Value)
            }
            if !sizes.isEmpty { file.outputs = sizes }
            for o in outputs where o is KeypointFileWriter { try o.complete(file) }
            for o in outputs where !(o is KeypointFileWriter) { try o.commit() }
            for o in outputs where o is KeypointFileWriter { try o.commit() }
            for url in stale { try? FileManager.default.removeItem(at: url) }
        } catch {
            abandon()
            throw error
        }
    }

    public func abandon() { for o in outputs { o.abandon() } }
}
