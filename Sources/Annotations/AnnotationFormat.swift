import FileSystem
import Foundation

/// The annotation file formats handpose reads and writes.
public enum AnnotationFormat: String, CaseIterable, Sendable {
    /// Create ML's CSV: `video,label,start,end`.
    case createMLCSV = "csv"
    /// Create ML's JSON: an array of `{"video", "label", "start", "end"}` objects.
    case createMLJSON = "json"
    /// ELAN's `.eaf` (EAF 2.7 to 3.0): tiers of time-aligned annotations, times in milliseconds.
    case elan = "eaf"
    /// Label Studio's JSON export of a video project with `TimelineLabels`: tasks, ranges in frames.
    case labelStudio = "label-studio"

    /// The format of the file at `url`, from its first bytes (not its name): XML whose root is
    /// `ANNOTATION_DOCUMENT` is ELAN; JSON holding tasks (`"annotations"`, `"predictions"` or `"data"`
    /// objects) is Label Studio; other JSON is Create ML's; anything else is read as CSV.
    public static func detect(_ url: URL) -> AnnotationFormat {
        // Never opened unless it is a regular file (a FIFO would block here): the reader then says why.
        guard let handle = RegularFile.handle(url.path) else {
            switch url.pathExtension.lowercased() {
            case "json": return .createMLJSON
            case "eaf": return .elan
            default: return .createMLCSV
            }
        }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 8192)) ?? Data()
        return detect(head: head, name: url.lastPathComponent)
    }

    static func detect(head: Data, name: String) -> AnnotationFormat {
        let text = String(decoding: head.starts(with: [0xEF, 0xBB, 0xBF]) ? head.dropFirst(3) : head[...], as: UTF8.self)
        let start = text.drop { $0.isWhitespace || $0.isNewline }
        if start.hasPrefix("<") {
            // XML, whatever its root: a long DOCTYPE can push the root past the bytes read, and no CSV
            // starts with a tag. The ELAN reader names a root that is not ANNOTATION_DOCUMENT.
            return text.contains("<ANNOTATION_DOCUMENT") || start.hasPrefix("<?xml") || start.hasPrefix("<!") || name.lowercased().hasSuffix(".eaf")
                ? .elan : .createMLCSV
        }
        if start.hasPrefix("[") || start.hasPrefix("{") {
            // Keys of a task, each followed by its value's opening bracket: a label or path that says
            // "data" does not make a Create ML file a Label Studio one.
            let compact = text.filter { !$0.isWhitespace && !$0.isNewline }
            for key in ["\"annotations\":[", "\"predictions\":[", "\"data\":{"] where compact.contains(key) { return .labelStudio }
            return .createMLJSON
        }
        return name.lowercased().hasSuffix(".json") ? .createMLJSON : .createMLCSV
    }
}

/// What an ELAN or Label Studio file needs besides itself: which tiers hold the labels, how labels
/// map to classes, where the clips are, and Label Studio's frame rate. Create ML files ignore it.
public struct AnnotationOptions: Sendable {
    /// ELAN tiers to read, by name or glob (`*`, `?`, `[...]`); empty: the only tier with annotations.
    public var tiers: [String] = []
    /// Label to class; a label mapped to "" is dropped. Labels not named keep their text.
    public var labelMap: [String: String] = [:]
    /// Where a clip is looked for by its name when the file's own paths do not lead to it (default:
    /// the annotation root).
    public var mediaRoot: URL?
    /// Label Studio: the project's labeling configuration (its `<Video frameRate=...>`).
    public var labelConfig: URL?
    /// Label Studio: the frame rate the project declared, when no labeling config says it.
    public var frameRate: Double?
    public init() {}

    /// `old=new` pairs and `FILE`s of such lines (`#` comments; `old=` drops `old`) as one map.
    public static func labelMap(_ items: [String]) throws -> [String: String] {
        var map: [String: String] = [:]
        func add(_ pair: Substring, where place: String) throws {
            guard let eq = pair.firstIndex(of: "=") else {
                throw AnnotationOptionError("\(place): '\(pair)' is not old=new (old= drops the label)")
            }
            let old = pair[..<eq].trimmingCharacters(in: .whitespaces), new = pair[pair.index(after: eq)...].trimmingCharacters(in: .whitespaces)
            guard !old.isEmpty else { throw AnnotationOptionError("\(place): '\(pair)' names no label before '='") }
            // A label holding a control character matches no label any reader keeps (LabelText), and one
            // left in a class would be written into every file: either is a mistake in the map.
            for (side, text) in [("label", old), ("class", new)] {
                if let bad = text.unicodeScalars.first(where: LabelText.isForbidden) {
                    throw AnnotationOptionError("\(place): the \(side) \(Diagnostic.quote(text)) holds \(LabelText.name(bad)) (U+\(String(bad.value, radix: 16, uppercase: true))), which no label may hold")
                }
            }
            map[old] = new
        }
        for item in items {
            if !item.contains("=") || FileManager.default.fileExists(atPath: item) {
                guard let data = try? RegularFile.read(item), String(data: data, encoding: .utf8) != nil else {
                    throw AnnotationOptionError("--label-map \(item): " + (RegularFile.isSpecial(item) ? RegularFile.problem(item)! : "no such file, and not an old=new pair"))
                }
                // Split on LF bytes, each line without the CR before it: split on the Character "\n", a file saved
                // with CR LF line ends (Windows editors) was one line, since "\r\n" is one Character.
                let body = data.starts(with: [0xEF, 0xBB, 0xBF]) ? data.dropFirst(3) : data
                for (n, raw) in body.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
                    let line = raw.last == 0x0D ? raw.dropLast() : raw
                    let t = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespaces)
                    if t.isEmpty || t.hasPrefix("#") { continue }
                    try add(Substring(t), where: "\(item):\(n + 1)")
                }
            } else {
                try add(Substring(item), where: "--label-map")
            }
        }
        return map
    }
}

/// A bad `--label-map`, `--label-config` or the like: a usage error, said in one sentence.
public struct AnnotationOptionError: Error, CustomStringConvertible {
    public var description: String
    init(_ d: String) { description = d }
}
