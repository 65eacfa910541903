import Foundation

/// Writes a keypoint file frame by frame, so memory does not grow with the clip's length: an hour of
/// 30 fps footage is 108,000 frames. The bytes are exactly `JSONEncoder` with sorted keys of the whole
/// file: "frames" sorts first among the top-level keys, so frames stream out first and the rest (whose
/// frame count is known only at the end) follows. Bytes go to `KeypointFile.temporaryURL(for:)` and are
/// renamed into place by `finish` (a `StagedFile`); a writer dropped unfinished removes its temporary file.
/// Frames are written by `FrameJSON` (the same bytes, without `JSONEncoder`'s cost a frame).
public final class KeypointFileWriter {
    public var url: URL { file.url }
    /// Where it is written until `commit` moves it to `url`.
    public var temporary: URL { file.temporary }
    private let file: StagedFile
    private let encoder = JSONEncoder()
    private var count = 0

    public init(url: URL) throws {
        file = try StagedFile(url: url)
        encoder.outputFormatting = [.sortedKeys]
        try file.write(Data(#"{"frames":["#.utf8))
    }

    /// Frames written so far.
    public var frames: Int { count }

    public func append(_ frame: KeypointFile.Frame) throws {
        if count > 0 { try file.write(Data([0x2C])) }
        try file.write(Data(try FrameJSON.encode(frame)))
        count += 1
    }

    /// Writes everything of `file` but its frames (those were appended; `video.frames` is set to their
    /// count) and moves the file into place.
    public func finish(_ file: KeypointFile) throws {
        try complete(file)
        try commit()
    }

    /// Writes everything of `header` but its frames and closes the temporary file, without moving it
    /// into place: `commit` does that, so several outputs of one input can be completed before any is renamed.
    public func complete(_ header: KeypointFile) throws {
        var rest = header
        rest.frames = []
        rest.video.frames = count
        let encoded = try encoder.encode(rest)
        let prefix = Array(#"{"frames":[]"#.utf8)
        guard encoded.starts(with: prefix) else {
            file.abandon()
            throw KeypointError.unwritable(path: url.path, reason: "unexpected key order")
        }
        try file.write(Data([0x5D]))   // ]
        try file.write(encoded.dropFirst(prefix.count))
        try file.close()
    }

    /// Moves the completed file into place.
    public func commit() throws { try file.commit() }

    /// Stops writing and removes the temporary file.
    public func abandon() { file.abandon() }
}
