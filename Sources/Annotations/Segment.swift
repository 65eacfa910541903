import Foundation

/// A labelled stretch of a clip: Create ML's hand action unit. `start`/`end` nil mean the clip's start/end.
public struct Segment: Equatable, Sendable, Codable {
    /// The clip's absolute path. Kept as text: a Foundation URL costs about 400 bytes on Linux, which
    /// a million rows naming a million clips cannot afford.
    public var videoFile: String
    /// The clip.
    public var video: URL {
        get { URL(fileURLWithPath: videoFile, isDirectory: false) }
        set { videoFile = newValue.path }
    }
    /// The clip's name, as the annotation file names it with `.`, `..` and doubled slashes resolved
    /// (`./clip.mp4` and `clip.mp4` are one clip): relative to the annotation root, or absolute where the file
    /// gives an absolute path.
    public var videoPath: String
    public var label: String
    public var start: Double?
    public var end: Double?
    /// Where it was declared: annotation file and 1-based line (nil for labelled folders).
    public var source: String
    public var line: Int?
    /// Where in the source, besides the line, for files whose lines do not say it all ("tier 'RH',
    /// annotation a12"; "task 3 (id 42), annotation 7, result r1"): a part shared by many segments (one
    /// string for a whole tier, "tier 'RH', annotation") and a short part of the segment's own ("a12",
    /// held inline), joined by a space, so a million segments from one ELAN file do not hold a million
    /// messages. Not encoded.
    public var contextGroup: String?
    public var contextItem: String?
    public var context: String? {
        switch (contextGroup, contextItem) {
        case let (g?, i?): return "\(g) \(i)"
        case let (g?, nil): return g
        case let (nil, i?): return i
        default: return nil
        }
    }

    public init(video: URL, videoPath: String, label: String, start: Double?, end: Double?, source: String, line: Int?) {
        self.init(videoFile: video.path, videoPath: videoPath, label: label, start: start, end: end, source: source, line: line)
    }

    public init(videoFile: String, videoPath: String, label: String, start: Double?, end: Double?, source: String, line: Int?) {
        self.videoFile = videoFile
        self.videoPath = videoPath
        self.label = label
        self.start = start
        self.end = end
        self.source = source
        self.line = line
    }

    // Encoded as before the path was kept as text: `video` is a URL.
    enum CodingKeys: String, CodingKey { case video, videoPath, label, start, end, source, line }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(video: try c.decode(URL.self, forKey: .video), videoPath: try c.decode(String.self, forKey: .videoPath),
                  label: try c.decode(String.self, forKey: .label), start: try c.decodeIfPresent(Double.self, forKey: .start),
                  end: try c.decodeIfPresent(Double.self, forKey: .end), source: try c.decode(String.self, forKey: .source),
                  line: try c.decodeIfPresent(Int.self, forKey: .line))
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(video, forKey: .video)
        try c.encode(videoPath, forKey: .videoPath)
        try c.encode(label, forKey: .label)
        try c.encodeIfPresent(start, forKey: .start)
        try c.encodeIfPresent(end, forKey: .end)
        try c.encode(source, forKey: .source)
        try c.encodeIfPresent(line, forKey: .line)
    }
}

/// A labelled still image: Create ML's hand pose unit.
public struct PoseSample: Equatable, Sendable, Codable {
    public var image: URL
    public var label: String
    public init(image: URL, label: String) { self.image = image; self.label = label }
}

/// What an annotation source yields: segments or pose samples, the classes in sorted order,
/// and everything found wrong or doubtful on the way.
public struct AnnotationSet: Sendable {
    public var segments: [Segment] = []
    public var poses: [PoseSample] = []
    /// Every finding, counted; the first `log.limit` of each kind kept.
    public var log: DiagnosticLog

    /// An empty set whose log keeps `maxDiagnosticsPerKind` findings of each kind (0: all).
    public init(maxDiagnosticsPerKind: Int = 0) { log = DiagnosticLog(limit: maxDiagnosticsPerKind) }

    /// The findings kept (all of them unless the log has a limit).
    public var diagnostics: [Diagnostic] { log.kept }
    public var classes: [String] {
        var labels = Set<String>()
        for s in segments { labels.insert(s.label) }
        for p in poses { labels.insert(p.label) }
        return labels.sorted()
    }
    /// The errors and warnings kept; `errorCount` and `warningCount` count every one.
    public var errors: [Diagnostic] { diagnostics.filter { $0.severity == .error } }
    public var warnings: [Diagnostic] { diagnostics.filter { $0.severity == .warning } }
    public var errorCount: Int { log.errorCount }
    public var warningCount: Int { log.warningCount }
}
