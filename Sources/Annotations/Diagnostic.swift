import FileSystem
/// One finding about an annotation source, printed as `file:line[:column]: severity: message`.
public struct Diagnostic: Equatable, Sendable, CustomStringConvertible, Codable {
    public enum Severity: String, Sendable, Codable { case error, warning }

    /// What sort of problem it is, in a few words ("no such file"): repeats of one kind are capped
    /// and counted together (see `DiagnosticLog`).
    public struct Kind: Hashable, Sendable, Codable, CustomStringConvertible {
        public var name: String
        public init(_ name: String) { self.name = name }
        public var description: String { name }
    }

    public var severity: Severity
    public var kind: Kind
    public var file: String
    /// 1-based line, when the finding concerns one.
    public var line: Int?
    /// 1-based field number within the line (CSV) when it concerns one field.
    public var column: Int?
    public var message: String
    /// What to do about it.
    public var hint: String?

    /// A diagnostic; without `kind`, its message is its kind.
    public init(_ severity: Severity, kind: Kind? = nil, file: String, line: Int? = nil, column: Int? = nil, _ message: String, hint: String? = nil) {
        self.severity = severity
        self.kind = kind ?? Kind(message)
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
        // One line a finding (and one its hint), whatever characters a file name or value brings.
        "\(oneLine(location)): \(severity.rawValue): \(oneLine(message))" + (hint.map { "\n  hint: \(oneLine($0))" } ?? "")
    }

    /// Characters of a value shown in a message; the rest is elided. A value can be a whole
    /// megabyte-long line (an unclosed quote swallows the file), so none is echoed whole.
    public static let quotedLength = 40

    /// `value` in single quotes for a message: whole when short, else its first `quotedLength`
    /// characters, `…` and its full length ('abc…' (52,428,800 characters)).
    public static func quote(_ value: String) -> String {
        guard value.prefix(quotedLength + 1).count > quotedLength else { return "'\(value)'" }
        return quote(head: value, length: value.count)
    }

    /// `value` as it is when short, else its first `quotedLength` characters, `…` and its full length.
    public static func elided(_ value: String) -> String {
        guard value.prefix(quotedLength + 1).count > quotedLength else { return value }
        return "\(value.prefix(quotedLength))… (\(grouped(value.count)) characters)"
    }

    /// A long value of which `head` starts it and `length` is its full length in characters.
    static func quote<S: StringProtocol>(head: S, length: Int) -> String {
        "'\(head.prefix(quotedLength))…' (\(grouped(length)) characters)"
    }

    /// `n` with thousands separators (1,000,000), the same in every locale.
    public static func grouped(_ n: Int) -> String {
        let digits = String(n.magnitude)
        var out = ""
        for (i, ch) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(ch)
        }
        return (n < 0 ? "-" : "") + out
    }
}

/// Every kind of finding the annotation checks make, named as the capped report counts them.
extension Diagnostic.Kind {
    // The annotation file itself.
    static let unreadableFile = Self("unreadable annotation file")
    static let encoding = Self("not UTF-8")
    static let csvSyntax = Self("CSV syntax")
    static let valueTooLong = Self("value too long")
    static let jsonSyntax = Self("JSON syntax")
    static let jsonShape = Self("JSON shape")
    static let emptyFile = Self("empty file")
    static let noRows = Self("no rows")
    static let fieldCount = Self("field count")
    static let missingColumn = Self("missing column")
    public static let unknownColumn = Self("unknown column")
    static let duplicateColumn = Self("column named twice")
    // ELAN and Label Studio files.
    static let elanStructure = Self("ELAN structure")
    static let tierChoice = Self("tier choice")
    static let unaligned = Self("unaligned annotation")
    static let mediaAmbiguous = Self("clip named twice under the media root")
    static let frameRateUnknown = Self("frame rate unknown")
    static let predictionsOnly = Self("predictions read")
    // One row's values.
    static let partialTimes = Self("start/end on some rows only")
    static let emptyVideo = Self("empty video")
    static let emptyLabel = Self("empty label")
    static let badLabel = Self("label with a forbidden character")
    static let badTime = Self("unreadable time")
    static let negativeTime = Self("negative time")
    static let startNotBeforeEnd = Self("start not before end")
    static let outsideRoot = Self("path outside the root")
    // Files on disk.
    static let noSuchFile = Self("no such file")
    static let unreadableClip = Self("unreadable clip")
    static let corruptClip = Self("corrupt clip")
    static let unreadableImage = Self("unreadable image")
    static let endBeyondClip = Self("end beyond the clip")
    static let startBeyondClip = Self("start beyond the clip")
    static let shortSegment = Self("segment shorter than the window")
    // Labelled folders.
    static let unlistableFolder = Self("unlistable folder")
    static let ignoredFile = Self("ignored file")
    static let emptyClassFolder = Self("empty class folder")
    static let noLabelledData = Self("no labelled data")
    // The data set as a whole.
    static let duplicate = Self("duplicate row")
    static let overlap = Self("overlapping labels")
    static let labelSpelling = Self("label spelling")
    static let imbalance = Self("class imbalance")
    static let noBackground = Self("no Background class")
}
