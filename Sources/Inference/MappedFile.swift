#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file mapped read-only into memory for the lifetime of this object.
final class MappedFile {
    let bytes: UnsafeRawBufferPointer
    private let base: UnsafeMutableRawPointer?

    init(path: String) throws {
        // Opened without blocking (a FIFO would wait for a writer forever) and mapped only if a regular file.
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw InferenceError.cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw InferenceError.cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        guard st.st_mode & S_IFMT == S_IFREG else {
            throw InferenceError.cannotOpen(path: path, reason: "not a regular file (a FIFO, a device, a socket or a folder): refused, never read")
        }
        let size = Int(st.st_size)
        guard size > 0 else { throw InferenceError.malformed(path: path, reason: "the file is empty") }
        guard let p = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), p != MAP_FAILED else {
            throw InferenceError.cannotOpen(path: path, reason: String(cString: strerror(errno)))
        }
        base = p
        bytes = UnsafeRawBufferPointer(start: p, count: size)
    }

    /// Drops the pages read so far from this process's memory; they are read from the file again if
    /// touched. A model's weights are copied into its plans, so the mapped copy need not stay resident
    /// (it would count in every worker's memory).
    func releasePages() {
        if let base { _ = madvise(base, bytes.count, MADV_DONTNEED) }
    }

    deinit { if let base { munmap(base, bytes.count) } }
}
