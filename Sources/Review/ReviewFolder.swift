import Foundation

/// A folder the review server may read (the clips' root, the keypoint folder): paths from a request
/// resolved inside it or refused. A path is refused when it is absolute, holds `..`, `.` or an empty
/// part, or leads (through a symbolic link anywhere on the way) to a file outside the folder.
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
        public var description: String {
            switch self {
            case .malformed(let p): return "\(p): not a path inside the folder (absolute, '..', '.' or an empty part)"
            case .outside(let p): return "\(p): leads outside the folder (a symbolic link out of it)"
            case .missing(let p): return "\(p): no such file"
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
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: resolved, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw Refusal.missing(relative)
        }
        return URL(fileURLWithPath: resolved)
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
