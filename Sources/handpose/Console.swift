import Foundation

/// Everything the tool says that is not its output: errors, warnings, notes and progress, on standard
/// error, so a command's output stays clean for pipes. The one place that writes there.
enum Console {
    /// `error: message`: something failed (the exit code says how much).
    static func error(_ message: String) { line("error: \(message)") }
    /// `warning: message`: done, but the user should look.
    static func warning(_ message: String) { line("warning: \(message)") }
    /// `note: message`: information that changes nothing.
    static func note(_ message: String) { line("note: \(message)") }
    /// A whole line, as given (progress, a diagnostic that carries its own severity).
    static func line(_ text: String) { write(text + "\n") }
    /// Text as given: progress redrawn in place with a carriage return.
    static func write(_ text: String) { FileHandle.standardError.write(Data(text.utf8)) }
}
