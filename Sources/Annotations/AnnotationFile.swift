import FileSystem
import Foundation

/// Column names of an annotation file; Create ML lets callers rename them.
public struct AnnotationColumns: Sendable, Equatable {
    public var video = "video"
    public var label = "label"
    public var start = "start"
    public var end = "end"
    public init() {}
    var all: [String] { [video, label, start, end] }
}

/// One entry of an annotation file before checking: its values in header order, and where it came from.
struct RawEntry {
    var line: Int
    /// Trimmed values by header position; nil where the entry has none (a JSON object without that key).
    var values: [String?]
    /// CSV entries: the value at header position i is field i + 1. JSON entries have no field numbers.
    var csv: Bool

    func field(_ index: Int) -> Int? { csv ? index + 1 : nil }
}

/// Receives an annotation file's header, then its entries one by one, as they are read.
protocol AnnotationEntrySink {
    var log: DiagnosticLog { get set }
    /// The columns read by name: of a JSON file's other keys only the first few are named (and given a
    /// slot in each entry), so that a key of its own on every entry costs nothing per entry.
    var columnsRead: [String] { get }
    mutating func header(_ names: [String])
    mutating func entry(_ e: RawEntry)
}

extension AnnotationEntrySink {
    var columnsRead: [String] { AnnotationColumns().all }
}

extension SegmentBuilder {
    var columnsRead: [String] { columns.all }
}

/// Reads Create ML annotation files, CSV (`.csv`, `.txt`) through `CSVRecordReader` and JSON (a root
/// array of objects) through `JSONEntryReader`, both streamed, so a file of millions of rows never
/// sits in memory whole. The byte-order mark and UTF-16 are handled here.
enum AnnotationFileReader {
    static let chunkSize = 1 << 20

    static func read<S: AnnotationEntrySink>(_ url: URL, into sink: inout S) {
        let file = url.path
        if RegularFile.isSpecial(file), let problem = RegularFile.problem(file) {
            sink.log.add(.error, .unreadableFile, file: file, problem, hint: "annotation files are regular files")
            return
        }
        guard let handle = RegularFile.handle(file) else {
            let exists = FileManager.default.fileExists(atPath: file)
            sink.log.add(.error, .unreadableFile, file: file, exists ? "cannot be read" : "no such file",
                         hint: exists ? "check its permissions" : "check the path")
            return
        }
        defer { try? handle.close() }
        var readError: Error?
        /// The file's chunks from `offset` on (JSON is read twice).
        func chunks(from offset: Int) -> () -> [UInt8]? {
            do { try handle.seek(toOffset: UInt64(offset)) } catch { readError = error }
            return {
                guard readError == nil else { return nil }
                do {
                    guard let data = try handle.read(upToCount: chunkSize), !data.isEmpty else { return nil }
                    return [UInt8](data)
                } catch {
                    readError = error
                    return nil
                }
            }
        }
        defer {
            if let readError {
                sink.log.add(.error, .unreadableFile, file: file, "cannot be read (\(readError.localizedDescription))")
            }
        }
        // The first bytes tell the encoding.
        var head: [UInt8] = []
        let start = chunks(from: 0)
        while head.count < 4, let more = start() { head += more }
        guard readError == nil, let skip = encodingPrelude(head, file: file, log: &sink.log) else { return }
        if url.pathExtension.lowercased() == "json" {
            readJSON(chunks: { chunks(from: skip) }, file: file, into: &sink)
        } else {
            var reader = CSVRecordReader(chunks: chunks(from: skip))
            readCSV(&reader, file: file, into: &sink)
        }
    }

    /// Reads annotation bytes already in memory; `file` names them in diagnostics.
    static func read<S: AnnotationEntrySink>(data: Data, file: String, json: Bool, into sink: inout S) {
        let bytes = [UInt8](data)
        guard let skip = encodingPrelude(bytes, file: file, log: &sink.log) else { return }
        let text = Array(bytes.dropFirst(skip))
        if json {
            readJSON(chunks: { CSVRecordReader.once(text) }, file: file, into: &sink)
        } else {
            var reader = CSVRecordReader(bytes: text)
            readCSV(&reader, file: file, into: &sink)
        }
    }

    /// Bytes to skip before the text (a UTF-8 byte-order mark), or nil when the file is UTF-16.
    static func encodingPrelude(_ head: [UInt8], file: String, log: inout DiagnosticLog) -> Int? {
        if head.starts(with: [0xFF, 0xFE]) || head.starts(with: [0xFE, 0xFF]) {
            log.add(.error, .encoding, file: file, line: 1, "the file is UTF-16; annotation files must be UTF-8",
                    hint: "re-save it as UTF-8 (in most editors: Save As, encoding UTF-8)")
            return nil
        }
        return head.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
    }

    static func readCSV<S: AnnotationEntrySink>(_ reader: inout CSVRecordReader, file: String, into sink: inout S) {
        var header: [String]?
        var rows = 0
        while let record = reader.next() {
            if let problem = record.problem {
                report(problem, file: file, log: &sink.log)
                if header == nil { return }   // no header: nothing after it can be read by name
                rows += 1
                continue
            }
            if record.isBlank { continue }
            guard let names = header else {
                header = record.fields.map(trimmed)
                sink.header(header!)
                continue
            }
            rows += 1
            let written = record.fields.count
            if written != names.count {
                sink.log.add(.error, .fieldCount, file: file, line: record.line, "has \(written) fields; the header has \(names.count)",
                             hint: "a value containing a comma must be wrapped in double quotes")
                if written < names.count { continue }
            }
            sink.entry(RawEntry(line: record.line, values: names.indices.map { trimmed(record.fields[$0]) }, csv: true))
        }
        if header == nil {
            sink.log.add(.error, .emptyFile, file: file, line: 1, "the file is empty; expected a header line such as 'video,label,start,end'")
        } else if rows == 0 {
            sink.log.add(.error, .noRows, file: file, line: 1, "no segments: the file has a header but no rows",
                         hint: "add one line per segment below the header, such as 'clip.mp4,wave,0,1.5'")
        }
    }

    static func report(_ problem: CSVProblem, file: String, log: inout DiagnosticLog) {
        let quoting = "a value holding a quote, comma or line break must be wrapped in double quotes, and quotes inside it doubled (\"\")"
        switch problem {
        case let .strayQuote(line, field):
            log.add(.error, .csvSyntax, file: file, line: line, column: field,
                    "cannot parse this CSV line: a quote inside a value that does not start with one", hint: quoting)
        case let .textAfterQuote(line, field):
            log.add(.error, .csvSyntax, file: file, line: line, column: field,
                    "cannot parse this CSV line: text after a value's closing quote", hint: quoting)
        case let .unclosedQuote(line, field):
            log.add(.error, .csvSyntax, file: file, line: line, column: field,
                    "cannot parse this CSV line: the quote opened here is never closed", hint: quoting)
        case let .notUTF8(line, field, byte):
            log.add(.error, .encoding, file: file, line: line, column: field,
                    "not valid UTF-8 text (byte \(byte) of the value)", hint: "re-save the file as UTF-8")
        case let .tooLong(line, field, head, characters):
            log.add(.error, .valueTooLong, file: file, line: line, column: field,
                    "value \(Diagnostic.quote(head: head, length: characters)) is too long for a path, label or time",
                    hint: "a quote left open swallows the lines after it: check the quotes on and before this line")
        }
    }

    /// Built once: `CharacterSet.whitespaces` makes a new set at every use.
    static let whitespace = CharacterSet.whitespaces

    /// `s` without surrounding white space; most values have none, and are returned as they are.
    static func trimmed(_ s: String) -> String {
        guard let first = s.unicodeScalars.first, let last = s.unicodeScalars.last else { return s }
        guard whitespace.contains(first) || whitespace.contains(last) else { return s }
        return s.trimmingCharacters(in: whitespace)
    }

    /// Keys of a JSON file that no column reads, named in the header (and so in the unknown-column
    /// warnings) up to this many; the rest are counted in one warning.
    static let unknownKeysNamed = 20

    /// Reads a JSON annotation file twice from `chunks()`: first to check it all and collect its keys
    /// (a file that is not JSON yields one error and no entries, and the header is known before the
    /// first entry), then to hand its entries over one by one.
    /// The header holds the columns the sink reads, keys that differ from one only in case (for the hint),
    /// and the first `unknownKeysNamed` other keys, in the order they first appear: a header of every key
    /// of every entry, and a slot for each in every entry, made 80,000 entries with a key of their own
    /// 6.4 billion slots, and the file was never read.
    static func readJSON<S: AnnotationEntrySink>(chunks: () -> (() -> [UInt8]?), file: String, into sink: inout S) {
        let columnsRead = sink.columnsRead
        let read = Set(columnsRead), readFolded = Set(columnsRead.map { $0.lowercased() })
        var header: [String] = [], position: [String: Int] = [:], count = 0
        /// Every distinct key, so that the second pass can tell a key the first did not see.
        var known = Set<String>(), named = 0
        var first = JSONEntryReader(chunks: chunks())
        let problem = first.read { element in
            count += 1
            for m in element.members ?? [] {
                let name = trimmed(m.key)
                guard known.insert(name).inserted else { continue }
                let kept = read.contains(name) || readFolded.contains(name.lowercased()) || named < unknownKeysNamed
                guard kept else { continue }
                if !read.contains(name) { named += 1 }
                position[name] = header.count
                header.append(name)
            }
        }
        switch problem {
        case let .syntax(line, column, expected)?:
            sink.log.add(.error, .jsonSyntax, file: file, line: line, column: column, "not valid JSON: expected \(expected)",
                         hint: "check for a missing comma, bracket or quote near here")
            return
        case let .notUTF8(line, column)?:
            sink.log.add(.error, .encoding, file: file, line: line, column: column, "not valid UTF-8 text", hint: "re-save it as UTF-8")
            return
        case .rootNotArray?:
            sink.log.add(.error, .jsonShape, file: file, line: 1, "the JSON root must be an array of objects like {\"video\": ..., \"label\": ...}")
            return
        case nil:
            break
        }
        guard count > 0 else {
            sink.log.add(.error, .noRows, file: file, line: 1, "no segments: the JSON array is empty",
                         hint: "add one object per segment, such as {\"video\": \"clip.mp4\", \"label\": \"wave\"}")
            return
        }
        sink.header(header)
        let unnamed = known.count - header.count
        if unnamed > 0 {
            sink.log.add(.warning, .unknownColumn, file: file, line: 1,
                         "\(Diagnostic.grouped(unnamed)) more unknown column\(unnamed == 1 ? "" : "s") (keys) \(unnamed == 1 ? "is" : "are") ignored, past the \(named) named",
                         hint: "the columns read are \(columnsRead.map(Diagnostic.quote).joined(separator: ", "))")
        }
        // The second pass must read what the first checked: a file rewritten in between (an editor saving,
        // a sync) could hold a key the header lacks, more or fewer entries, or a cut. That is an error,
        // never a trap or a shorter file.
        var second = JSONEntryReader(chunks: chunks())
        var index = 0, changed = false
        let again = second.read { element in
            index += 1
            guard !changed else { return }
            if index > count { changed = true; return }
            guard let members = element.members else {
                sink.log.add(.error, .jsonShape, file: file, line: element.line, "entry \(index) is not an object")
                return
            }
            var values = [String?](repeating: nil, count: header.count)
            var given = [Bool](repeating: false, count: header.count)
            for (key, value) in members {
                let name = trimmed(key)
                guard let at = position[name] else {
                    if !known.contains(name) { changed = true; return }
                    continue   // a key past those named: nothing reads it
                }
                // A column read given twice in one entry is ambiguous (JSON does not say which counts; one
                // was kept silently), as a column named twice in a CSV header is.
                if given[at] && read.contains(name) {
                    sink.log.add(.error, .duplicateColumn, file: file, line: element.line,
                                 "entry \(index) gives \(Diagnostic.quote(name)) twice",
                                 hint: "remove one: handpose cannot tell which one holds the \(name)")
                    return
                }
                given[at] = true
                switch value {
                case .text(let s): values[at] = trimmed(s)
                // A number as written: a label 7 stays "7" (not "7.0"), and a time's text is parsed as any other.
                case .number(let n): values[at] = n
                case .bool(let b): values[at] = b ? "true" : "false"
                case .null: values[at] = ""
                case .nested:
                    // Only a column read must hold a value; what an ignored key holds is never looked at, so its
                    // shape is no error, whichever of the ignored keys it is.
                    if read.contains(name) {
                        sink.log.add(.error, .jsonShape, file: file, line: element.line, "\(Diagnostic.quote(name)) must be a string or a number")
                    }
                case let .tooLong(head, characters):
                    sink.log.add(.error, .valueTooLong, file: file, line: element.line,
                                 "\(Diagnostic.quote(name)) value \(Diagnostic.quote(head: head, length: characters)) is too long for a path, label or time")
                    return
                }
            }
            sink.entry(RawEntry(line: element.line, values: values, csv: false))
        }
        if changed || again != nil || index != count {
            sink.log.add(.error, .unreadableFile, file: file, "the file changed while it was read (\(count) entries the first time, \(index)\(again == nil ? "" : " and an error") the second)",
                         hint: "read it again once it is no longer being written")
        }
    }
}
