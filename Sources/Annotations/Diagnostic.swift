/// One finding about an annotation source, printed as `file:line[:column]: severity: message`.
public struct Diagnostic: Equatable, Sendable, CustomStringConvertible, Codable {
    public enum Severity: String, Sendable, Codable { case error, warning }

    public var severity: Severity
    public var file: String
    /// 1-based line, when the finding concerns one.
    public var line: Int?
    /// 1-based field number within the line (CSV) when it concerns one field.
    public var column: Int?
    public var message: String
    /// What to do about it.
    public var hint: String?

    public init(_ severity: Severity, file: String, line: Int? = nil, column: Int? = nil, _ message: String, hint: String? = nil) {
        self.severity = severity
        self.file = file
        self.line = line
        self.column = column
        self.message = message
        self.hint = hint
    }

    public var location: String {
        var s = file
        if let line { s += ":\(line)" }
        if let line = line, let column, line > 0 { s += ":\(column)" }
        return s
    }

    public var description: String {
        "\(location): \(severity.rawValue): \(message)" + (hint.map { "\n  hint: \($0)" } ?? "")
    }
}
