import Foundation

/// A labelled stretch of a clip: Create ML's hand action unit. `start`/`end` nil mean the clip's start/end.
public struct Segment: Equatable, Sendable, Codable {
    public var video: URL
    /// The video as written in the annotation file.
    public var videoPath: String
    public var label: String
    public var start: Double?
    public var end: Double?
    /// Where it was declared: annotation file and 1-based line (nil for labelled folders).
    public var source: String
    public var line: Int?

    public init(video: URL, videoPath: String, label: String, start: Double?, end: Double?, source: String, line: Int?) {
        self.video = video
        self.videoPath = videoPath
        self.label = label
        self.start = start
        self.end = end
        self.source = source
        self.line = line
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
