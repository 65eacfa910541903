import Crypto
import Foundation
import Kernels
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A folder of planned constants that processes planning the same model share: each plan's packed
/// weights are written once to a file named by their SHA-256, and every process maps that file
/// read-only instead of keeping its own copy. The pages are then the page cache's, counted once
/// however many worker processes run (the full models' weights are about 15 MB a process).
///
/// A file is used only after it has been compared byte for byte with the plan's own packing, so a
/// damaged, foreign or stale file is never read; it is then written again. Any failure (a folder that
/// cannot be written, a full disk) leaves the plan with its private copy: sharing saves memory, it
/// never changes results.
public struct SharedConstants: Sendable {
    public let directory: URL

    public init(directory: URL) { self.directory = directory }

    /// `$HANDPOSE_CACHE/weights`, else `$XDG_CACHE_HOME/handpose/weights` (default `~/.cache`); nil when
    /// `HANDPOSE_CACHE` is set but empty (no sharing).
    public static func standard(environment: [String: String] = ProcessInfo.processInfo.environment) -> SharedConstants? {
        if let cache = environment["HANDPOSE_CACHE"] {
            return cache.isEmpty ? nil : SharedConstants(directory: URL(fileURLWithPath: cache).appendingPathComponent("weights"))
        }
        let home = environment["HOME"].map { URL(fileURLWithPath: $0) } ?? FileManager.default.homeDirectoryForCurrentUser
        let cache = environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? home.appendingPathComponent(".cache")
        return SharedConstants(directory: cache.appendingPathComponent("handpose/weights"))
    }

    /// Moves `buffers` into the shared file for their contents; returns false when they keep their
    /// private copies.
    @discardableResult
    func share(_ buffers: [FloatBuffer]) -> Bool {
        guard !buffers.isEmpty else { return false }
        var offsets: [Int] = []
        var total = 0
        var hash = SHA256()
        for b in buffers {
            offsets.append(total)
            total += (b.count * 4 + 63) / 64 * 64
            withUnsafeBytes(of: b.count) { hash.update(bufferPointer: $0) }
            hash.update(bufferPointer: UnsafeRawBufferPointer(start: b.pointer, count: b.count * 4))
        }
        let name = hash.finalize().map { String(format: "%02x", $0) }.joined() + ".f32"
        let path = directory.appendingPathComponent(name).path
        for attempt in 0..<2 {
            if attempt == 1 || !FileManager.default.fileExists(atPath: path) {
                guard write(buffers, offsets: offsets, total: total, to: path) else { return false }
            }
            guard let file = try? MappedFile(path: path), file.bytes.count == total else { continue }
            let same = zip(buffers, offsets).allSatisfy { b, offset in
                memcmp(file.bytes.baseAddress! + offset, b.pointer, b.count * 4) == 0
            }
            guard same else { continue }
            for (b, offset) in zip(buffers, offsets) {
                b.useSharedCopy((file.bytes.baseAddress! + offset).assumingMemoryBound(to: Float.self), owner: file)
            }
            return true
        }
        return false
    }

    /// Writes the buffers, each at its 64-byte aligned offset, under a temporary name, then renames:
    /// a process mapping the file never sees it half-written.
    private func write(_ buffers: [FloatBuffer], offsets: [Int], total: Int, to path: String) -> Bool {
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let temporary = path + ".\(getpid()).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { return false }
        var ok = ftruncate(fd, off_t(total)) == 0
        for (b, offset) in zip(buffers, offsets) where ok {
            var done = 0
            let bytes = UnsafeRawPointer(b.pointer), count = b.count * 4
            while done < count {
                let n = pwrite(fd, bytes + done, count - done, off_t(offset + done))
                if n <= 0 { ok = false; break }
                done += n
            }
        }
        ok = close(fd) == 0 && ok
        guard ok, rename(temporary, path) == 0 else {
            unlink(temporary)
            return false
        }
        return true
    }
}
