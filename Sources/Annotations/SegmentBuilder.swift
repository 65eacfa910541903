import FileSystem
import Foundation

/// Checks the entries of one annotation file as they are read and turns the good ones into segments.
/// Holds per row only what the result needs: paths and labels repeated on many rows are stored once.
struct SegmentBuilder: AnnotationEntrySink {
    let file: String
    /// The folder video paths are relative to.
    let basePath: String
    let columns: AnnotationColumns
    var log: DiagnosticLog
    private(set) var segments: [Segment] = []

    private var header: [String] = []
    /// Header positions of the four columns; video and label are required.
    private var video: Int?, label: Int?, start: Int?, end: Int?
    private var usable = false
    /// start/end are all or nothing: rows giving each, and the rows missing it.
    private var given = [0, 0]
    private var missing: [[Int]] = [[], []]
    private var csv = true
    /// Resolved paths (by their bytes: `PathKey`) and labels already seen. Bounded: a file naming a million
    /// different clips gains nothing from remembering them, and must not pay for it.
    private var paths: [PathKey: (text: String, file: String?)] = [:]
    private var labels: [String: String] = [:]
    static let cacheLimit = 4096

    init(file: String, base: URL, columns: AnnotationColumns, log: DiagnosticLog) {
        self.file = file
        basePath = base.path
        self.columns = columns
        self.log = log
    }

    mutating func header(_ names: [String]) {
        header = names
        for required in [columns.video, columns.label] where !names.contains(required) {
            log.add(.error, .missingColumn, file: file, line: 1, "missing required column \(Diagnostic.quote(required))",
                    hint: "the header must name \(Diagnostic.quote(columns.video)) and \(Diagnostic.quote(columns.label))" +
                        (names.isEmpty ? "" : "; found \(names.prefix(10).map(Diagnostic.quote).joined(separator: ", "))" +
                            (names.count > 10 ? " and \(names.count - 10) more" : "")))
        }
        for name in names where !columns.all.contains(name) {
            let close = columns.all.first { $0.lowercased() == name.lowercased() }
            log.add(.warning, .unknownColumn, file: file, line: 1, "unknown column \(Diagnostic.quote(name)) is ignored",
                    hint: close.map { "column names are case-sensitive: did you mean '\($0)'?" })
        }
        // A column read (video, label, start, end) named twice is ambiguous; repeats of others, and empty
        // names (a spreadsheet's trailing commas), are left to the unknown-column warning.
        var seen: [String: Int] = [:]
        for (k, name) in names.enumerated() where columns.all.contains(name) {
            if let first = seen[name] {
                log.add(.error, .duplicateColumn, file: file, line: 1, column: k + 1,
                        "column \(Diagnostic.quote(name)) is named twice (columns \(first + 1) and \(k + 1))",
                        hint: "rename or remove one: handpose cannot tell which one holds the \(name)")
                usable = false
            } else {
                seen[name] = k
            }
        }
        guard !names.indices.contains(where: { columns.all.contains(names[$0]) && seen[names[$0]] != $0 }) else { return }
        video = names.firstIndex(of: columns.video)
        label = names.firstIndex(of: columns.label)
        start = names.firstIndex(of: columns.start)
        end = names.firstIndex(of: columns.end)
        usable = video != nil && label != nil
    }

    mutating func entry(_ e: RawEntry) {
        guard usable, let videoIndex = video, let labelIndex = label else { return }
        let videoText = e.values[videoIndex] ?? "", labelText = e.values[labelIndex] ?? ""
        csv = e.csv
        for (k, index) in [start, end].enumerated() {
            guard let index else { continue }
            if (e.values[index] ?? "").isEmpty { missing[k].append(e.line) } else { given[k] += 1 }
        }
        var ok = true
        if videoText.isEmpty {
            log.add(.error, .emptyVideo, file: file, line: e.line, column: e.field(videoIndex), "empty video")
            ok = false
        }
        if labelText.isEmpty {
            log.add(.error, .emptyLabel, file: file, line: e.line, column: e.field(labelIndex), "empty label")
            ok = false
        } else if let problem = LabelText.problem(labelText) {
            log.add(.error, .badLabel, file: file, line: e.line, column: e.field(labelIndex), problem,
                    hint: "labels are one line of text without control characters")
            ok = false
        }
        let startTime = time(e, start, name: columns.start, ok: &ok), endTime = time(e, end, name: columns.end, ok: &ok)
        if let s = startTime, let t = endTime, s >= t {
            log.add(.error, .startNotBeforeEnd, file: file, line: e.line, column: end.flatMap(e.field),
                    "start \(format(s)) is not before end \(format(t))", hint: "swap them, or fix the typo")
            ok = false
        }
        guard ok else { return }
        let path = resolved(videoText)
        guard let videoFile = path.file else {
            log.add(.error, .outsideRoot, file: file, line: e.line, column: e.field(videoIndex),
                    "\(Diagnostic.quote(videoText)) points outside the video folder \(basePath)",
                    hint: "paths are relative to the annotation file's folder (or --root); '..' and absolute paths elsewhere are refused")
            return
        }
        segments.append(Segment(videoFile: videoFile, videoPath: path.text, label: interned(labelText), start: startTime, end: endTime, source: file, line: e.line))
    }

    /// The time in column `index`, nil when absent; reports what is wrong with it.
    private mutating func time(_ e: RawEntry, _ index: Int?, name: String, ok: inout Bool) -> Double? {
        guard let index, let text = e.values[index], !text.isEmpty else { return nil }
        // A JSON number is a time as written (1.5e2 too: the JSON reader checked its grammar); CSV keeps
        // Create ML's forms only.
        let jsonNumber = !e.csv && text.first.map { $0 == "-" || $0.isASCII && $0.isNumber } == true && text.allSatisfy { $0.isASCII && ($0.isNumber || "-+.eE".contains($0)) }
        guard let t = TimeValue.parse(text) ?? (jsonNumber ? Double(text) : nil) else {
            log.add(.error, .badTime, file: file, line: e.line, column: e.field(index), "cannot read \(Diagnostic.quote(text)) as a time",
                    hint: "write seconds (3 or 3.14), MM:SS, MM:SS.ff or H:MM:SS")
            ok = false
            return nil
        }
        if t < 0 {
            log.add(.error, .negativeTime, file: file, line: e.line, column: e.field(index), "\(name) is negative (\(Diagnostic.elided(text)))")
            ok = false
            return nil
        }
        guard t.isFinite, InputRange.seconds.contains(t) else {
            log.add(.error, .badTime, file: file, line: e.line, column: e.field(index),
                    "\(name) \(Diagnostic.elided(text)) is beyond any clip (more than \(Int(InputRange.seconds.upperBound)) s, about 116 days)",
                    hint: "times are seconds from the clip's start: check for a typo or a value in milliseconds")
            ok = false
            return nil
        }
        return t
    }

    /// The clip `text` names: its absolute path, and its name. A relative path is named by the path under the
    /// base folder with `.`, `..` and doubled slashes resolved, as the ELAN and Label Studio readers name a clip;
    /// an absolute one by the same resolved absolute path (kept absolute, so that converting or saving the file
    /// writes it as the file had it). So `./clip.mp4`, `clip.mp4` and `sub/../clip.mp4` on three rows are one clip:
    /// one keypoint file, one part of a split, where three names had put it in train and test both. Nil file
    /// (and the text as written, for the message) when the path leads outside the base folder.
    private mutating func resolved(_ text: String) -> (text: String, file: String?) {
        if let known = paths[PathKey(text)] { return known }
        if paths.count >= Self.cacheLimit { paths.removeAll(keepingCapacity: true) }
        let file = AnnotationSource.resolve(text, basePath: basePath)
        let base = basePath.utf8.last == UInt8(ascii: "/") ? basePath.utf8.count : basePath.utf8.count + 1
        let name = file.map { text.utf8.first == UInt8(ascii: "/") ? $0 : String(decoding: $0.utf8.dropFirst(base), as: UTF8.self) }
        let r = (name ?? text, file)
        paths[PathKey(text)] = r
        return r
    }

    private mutating func interned(_ label: String) -> String {
        if let known = labels[label] { return known }
        if labels.count >= Self.cacheLimit { labels.removeAll(keepingCapacity: true) }
        labels[label] = label
        return label
    }

    /// The checks that need every row: reports rows missing a start or end that others give.
    mutating func finish() {
        for (k, (name, index)) in [(columns.start, start), (columns.end, end)].enumerated() where given[k] > 0 {
            let field = csv ? index.map { $0 + 1 } : nil
            for line in missing[k] {
                log.add(.error, .partialTimes, file: file, line: line, column: field,
                        "\(Diagnostic.quote(name)) is missing here but given on other rows",
                        hint: "give '\(name)' on every row, or on none (then the clip's \(k == 0 ? "start" : "end") is used)")
            }
        }
        missing = [[], []]
    }
}
