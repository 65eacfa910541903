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
    public static func temporaryURL(for url: URL, pid: Int32 = getpid()) -> URL {
        url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(hostTag).\(pid).partial")
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
