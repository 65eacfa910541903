import Foundation
import Keypoints

/// Scratch space for values that must be written after others in the final file (a `.pose` body keeps
/// all coordinates before all confidences; an `.npz` member per array): a file opened beside the
/// output and unlinked at once, so nothing is left behind whatever happens to the process.
final class ScratchFile {
    private let fd: Int32
    private var buffer = Data()
    private let owner: URL
    private(set) var size = 0

    init(beside url: URL) throws {
        owner = url
        var template = Array(url.deletingLastPathComponent().appendingPathComponent(".handpose-scratch-XXXXXX").path.utf8CString)
        fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw KeypointError.unwritable(path: url.path, reason: "no scratch file: \(String(cString: strerror(errno)))") }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
    }

    deinit { Foundation.close(fd) }

    func append<T>(_ values: [T]) {
        values.withUnsafeBufferPointer { buffer.append(contentsOf: UnsafeRawBufferPointer($0)) }
        size += values.count * MemoryLayout<T>.stride
    }

    func append<T>(_ value: T) {
        withUnsafeBytes(of: value) { buffer.append(contentsOf: $0) }
        size += MemoryLayout<T>.stride
    }

    /// Writes what is buffered when the buffer is large (call after appending).
    func spill(force: Bool = false) throws {
        guard force || buffer.count >= 1 << 16, !buffer.isEmpty else { return }
        var done = 0
        while done < buffer.count {
            let n = buffer.withUnsafeBytes { write(fd, $0.baseAddress! + done, $0.count - done) }
            guard n > 0 else { throw KeypointError.unwritable(path: owner.path, reason: "scratch file: \(String(cString: strerror(errno)))") }
            done += n
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Reads the whole file back in order.
    func reader() throws -> ScratchReader {
        try spill(force: true)
        return ScratchReader(fd: fd, size: size, owner: owner)
    }
}

/// Sequential reads of a scratch file from its start.
final class ScratchReader {
    private let fd: Int32
    private let owner: URL
    private var offset = 0
    let size: Int

    init(fd: Int32, size: Int, owner: URL) { self.fd = fd; self.size = size; self.owner = owner }

    var atEnd: Bool { offset >= size }

    /// The next `count` bytes (fewer only at the end).
    func read(_ count: Int) throws -> Data {
        let n = min(count, size - offset)
        var data = Data(count: n)
        var done = 0
        while done < n {
            let got = data.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, n - done, off_t(offset + done)) }
            guard got > 0 else { throw KeypointError.unwritable(path: owner.path, reason: "scratch file: \(String(cString: strerror(errno)))") }
            done += got
        }
        offset += n
        return data
    }

    func read<T>(_ type: T.Type) throws -> T {
        let d = try read(MemoryLayout<T>.size)
        return d.withUnsafeBytes { $0.loadUnaligned(as: T.self) }
    }
}
