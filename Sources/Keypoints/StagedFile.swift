import FileSystem
import Foundation

/// A file written under `KeypointFile.temporaryURL(for:)` and renamed into place by `commit`: every
/// output of handpose is either whole under its name or absent. Written through a buffer with `write`,
/// or, made with `open: false`, by a caller that writes `temporary` itself (a zip library, say). A file
/// dropped before `commit` removes its temporary.
public final class StagedFile {
    public let url: URL
    public let temporary: URL
    private let handle: FileHandle?
    private var buffer = Data()
    private var closed = false
    private var committed = false

    public init(url: URL, open: Bool = true) throws {
        self.url = url
        temporary = KeypointFile.temporaryURL(for: url)
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            if open {
                let fd = Foundation.open(temporary.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
                guard fd >= 0 else {
                    throw KeypointError.unwritable(path: url.path, reason: "cannot create \(temporary.lastPathComponent) beside it: \(String(cString: strerror(errno)))")
                }
                handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
            } else {
                handle = nil
            }
        } catch let e as KeypointError {
            throw e
        } catch {
            throw KeypointError.unwritable(path: url.path, reason: describe(error))
        }
    }

    deinit { if !committed { abandon() } }

    public func write(_ data: Data) throws {
        buffer.append(data)
        if buffer.count >= 1 << 16 { try flush() }
    }

    public func write(_ text: String) throws { try write(Data(text.utf8)) }

    /// Flushes, syncs and closes the temporary file.
    public func close() throws {
        guard let handle, !closed else { return }
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

    /// Moves the closed temporary file into place.
    public func commit() throws {
        do { try AtomicFile.commit(temporary, to: url) } catch let e as AtomicFile.WriteError {
            abandon()
            throw KeypointError.unwritable(path: url.path, reason: e.reason)
        }
        committed = true
    }

    /// Stops writing and removes the temporary file.
    public func abandon() {
        if !closed { try? handle?.close() }
        closed = true
        try? FileManager.default.removeItem(at: temporary)
    }

    private func flush() throws {
        guard let handle else { return }
        do { try handle.write(contentsOf: buffer) } catch {
            throw KeypointError.unwritable(path: url.path, reason: describe(error))
        }
        buffer.removeAll(keepingCapacity: true)
    }
}

