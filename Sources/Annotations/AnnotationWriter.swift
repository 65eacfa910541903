import Foundation

/// Writes segments back as Create ML annotation files (CSV with RFC 4180 quoting, or JSON).
public enum AnnotationWriter {
    static func quoted(_ field: String) -> String {
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) || field != field.trimmingCharacters(in: .whitespaces) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `video,label,start,end` (times in seconds; empty where a segment has none).
    public static func csv(_ segments: [Segment]) -> String {
        var out = "video,label,start,end\n"
        for s in segments {
            out += [s.videoPath, s.label, s.start.map { "\($0)" } ?? "", s.end.map { "\($0)" } ?? ""].map(quoted).joined(separator: ",") + "\n"
        }
        return out
    }

    public static func json(_ segments: [Segment]) throws -> Data {
        let rows: [[String: Any]] = segments.map { s in
            var o: [String: Any] = ["video": s.videoPath, "label": s.label]
            if let v = s.start { o["start"] = v }
            if let v = s.end { o["end"] = v }
            return o
        }
        return try JSONSerialization.data(withJSONObject: rows, options: [.prettyPrinted, .sortedKeys])
    }
}
