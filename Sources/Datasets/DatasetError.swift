/// Errors of the Datasets module; each names the file and, where it applies, what is wrong in it.
/// (Errors in keypoint files themselves are `KeypointError`s.)
public enum DatasetError: Error, CustomStringConvertible, Equatable {
    case unreadable(path: String, reason: String)
    case invalid(path: String, reason: String)
    case unwritable(path: String, reason: String)
    case mismatch(path: String, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let p, let r): return "\(p): cannot be read (\(r))."
        case .invalid(let p, let r): return "\(p): \(r)."
        case .unwritable(let p, let r): return "\(p): cannot be written (\(r))."
        case .mismatch(let p, let r): return "\(p): \(r)."
        }
    }
}
