import Foundation
import SwiftCSV

/// Column names of an annotation file; Create ML lets callers rename them.
public struct AnnotationColumns: Sendable, Equatable {
    public var video = "video"
    public var label = "label"
    public var start = "start"
    public var end = "end"
    public init() {}
    var all: [String] { [video, label, start, end] }
}

/// One entry of an annotation file before checking: values by column, with where they came from.
struct RawEntry {
    var line: Int
    /// Column name to (trimmed text, 1-based field number or nil for JSON).
    var values: [String: (text: String, field: Int?)]
}

/// Reads Create ML annotation files: CSV (`.csv`, `.txt`) through SwiftCSV, JSON (a root array of
/// objects) through JSONSerialization. SwiftCSV handles quoting, embedded delimiters and quotes and CRLF;
/// the byte-order mark and UTF-16 are handled here, and so are line numbers, which neither parser reports.
enum AnnotationFileReader {
    static func read(_ url: URL, columns: AnnotationColumns) -> (entries: [RawEntry], header: [String], diagnostics: [Diagnostic]) {
        let file = url.path
        guard let data = FileManager.default.contents(atPath: file) else {
            let exists = FileManager.default.fileExists(atPath: file)
            return ([], [], [Diagnostic(.error, file: file, exists ? "cannot be read" : "no such file",
                                        hint: exists ? "check its permissions" : "check the path")])
        }
        return read(data: data, file: file, json: url.pathExtension.lowercased() == "json")
    }

    /// Parses annotation bytes; `file` names them in diagnostics.
    static func read(data: Data, file: String, json: Bool) -> (entries: [RawEntry], header: [String], diagnostics: [Diagnostic]) {
        if data.starts(with: [0xFF, 0xFE]) || data.starts(with: [0xFE, 0xFF]) {
            return ([], [], [Diagnostic(.error, file: file, line: 1, "the file is UTF-16; annotation files must be UTF-8",
                                        hint: "re-save it as UTF-8 (in most editors: Save As, encoding UTF-8)")])
        }
        var bytes = data
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        guard let text = String(data: bytes, encoding: .utf8) else {
            let offset = firstInvalidUTF8(bytes)
            let line = bytes.prefix(offset).filter { $0 == 0x0A }.count + 1
            return ([], [], [Diagnostic(.error, file: file, line: line, "not valid UTF-8 text (byte \(offset))", hint: "re-save it as UTF-8")])
        }
        return json ? readJSON(text, file: file) : readCSV(text, file: file)
    }

    static func firstInvalidUTF8(_ bytes: Data) -> Int {
        var lo = 0, hi = bytes.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if String(data: bytes.prefix(mid), encoding: .utf8) == nil { hi = mid } else { lo = mid + 1 }
        }
        return max(0, lo - 1)
    }

    /// The 1-based line on which each CSV record starts, mirroring SwiftCSV's record splitting
    /// (a record ends at every newline outside quotes).
    static func recordLines(_ text: String) -> [Int] {
        var lines = [1]
        var line = 1, inQuotes = false
        for ch in text {
            if ch == "\"" { inQuotes.toggle() }
            if ch.isNewline {
                line += 1
                if !inQuotes { lines.append(line) }
            }
        }
        return lines
    }

    static func readCSV(_ text: String, file: String) -> ([RawEntry], [String], [Diagnostic]) {
        let lines = recordLines(text)
        let fieldCounts = splitRecords(text).map(countFields)
        var rows: [[String]] = []
        do {
            rows = try Parser.rows(text)
        } catch {
            // Find the first record SwiftCSV refuses, to name its line.
            let records = splitRecords(text)
            for (i, r) in records.enumerated() where (try? Parser.rows(r)) == nil {
                return ([], [], [Diagnostic(.error, file: file, line: lines[min(i, lines.count - 1)],
                                            "cannot parse this CSV line (\(error))",
                                            hint: "a field with a quote, comma or line break must be wrapped in double quotes, and quotes inside it doubled (\"\")")])
            }
            return ([], [], [Diagnostic(.error, file: file, "cannot parse the CSV (\(error))")])
        }
        guard let headerRow = rows.first, headerRow.contains(where: { !$0.isEmpty }) else {
            return ([], [], [Diagnostic(.error, file: file, line: 1, "the file is empty; expected a header line such as 'video,label,start,end'")])
        }
        // SwiftCSV pads every row to the longest; keep the fields each record really has.
        let header = headerRow.prefix(fieldCounts.first ?? headerRow.count).map { $0.trimmingCharacters(in: .whitespaces) }
        var entries: [RawEntry] = []
        var diagnostics: [Diagnostic] = []
        for (i, row) in rows.enumerated().dropFirst() {
            let line = i < lines.count ? lines[i] : lines.last!
            if row.allSatisfy({ $0.trimmingCharacters(in: .whitespaces).isEmpty }) { continue }
            // SwiftCSV pads short rows, so count the fields of the record as written.
            let written = i < fieldCounts.count ? fieldCounts[i] : row.count
            if written != header.count {
                diagnostics.append(Diagnostic(.error, file: file, line: line, "has \(written) fields; the header has \(header.count)",
                                              hint: "a value containing a comma must be wrapped in double quotes"))
                if written < header.count { continue }
            }
            var values: [String: (String, Int?)] = [:]
            for (j, name) in header.enumerated() where j < row.count {
                values[name] = (row[j].trimmingCharacters(in: .whitespaces), j + 1)
            }
            entries.append(RawEntry(line: line, values: values))
        }
        return (entries, header, diagnostics)
    }

    /// Fields in one record: delimiters outside quotes, plus one.
    static func countFields(_ record: String) -> Int {
        var n = 1, inQuotes = false
        for ch in record {
            if ch == "\"" { inQuotes.toggle() } else if ch == "," && !inQuotes { n += 1 }
        }
        return n
    }

    /// Records as separate strings (for locating a parse error).
    static func splitRecords(_ text: String) -> [String] {
        var out: [String] = [], current = "", inQuotes = false
        for ch in text {
            if ch == "\"" { inQuotes.toggle() }
            if ch.isNewline && !inQuotes { out.append(current); current = ""; continue }
            current.append(ch)
        }
        out.append(current)
        return out
    }

    static func readJSON(_ text: String, file: String) -> ([RawEntry], [String], [Diagnostic]) {
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
        } catch {
            let (line, column) = jsonErrorPosition(error, text: text)
            return ([], [], [Diagnostic(.error, file: file, line: line, column: column, "not valid JSON",
                                        hint: "check for a missing comma, bracket or quote near here")])
        }
        guard let array = root as? [Any] else {
            return ([], [], [Diagnostic(.error, file: file, line: 1, "the JSON root must be an array of objects like {\"video\": ..., \"label\": ...}")])
        }
        let lines = jsonElementLines(text)
        var entries: [RawEntry] = []
        var diagnostics: [Diagnostic] = []
        var header: [String] = []
        for (i, element) in array.enumerated() {
            let line = i < lines.count ? lines[i] : 1
            guard let object = element as? [String: Any] else {
                diagnostics.append(Diagnostic(.error, file: file, line: line, "entry \(i + 1) is not an object"))
                continue
            }
            var values: [String: (String, Int?)] = [:]
            for (key, value) in object {
                let name = key.trimmingCharacters(in: .whitespaces)
                if !header.contains(name) { header.append(name) }
                switch value {
                case let s as String: values[name] = (s.trimmingCharacters(in: .whitespaces), nil)
                case let n as NSNumber: values[name] = ("\(n.doubleValue)", nil)
                case is NSNull: values[name] = ("", nil)
                default:
                    diagnostics.append(Diagnostic(.error, file: file, line: line, "'\(name)' must be a string or a number"))
                }
            }
            entries.append(RawEntry(line: line, values: values))
        }
        return (entries, header, diagnostics)
    }

    /// Line of the start of each element of the root array.
    static func jsonElementLines(_ text: String) -> [Int] {
        var lines: [Int] = []
        var line = 1, depth = 0, inString = false, escaped = false, expectElement = false
        for ch in text {
            if ch.isNewline { line += 1 }
            if inString {
                if escaped { escaped = false } else if ch == "\\" { escaped = true } else if ch == "\"" { inString = false }
                continue
            }
            if depth == 1 && expectElement && !ch.isWhitespace && ch != "]" { lines.append(line); expectElement = false }
            switch ch {
            case "\"": inString = true
            case "[", "{":
                depth += 1
                if depth == 1 { expectElement = true }
            case "]", "}": depth -= 1
            case "," where depth == 1: expectElement = true
            default: break
            }
        }
        return lines
    }

    static func jsonErrorPosition(_ error: Error, text: String) -> (Int?, Int?) {
        let info = (error as NSError).userInfo
        let description = (info["NSDebugDescription"] as? String) ?? "\(error)"
        // Foundation reports "around line L, column C" or "... character N".
        let digits = description.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        if description.contains("line"), digits.count >= 2 { return (digits[0], digits[1]) }
        if let index = (info["NSJSONSerializationErrorIndex"] as? Int) ?? digits.last {
            let prefix = text.utf8.prefix(index)
            let line = prefix.filter { $0 == 0x0A }.count + 1
            let column = prefix.count - (prefix.lastIndex(of: 0x0A).map { prefix.distance(from: prefix.startIndex, to: $0) + 1 } ?? 0) + 1
            return (line, column)
        }
        return (nil, nil)
    }
}

/// SwiftCSV's record parser as arrays of fields (no header handling: we read the header ourselves).
enum Parser {
    static func rows(_ text: String) throws -> [[String]] {
        let csv = try EnumeratedCSV(string: "\n" + text, delimiter: .comma, loadColumns: false)
        return csv.rows
    }
}
