import FileSystem
import Foundation

/// A folder the review server may read (the clips' root, the keypoint folder): paths from a request
/// resolved inside it or refused. A path is refused when it is absolute, holds `..`, `.` or an empty
/// part, or leads (through a symbolic link anywhere on the way) to a file outside the folder, or to
/// something that is no regular file (a FIFO would hold the request, and the actor serving it, forever).
public struct ReviewFolder: Sendable {
    /// The folder as given, and as the file system resolves it (symbolic links followed).
    public let url: URL
    let real: String

    public init(_ url: URL) {
        self.url = url.standardizedFileURL
        real = Self.realPath(self.url.path) ?? self.url.path
    }

    /// Why a request's path was refused.
    public enum Refusal: Error, Equatable, CustomStringConvertible {
        case malformed(String)
        case outside(String)
        case missing(String)
        /// The path leads to a FIFO, socket or device (`kind` says which, in words).
        case notRegular(String, kind: String)
        public var description: String {
            switch self {
            case .malformed(let p): return "\(p): not a path inside the folder (absolute, '..', '.' or an empty part)"
            case .outside(let p): return "\(p): leads outside the folder (a symbolic link out of it)"
            case .missing(let p): return "\(p): no such file"
            case .notRegular(let p, let kind):
                return "\(p) is \(kind), not a regular file: it is not read (reading it could wait forever); put the real file there"
            }
        }
    }

    /// The existing regular file `relative` names inside the folder, symbolic links resolved.
    public func file(_ relative: String) throws -> URL {
        let parts = relative.split(separator: "/", omittingEmptySubsequences: false)
        guard !relative.isEmpty, !relative.hasPrefix("/"), !relative.contains("\0"),
              parts.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." }) else { throw Refusal.malformed(relative) }
        let joined = url.appendingPathComponent(relative).path
        guard let resolved = Self.realPath(joined) else { throw Refusal.missing(relative) }
        guard resolved.hasPrefix(real.hasSuffix("/") ? real : real + "/") else { throw Refusal.outside(relative) }
        // Asked of the file system without opening the file: a FIFO is named, never waited on.
        var st = stat()
        guard stat(resolved, &st) == 0, st.st_mode & S_IFMT != S_IFDIR else { throw Refusal.missing(relative) }
        guard st.st_mode & S_IFMT == S_IFREG else { throw Refusal.notRegular(relative, kind: RegularFile.kind(st.st_mode)) }
        return URL(fileURLWithPath: resolved)
    }

    /// Whether the existing folder at `path` lies inside this folder once links are resolved: where a file
    /// may be written (a `.review-cache` linked out of KEYPOINTS is refused before anything is written).
    public func contains(folder path: String) -> Bool {
        guard let resolved = Self.realPath(path) else { return false }
        return resolved == real || resolved.hasPrefix(real.hasSuffix("/") ? real : real + "/")
    }

    /// `path` (absolute) relative to the folder, when it lies inside it.
    public func relative(_ path: String) -> String? {
        let base = url.path.hasSuffix("/") ? url.path : url.path + "/"
        if path.hasPrefix(base) { return String(path.dropFirst(base.count)) }
        let realBase = real.hasSuffix("/") ? real : real + "/"
        if let r = Self.realPath(path), r.hasPrefix(realBase) { return String(r.dropFirst(realBase.count)) }
        return nil
    }

    static func realPath(_ path: String) -> String? {
        guard let p = realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }
}
