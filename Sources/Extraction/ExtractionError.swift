import Foundation
import Keypoints

/// Why an extraction could not start; each case names the path a user must look at.
public enum ExtractionError: Error, CustomStringConvertible, Equatable {
    case input(path: String, reason: String)
    case output(path: String, reason: String)
    /// No worker process could be started: the machine's fault (process limits, no executable), not
    /// the inputs', so the run stops instead of marking every input failed.
    case workers(reason: String)

    public var description: String {
        switch self {
        case .input(let p, let r): return "\(p): \(r)"
        case .output(let p, let r): return "\(p): \(r)"
        case .workers(let r):
            return "cannot start a worker process (\(r)); the run stopped, files done so far are kept and nothing is wrong with the inputs"
        }
    }
}
