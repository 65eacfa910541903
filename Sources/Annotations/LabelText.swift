/// The one rule for what a label may hold, shared by every reader (so validate, convert and export),
/// and by review's save: a label is the text between its delimiters with outer white space removed (CSV
/// cells and ELAN values are commonly padded: readers trim it), and what remains must be non-empty, hold
/// no control character (Unicode's Cc category: NUL, tab, line breaks, DEL and C1 controls), no line or
/// paragraph separator (U+2028, U+2029) and no noncharacter (U+FFFE, U+FFFF). Such a label could not be
/// written to a CSV row, an ELAN value or a file name and read back as the same text. Nor may it be longer
/// than any value the CSV and JSON readers take (`maxBytes`), so every format takes the same labels.
public enum LabelText {
    /// The longest label, in UTF-8 bytes: the longest value a CSV or JSON annotation file may hold.
    public static let maxBytes = 1 << 16

    /// Nil when `label` (already trimmed by the reader) is acceptable; else why not, as a phrase.
    public static func problem(_ label: String) -> String? {
        if label.isEmpty { return "the label is empty" }
        if label.utf8.count > maxBytes {
            return "the label is \(label.utf8.count) bytes long (UTF-8), more than any annotation file's value may hold (\(maxBytes))"
        }
        if let bad = label.unicodeScalars.first(where: isForbidden) {
            return "the label holds \(name(bad)) (U+\(String(bad.value, radix: 16, uppercase: true).leftPadded(4))), which no annotation format keeps"
        }
        return nil
    }

    /// Nil when `label`, exactly as given (a save from review), reads back as itself; else why not.
    /// Outer white space would be trimmed by every reader, so it is refused here rather than dropped.
    public static func problemAsWritten(_ label: String) -> String? {
        if let p = problem(label) { return p }
        if label.first.map(\.isWhitespace) == true || label.last.map(\.isWhitespace) == true {
            return "the label begins or ends with white space, which every reader trims: remove it"
        }
        return nil
    }

    static func isForbidden(_ s: Unicode.Scalar) -> Bool {
        s.properties.generalCategory == .control || s.value == 0x2028 || s.value == 0x2029 || s.value == 0xFFFE || s.value == 0xFFFF
    }

    static func name(_ s: Unicode.Scalar) -> String {
        switch s.value {
        case 0: return "a NUL character"
        case 0x0A, 0x0D, 0x0B, 0x0C, 0x85, 0x2028, 0x2029: return "a line break"
        case 0x09: return "a tab"
        case 0xFFFE, 0xFFFF: return "a noncharacter"
        default: return "a control character"
        }
    }
}

private extension String {
    func leftPadded(_ n: Int) -> String { count >= n ? self : String(repeating: "0", count: n - count) + self }
}
