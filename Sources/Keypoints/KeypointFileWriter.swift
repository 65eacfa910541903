import Foundation

/// Writes a keypoint file frame by frame, so memory does not grow with the clip's length: an hour of
/// 30 fps footage is 108,000 frames. The bytes are exactly `JSONEncoder` with sorted keys of the whole
/// file: "frames" sorts first among the top-level keys, so frames stream out first and the rest (whose
/// frame count is known only at the end) follows. Bytes go to `KeypointFile.temporaryURL(for:)` and are
/// renamed into place by `finish`; a writer dropped unfinished removes its temporary file.
public final class KeypointFileWriter {
    public let url: URL
    private let temporary: URL
    private let handle: FileHandle
    private let encoder = JSONEncoder()
    private var buffer = Data()
    private var count = 0
    private var closed = false

    public init(url: URL) throws {
        self.url = url
        temporary = KeypointFile.temporaryURL(for: url)
        encoder.outputFormatting = [.sortedKeys]
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
                throw KeypointError.unwritable(path: url.path, reason: "cannot create \(temporary.lastPathComponent) beside it")
            }
            handle = try FileHandle(forWritingTo: temporary)
        } catch let e as KeypointError {
            throw e
        } catch {
            throw KeypointError.unwritable(path: url.path, reason: describe(error))
        }
        buffer.append(contentsOf: Array(#"{"frames":["#.utf8))
    }

    deinit { if !closed { abandon() } }

    /// Frames written so far.
    public var frames: Int { count }

    public func append(_ frame: KeypointFile.Frame) throws {
        if count > 0 { buffer.append(0x2C) }
        buffer.append(try encoder.encode(frame))
        count += 1
        if buffer.count >= 1 << 16 { try flush() }
    }

    /// Writes everything of `file` but its frames (those were appended; `video.frames` is set to their
    /// count) and moves the file into place.
    public func finish(_ file: KeypointFile) throws {
        try complete(file)
        try commit()
    }

    /// Writes everything of `file` but its frames and closes the temporary file, without moving it into
    /// place: `commit` does that, so several outputs of one input can be completed before any is renamed.
    public func complete(_ file: KeypointFile) throws {
        var rest = file
        rest.frames = []
        rest.video.frames = count
        let encoded = try encoder.encode(rest)
        let prefix = Array(#"{"frames":[]"#.utf8)
        guard encoded.starts(with: prefix) else { throw KeypointError.unwritable(path: url.path, reason: "unexpected key order") }
        buffer.append(0x5D)   // ]
        buffer.append(encoded.dropFirst(prefix.count))
        do {
            try flush()
            try handle.synchronize()
            try handle.close()
            closed = true
        } catch {
            abandon()
            if let e = error as? KeypointError { throw e }
            throw KeypointError.unwritable(path: url.path, reason: describe(error))
        }
    }

    /// Moves the completed file into place.
    public func commit() throws {
        guard rename(temporary.path, url.path) == 0 else {
            let reason = String(cString: strerror(errno))
            abandon()
            throw KeypointError.unwritable(path: url.path, reason: reason)
        }
    }

    /// Stops writing and removes the temporary file.
    public func abandon() {
        if !closed { try? handle.close() }
        closed = true
        try? FileManager.default.removeItem(at: temporary)
    }

    private func flush() throws {
        do { try handle.write(contentsOf: buffer) } catch {
            throw KeypointError.unwritable(path: url.path, reason: describe(error))
        }
        buffer.removeAll(keepingCapacity: true)
    }
}
