/// The diagnostics of one run, capped: the first `limit` of each kind are kept, the rest only
/// counted. A million-row file with one mistake repeated on every row stays a short report and a
/// small memory footprint, while the totals still count every finding.
public struct DiagnosticLog: Sendable {
    /// How many diagnostics of one kind (and severity) are kept; 0 keeps all.
    public let limit: Int
    /// The diagnostics kept, in the order they were found.
    public private(set) var kept: [Diagnostic] = []
    /// Every error and warning found, kept or not.
    public private(set) var errorCount = 0
    public private(set) var warningCount = 0

    struct Key: Hashable { var kind: Diagnostic.Kind; var severity: Diagnostic.Severity }
    /// Findings of each kind so far, and the order kinds first appeared in (for a stable report).
    private var seen: [Key: Int] = [:]
    private var order: [Key] = []

    /// Findings of one kind beyond the limit: counted, not kept.
    public struct Omission: Equatable, Sendable {
        public var kind: Diagnostic.Kind
        public var severity: Diagnostic.Severity
        public var count: Int

        /// "... and 999,950 more 'no such file' errors".
        public var description: String {
            let noun = severity == .error ? "error" : "warning"
            return "... and \(Diagnostic.grouped(count)) more '\(kind)' \(noun)\(count == 1 ? "" : "s")"
        }
    }

    public init(limit: Int = 0) { self.limit = max(0, limit) }

    /// Kinds with findings beyond the limit, in the order the kinds first appeared.
    public var omitted: [Omission] {
        guard limit > 0 else { return [] }
        return order.compactMap { key in
            let n = seen[key] ?? 0
            return n > limit ? Omission(kind: key.kind, severity: key.severity, count: n - limit) : nil
        }
    }

    /// Counts `d` and keeps it while its kind is under the limit.
    public mutating func append(_ d: Diagnostic) {
        add(d.severity, d.kind, file: d.file, line: d.line, column: d.column, d.message, hint: d.hint)
    }

    /// Counts a finding and keeps it while its kind is under the limit. The message and hint are
    /// only built when kept: past the limit a finding costs a dictionary update.
    public mutating func add(_ severity: Diagnostic.Severity, _ kind: Diagnostic.Kind, file: String, line: Int? = nil, column: Int? = nil,
                             _ message: @autoclosure () -> String, hint: @autoclosure () -> String? = nil) {
        if severity == .error { errorCount += 1 } else { warningCount += 1 }
        let key = Key(kind: kind, severity: severity)
        let n = seen[key, default: 0]
        if n == 0 { order.append(key) }
        seen[key] = n + 1
        guard limit == 0 || n < limit else { return }
        kept.append(Diagnostic(severity, kind: kind, file: file, line: line, column: column, message(), hint: hint()))
    }
}
