import FileSystem
import Foundation

/// Writes one clip's segments as an ELAN file (EAF 3.0, as ELAN 6 saves it): the clip linked by
/// RELATIVE_MEDIA_URL (from the .eaf's folder) and MEDIA_URL (absolute `file:` URL), one time slot per
/// segment end in time order, integer milliseconds, every label an annotation on the tier `labels`;
/// segments that overlap go to further tiers (`labels-2`, ...), since a tier holds one label at a time.
public enum ElanWriter {
    /// The document for `segments` (all of one clip, each with a start and an end) saved at `eaf`.
    public static func document(_ segments: [Segment], clip: String, savedAt eaf: URL, author: String = "handpose",
                                date: Date = Date()) -> String {
        let sorted = segments.sorted { ($0.start ?? 0, $0.end ?? 0, $0.label) < ($1.start ?? 0, $1.end ?? 0, $1.label) }
        // Interval partitioning: each segment on the first tier whose last segment has ended.
        var tierEnds: [Int64] = []
        var placed: [(tier: Int, start: Int64, end: Int64, label: String)] = []
        for s in sorted {
            let a = milliseconds(s.start ?? 0), b = milliseconds(s.end ?? 0)
            let tier = tierEnds.firstIndex { $0 <= a } ?? tierEnds.count
            if tier == tierEnds.count { tierEnds.append(b) } else { tierEnds[tier] = b }
            placed.append((tier, a, b, s.label))
        }
        // Slots in time order; slot k is the k-th time of the sorted list of every begin and end.
        var times = placed.flatMap { [($0.start, 0), ($0.end, 1)] }.enumerated().map { (index: $0.offset, time: $0.element.0) }
        times.sort { ($0.time, $0.index) < ($1.time, $1.index) }
        var slotOf = [Int](repeating: 0, count: times.count)
        for (k, t) in times.enumerated() { slotOf[t.index] = k + 1 }

        var x = """
        <?xml version="1.0" encoding="UTF-8"?>
        <ANNOTATION_DOCUMENT AUTHOR="\(escape(author, attribute: true))" DATE="\(iso8601(date))" FORMAT="3.0" VERSION="3.0" \
        xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:noNamespaceSchemaLocation="http://www.mpi.nl/tools/elan/EAFv3.0.xsd">
            <HEADER MEDIA_FILE="" TIME_UNITS="milliseconds">
                <MEDIA_DESCRIPTOR MEDIA_URL="\(escape(fileURL(clip), attribute: true))" MIME_TYPE="\(mimeType(clip))" RELATIVE_MEDIA_URL="\(escape(relative(clip, from: eaf.deletingLastPathComponent().path), attribute: true))"/>
                <PROPERTY NAME="lastUsedAnnotationId">\(placed.count)</PROPERTY>
            </HEADER>
            <TIME_ORDER>

        """
        for (k, t) in times.enumerated() { x += "        <TIME_SLOT TIME_SLOT_ID=\"ts\(k + 1)\" TIME_VALUE=\"\(t.time)\"/>\n" }
        x += "    </TIME_ORDER>\n"
        for tier in 0..<max(1, tierEnds.count) {
            x += "    <TIER LINGUISTIC_TYPE_REF=\"default-lt\" TIER_ID=\"\(tier == 0 ? labelTier : "\(labelTier)-\(tier + 1)")\">\n"
            for (n, p) in placed.enumerated() where p.tier == tier {
                x += """
                        <ANNOTATION>
                            <ALIGNABLE_ANNOTATION ANNOTATION_ID="a\(n + 1)" TIME_SLOT_REF1="ts\(slotOf[2 * n])" TIME_SLOT_REF2="ts\(slotOf[2 * n + 1])">
                                <ANNOTATION_VALUE>\(escape(p.label))</ANNOTATION_VALUE>
                            </ALIGNABLE_ANNOTATION>
                        </ANNOTATION>

                """
            }
            x += "    </TIER>\n"
        }
        x += """
            <LINGUISTIC_TYPE GRAPHIC_REFERENCES="false" LINGUISTIC_TYPE_ID="default-lt" TIME_ALIGNABLE="true"/>
            <CONSTRAINT DESCRIPTION="Time subdivision of parent annotation's time interval, no time gaps allowed within this interval" STEREOTYPE="Time_Subdivision"/>
            <CONSTRAINT DESCRIPTION="Symbolic subdivision of a parent annotation. Annotations refering to the same parent are ordered" STEREOTYPE="Symbolic_Subdivision"/>
            <CONSTRAINT DESCRIPTION="1-1 association with a parent annotation" STEREOTYPE="Symbolic_Association"/>
            <CONSTRAINT DESCRIPTION="Time alignable annotations within the parent annotation's time interval, gaps are allowed" STEREOTYPE="Included_In"/>
        </ANNOTATION_DOCUMENT>

        """
        return x
    }

    /// The tier labels are written on; overlapping segments go to `labels-2`, `labels-3`, ...
    public static let labelTier = "labels"
    /// Whether `id` is one of the tiers this writer puts labels on (which the reader reads together).
    public static func isLabelTier(_ id: String) -> Bool {
        if id == labelTier { return true }
        guard id.hasPrefix(labelTier + "-"), let n = Int(id.dropFirst(labelTier.count + 1)) else { return false }
        return n >= 2 && "\(n)" == id.dropFirst(labelTier.count + 1)
    }

    /// Seconds to ELAN's whole milliseconds, rounded. Segments reach writers checked (`InputRange.seconds`);
    /// a time outside that range is clamped to it here rather than trapping.
    static func milliseconds(_ seconds: Double) -> Int64 {
        InputRange.milliseconds(seconds) ?? (seconds > 0 ? InputRange.milliseconds(InputRange.seconds.upperBound)! : 0)
    }

    /// XML's five; in an attribute (`attribute`) also newline, tab and carriage return as character references,
    /// which XML readers would otherwise turn into spaces (a clip named with a newline would not be found again).
    static func escape(_ s: String, attribute: Bool = false) -> String {
        var out = ""
        for c in s.unicodeScalars {
            switch c {
            case "\n" where attribute: out += "&#10;"
            case "\t" where attribute: out += "&#9;"
            case "\r" where attribute: out += "&#13;"
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    static func fileURL(_ path: String) -> String {
        "file://" + (path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path)
    }

    /// `./clip.mp4` or `../clips/clip.mp4`: `path` from the folder `base`.
    static func relative(_ path: String, from base: String) -> String {
        let p = URL(fileURLWithPath: path).standardizedFileURL.pathComponents, b = URL(fileURLWithPath: base).standardizedFileURL.pathComponents
        var common = 0
        while common < min(p.count, b.count) && p[common] == b[common] { common += 1 }
        let up = Array(repeating: "..", count: b.count - common)
        let rest = Array(p[common...])
        return (up.isEmpty ? ["."] : up).joined(separator: "/") + "/" + rest.joined(separator: "/")
    }

    static func mimeType(_ path: String) -> String {
        switch (path as NSString).pathExtension.lowercased() {
        case "mp4", "m4v": return "video/mp4"
        case "mov": return "video/quicktime"
        case "avi": return "video/x-msvideo"
        case "mpg", "mpeg": return "video/mpeg"
        case "webm": return "video/webm"
        case "mkv": return "video/x-matroska"
        default: return "video/*"
        }
    }

    /// ELAN's date form: local time with its zone (2026-11-25T13:00:00+00:00).
    static func iso8601(_ date: Date) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withColonSeparatorInTimeZone]
        f.timeZone = TimeZone(secondsFromGMT: 0)
        return f.string(from: date).replacingOccurrences(of: "Z", with: "+00:00")
    }
}
