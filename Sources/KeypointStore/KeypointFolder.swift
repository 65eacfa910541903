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

    /// The failure record of the input at `relative` (see `FailureRecord`).
    public func failureURL(for relative: String) -> URL { root.appendingPathComponent(relative + ".failed.json") }
}
