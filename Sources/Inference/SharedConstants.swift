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
/// A file is used only after it has been compared byte for byte with the plan's own packing, and
/// only when it lies on a local file system, belongs to this user and is writable by no one else, so
/// that it cannot change or vanish under a mapping (a network file system can, and a read would then
/// kill the worker). A damaged or foreign file is written again. Any failure (a folder that cannot be
/// written, a full disk) leaves the plan with its private copy: sharing saves memory, it never
/// changes results.
public struct SharedConstants: Sendable {
    public let directory: URL

    public init(directory: URL) { self.directory = directory }

    /// `$HANDPOSE_CACHE/weights`, else `$XDG_CACHE_HOME/handpose/weights` (default `~/.cache`); when that
    /// folder is on a network file system (a cluster's home), `/tmp/handpose-<uid>/weights` on the node
    /// instead. nil when `HANDPOSE_CACHE` is set but empty (no sharing). Empty or relative `HOME` and
    /// `XDG_CACHE_HOME` are ignored, as the XDG specification says.
    public static func standard(environment: [String: String] = ProcessInfo.processInfo.environment) -> SharedConstants? {
        if let cache = environment["HANDPOSE_CACHE"] {
            return cache.isEmpty ? nil : SharedConstants(directory: URL(fileURLWithPath: cache).appendingPathComponent("weights"))
        }
        func absolute(_ name: String) -> URL? {
            environment[name].flatMap { $0.hasPrefix("/") ? URL(fileURLWithPath: $0) : nil }
        }
        let node = URL(fileURLWithPath: "/tmp/handpose-\(getuid())/weights")
        guard let cache = absolute("XDG_CACHE_HOME") ?? absolute("HOME")?.appendingPathComponent(".cache") else {
            return SharedConstants(directory: node)
        }
        let folder = cache.appendingPathComponent("handpose/weights")
        return Self.isNetworkFileSystem(cache) ? SharedConstants(directory: node) : SharedConstants(directory: folder)
    }

    /// NFS, SMB/CIFS, FUSE, 9p, Lustre, GPFS, Ceph and the like, where a mapped file can change or vanish
    /// under a reader: the type of the mount holding `url` in /proc/self/mounts (no mount table: local).
    static func isNetworkFileSystem(_ url: URL) -> Bool {
        guard let table = try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8) else { return false }
        let path = url.standardizedFileURL.path
        var best: (point: String, type: String)?
        for line in table.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count >= 3 else { continue }
            // Mount points escape spaces and tabs as octal.
            let point = String(fields[1]).replacingOccurrences(of: "\\040", with: " ").replacingOccurrences(of: "\\011", with: "\t")
            let inside = point == "/" || path == point || path.hasPrefix(point + "/")
            if inside && point.count >= (best?.point.count ?? -1) { best = (point, String(fields[2])) }
        }
        guard let type = best?.type else { return false }
        let network = ["nfs", "nfs4", "cifs", "smb3", "smbfs", "9p", "lustre", "gpfs", "ceph", "glusterfs", "afs", "ncpfs", "coda", "beegfs", "sshfs"]
        return network.contains(type) || type.hasPrefix("fuse")
    }

    /// Moves `buffers` into the shared file for their contents; returns false when they keep their
    /// private copies.
    @discardableResult
    func share(_ buffers: [FloatBuffer]) -> Bool {
        guard !buffers.isEmpty, !Self.isNetworkFileSystem(directory) else { return false }
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
        // First the file already there (or the one a worker starting at the same moment published);
        // if it differs, a fresh copy replaces it, once.
        for replace in [false, true] {
            if replace || !FileManager.default.fileExists(atPath: path) {
                guard write(buffers, offsets: offsets, total: total, to: path, replacing: replace) else { return false }
            }
            guard let file = try? MappedFile(path: path), file.bytes.count == total, Self.isPrivate(path) else { continue }
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

    /// The file is a regular file of this user that no one else can write.
    private static func isPrivate(_ path: String) -> Bool {
        var st = stat()
        guard lstat(path, &st) == 0 else { return false }
        return (st.st_mode & S_IFMT) == S_IFREG && st.st_uid == getuid() && (st.st_mode & 0o022) == 0
    }

    /// Writes the buffers, each at its 64-byte aligned offset, to a temporary file, flushes it to disk and
    /// publishes it under `path`: without `replacing`, only if no file is there yet (a worker that loses
    /// the race maps the winner's, so workers starting together still share one copy); with it, over the
    /// file there. A process mapping the file never sees it half-written. Temporary files a killed worker
    /// left more than an hour ago are removed.
    private func write(_ buffers: [FloatBuffer], offsets: [Int], total: Int, to path: String, replacing: Bool) -> Bool {
        let fm = FileManager.default
        try? fm.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        if let names = try? fm.contentsOfDirectory(atPath: directory.path) {
            for name in names where name.hasSuffix(".tmp") {
                let old = directory.appendingPathComponent(name).path
                if let modified = (try? fm.attributesOfItem(atPath: old))?[.modificationDate] as? Date,
                   modified.timeIntervalSinceNow < -3600 { unlink(old) }
            }
        }
        let temporary = path + ".\(getpid()).\(UUID().uuidString).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o644)
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
        ok = fsync(fd) == 0 && ok
        ok = close(fd) == 0 && ok
        defer { unlink(temporary) }
        guard ok else { return false }
        if replacing { return rename(temporary, path) == 0 }
        // link fails with EEXIST when another process published first: its file is then the one to map.
        return link(temporary, path) == 0 || errno == EEXIST
    }
}
