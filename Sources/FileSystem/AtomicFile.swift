import Foundation

/// Every file handpose writes is whole under its name or absent: bytes go to a temporary name beside
/// the destination (`temporaryURL`), then one `rename` puts them in place. The one place that knows
/// the temporary name and the rename, for keypoint files, indexes, records, videos and images alike.
public enum AtomicFile {
    /// Why a file could not be written, naming it.
    public struct WriteError: Error, CustomStringConvertible, Equatable {
        public var path: String
        public var reason: String
        public init(path: String, reason: String) { self.path = path; self.reason = reason }
        public var description: String { "\(path): cannot be written (\(reason))" }
    }

    /// Where bytes for `url` wait before the rename, for process `pid` on this machine: a supervisor
    /// that sees a worker die removes that worker's temporary file. The host name is part of it because
    /// machines sharing a file system repeat process ids (in containers every supervisor is process 1).
    /// Hidden (a leading dot), so input walks pass over it.
    /// A name too long to take the additions (a file name holds 255 bytes) keeps its start and a digest of the
    /// whole (`fitted`), so its temporary can still be made and is still its own.
    public static func temporaryURL(for url: URL, pid: Int32 = getpid()) -> URL {
        url.deletingLastPathComponent().appendingPathComponent(fitted(".", url.lastPathComponent, ".\(hostTag).\(pid).partial"))
    }

    /// `prefix + name + suffix`, or, past 255 bytes, `name` cut at a character to make room for `~` and 16 hex
    /// digits of its FNV-1a hash.
    public static func fitted(_ prefix: String, _ name: String, _ suffix: String) -> String {
        let whole = prefix + name + suffix
        guard whole.utf8.count > 255 else { return whole }
        var hash: UInt64 = 0xcbf29ce484222325
        for byte in name.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100000001b3 }
        let digest = String(hash, radix: 16)
        let tag = "~" + String(repeating: "0", count: 16 - digest.count) + digest
        let room = 255 - prefix.utf8.count - suffix.utf8.count - tag.utf8.count
        var kept = "", used = 0
        for c in name {
            let n = c.utf8.count
            if used + n > room { break }
            kept.append(c); used += n
        }
        return prefix + kept + tag + suffix
    }

    /// Removes the temporaries of `temporaryURL` under `root` that processes of this machine left and that no
    /// longer run (a supervisor killed with SIGKILL, a job past its time limit): `extract` calls it at its start,
    /// so they do not pile up. Those of another host name, and of a process still running, are left: host names
    /// must differ among the machines (or containers) writing one output. Returns the paths removed.
    @discardableResult
    public static func removeStale(under root: URL) -> [String] {
        guard let walk = FileManager.default.enumerator(atPath: root.path) else { return [] }
        var removed: [String] = []
        let marker = "." + hostTag + "."
        while let relative = walk.nextObject() as? String {
            let name = (relative as NSString).lastPathComponent
            guard name.hasPrefix("."), name.hasSuffix(".partial"), let tag = name.range(of: marker, options: .backwards) else { continue }
            let pidText = name[tag.upperBound...].dropLast(".partial".count)
            guard let pid = Int32(pidText), pid > 0, kill(pid, 0) != 0, errno == ESRCH else { continue }
            let path = root.appendingPathComponent(relative).path
            if unlink(path) == 0 { removed.append(path) }
        }
        return removed
    }

    /// This machine's name as it may appear in a file name.
    public static let hostTag: String = {
        let name = ProcessInfo.processInfo.hostName.prefix(64).map { $0.isLetter || $0.isNumber || $0 == "-" ? $0 : "_" }
        return name.isEmpty ? "host" : String(name)
    }()

    /// Writes `data` to `url` atomically, creating its folder; on failure nothing is left behind.
    public static func write(_ data: Data, to url: URL) throws {
        let temporary = temporaryURL(for: url)
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: temporary)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw WriteError(path: url.path, reason: reason(error))
        }
        try commit(temporary, to: url)
    }

    /// Renames a finished temporary file (written by the caller, or by a library such as FFmpeg) into
    /// place; on failure the temporary is removed and the error names the destination.
    public static func commit(_ temporary: URL, to url: URL) throws {
        guard rename(temporary.path, url.path) == 0 else {
            let why = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw WriteError(path: url.path, reason: why)
        }
    }

    /// A Foundation error's POSIX reason where it has one.
    static func reason(_ error: Error) -> String {
        let ns = error as NSError
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        if ns.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(ns.code))) }
        return ns.localizedDescription
    }
}
