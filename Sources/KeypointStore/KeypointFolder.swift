import FileSystem
import Foundation
import KeypointFormats
import Keypoints

/// A folder of keypoint files as `extract` writes it: for each input, named by its path relative to
/// the input folder given, `<path>.hands.json` (the keypoint file), the other formats asked for beside
/// it, and `<path>.failed.json` when its extraction failed. The one place that names these files and
/// decides whether an input's keypoints may be used (`verdict`).
public struct KeypointFolder: Sendable {
    public let root: URL

    public init(_ root: URL) { self.root = root.standardizedFileURL }

    /// The keypoint file of the input at `relative`.
    public func keypointURL(for relative: String) -> URL { OutputFormat.json.url(for: relative, in: root) }

    /// The file of `format` for the input at `relative`.
    public func url(for relative: String, format: OutputFormat) -> URL { format.url(for: relative, in: root) }

    /// The failure record of the input at `relative` (see `FailureRecord`): a name too long for the addition keeps
    /// its start and a digest of the whole (`AtomicFile.fitted`), so an input whose output name is too long has its
    /// record, which says so.
    public func failureURL(for relative: String) -> URL {
        let url = root.appendingPathComponent(relative)
        return url.deletingLastPathComponent().appendingPathComponent(AtomicFile.fitted("", url.lastPathComponent, ".failed.json"))
    }

    /// Moves the keypoint file of the input at `relative` aside before it is made again, so that a file
    /// which stopped reading (a hand edit gone wrong, a cut copy) is never lost to the new one: it becomes
    /// `<name>.unreadable` (`.unreadable-2`, ... when that is taken) beside it. Returns where it went; nil
    /// when there was no file or it could not be moved (the caller then must not replace it).
    public func setAside(_ relative: String) -> URL? {
        let url = keypointURL(for: relative)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        for n in 1...1000 {
            let aside = URL(fileURLWithPath: url.path + (n == 1 ? ".unreadable" : ".unreadable-\(n)"))
            if FileManager.default.fileExists(atPath: aside.path) { continue }
            // link then unlink: never replaces a file that appeared under the new name meanwhile. File systems
            // without hard links (some network and FUSE mounts) get a rename to the name just found free.
            if link(url.path, aside.path) == 0 { unlink(url.path); return aside }
            if errno == EEXIST { continue }
            return rename(url.path, aside.path) == 0 ? aside : nil
        }
        return nil
    }
}
