import ArgumentParser
import Foundation

/// The tool's exit codes, one meaning each, so a batch script or a scheduler can act on them
/// (README, "Exit codes"; `handpose --help`).
enum ToolExit {
    /// The work finished, but some inputs failed; each is named, and the others are done.
    static let someInputsFailed: Int32 = 1
    /// The inputs hold errors (annotation errors, keypoints of another clip, nothing to export).
    static let dataErrors: Int32 = 2
    /// Could not run: models missing, output not writable, disk full, a named file absent.
    static let couldNotRun: Int32 = 3
    /// The command line is wrong: usage text follows the message.
    static let usage: Int32 = 64
    /// Stopped by SIGINT or SIGTERM; what was done is kept and a rerun resumes.
    static let interrupted: Int32 = 130

    static let summary = """
    Exit codes: 0 done; 1 finished, but some inputs failed (each named; the rest done); 2 the inputs hold \
    errors; 3 could not run (models, output, a named file); 64 the command line is wrong; 130 interrupted \
    (a rerun resumes).
    """
}

/// A failure of the run, not of the command line: printed as one sentence without usage text.
struct RuntimeFailure: Error, CustomStringConvertible {
    var message: String
    var code: Int32
    init(_ message: String, code: Int32 = ToolExit.couldNotRun) { self.message = message; self.code = code }
    var description: String { message }
}
