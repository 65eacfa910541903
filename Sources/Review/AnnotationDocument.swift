import Annotations
import Crypto
import FileSystem
import Foundation

/// The annotation file under review: its segments as the page shows them, a version (the SHA-256 of
/// its bytes) that a save must name, and saves that write it in its own format, atomically, with the
/// previous version kept beside it (`FILE.bak`). An actor, so saves run one at a time: of two saves
/// naming one version, the first is written and the second finds the file changed.
public actor AnnotationDocument {
    public let file: URL
    public let format: AnnotationFormat
    let options: AnnotationOptions
    let clips: ReviewFolder

    public init(file: URL, options: AnnotationOptions, clips: ReviewFolder) {
        // A file reached through a symbolic link is saved where it is, not over the link.
        self.file = URL(fileURLWithPath: ReviewFolder.realPath(file.path) ?? file.standardizedFileURL.path)
        format = AnnotationFormat.detect(file)
        self.options = options
        self.clips = clips
    }

    /// A segment as the page sees it: `video` as the file writes it, `clip` the clip it names under the
    /// clips' root (nil when it names none there).
    public struct Row: Codable, Sendable, Equatable {
        public var video: String
        public var clip: String?
        public var label: String
        public var start: Double?
        public var end: Double?

        // Absent values written as null, as the page reads them.
        public func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(video, forKey: .video)
            try c.encode(clip, forKey: .clip)
            try c.encode(label, forKey: .label)
            try c.encode(start, forKey: .start)
            try c.encode(end, forKey: .end)
        }
    }
    /// A finding of `validate`, for the page.
    public struct Finding: Codable, Sendable, Equatable {
        public var severity: String
        public var message: String
        public var line: Int?

        public func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(severity, forKey: .severity)
            try c.encode(message, forKey: .message)
            try c.encode(line, forKey: .line)
        }
    }
    public struct State: Codable, Sendable {
        public var file: String
        public var format: String
        public var version: String
        /// False when a save could lose what the file holds (see `readOnlyReason`).
        public var editable: Bool
        public var readOnlyReason: String?
        public var segments: [Row]
        public var diagnostics: [Finding]
    }
    /// What the page sends to save: the version it loaded and the whole list of segments.
    public struct Edit: Decodable, Sendable {
        public struct Segment: Decodable, Sendable {
            public var video: String
            public var label: String
            public var start: Double?
            public var end: Double?
        }
        public var version: String
        public var segments: [Segment]
    }
    public struct Saved: Codable, Sendable {
        public var version: String
        public var backup: String
        public var diagnostics: [Finding]
    }
    /// Why a save wrote nothing.
    public enum SaveError: Error, Equatable {
        /// The file changed since the page loaded `version`; `current` is its version now.
        case conflict(current: String)
        /// A segment cannot be written (empty label, end not after start, a clip not under the root...).
        case invalid([Finding])
        /// The file cannot be saved from the page without losing what it holds.
        case readOnly(String)
        case unwritable(String)
    }

    /// `validate`'s findings on the file at one version: it opens every clip, so it runs once a version.
    private var checked: (version: String, findings: [Finding])?

    /// The file as it is on disk now, with `validate`'s findings.
    public func state() throws -> State {
        let bytes = try Data(contentsOf: file)
        let version = Self.version(bytes)
        let (set, readOnly) = load()
        if checked?.version != version {
            var all = set
            Validator().check(&all)
            checked = (version, all.diagnostics.map(Self.finding))
        }
        return State(file: file.path, format: format.rawValue, version: version, editable: readOnly == nil,
                     readOnlyReason: readOnly, segments: set.segments.map(row), diagnostics: checked?.findings ?? [])
    }

    /// The segments as the list needs them (no clip opened).
    public func rows() -> [Row] { load().0.segments.map(row) }

    /// Writes `edit` if the file is still at `edit.version`.
    public func save(_ edit: Edit) throws -> Saved {
        let current: Data
        do { current = try Data(contentsOf: file) } catch { throw SaveError.unwritable("\(file.path) cannot be read: \(error.localizedDescription)") }
        let now = Self.version(current)
        guard now == edit.version else { throw SaveError.conflict(current: now) }
        let (set, readOnly) = load()
        if let readOnly { throw SaveError.readOnly(readOnly) }
        let segments = try segments(edit.segments, written: Set(set.segments.map(\.videoPath)))
        let data: Data
        switch format {
        case .createMLCSV: data = Data(AnnotationWriter.csv(segments).utf8)
        case .createMLJSON: data = try AnnotationWriter.json(segments) + Data("\n".utf8)
        case .elan: data = try elan(segments, into: current)
        case .labelStudio: throw SaveError.readOnly(Self.readOnlyLabelStudio)
        }
        // The new file is written beside the old under a hidden name of the same extension and read back
        // by the reader every command uses: what it cannot read, or reads otherwise than the page sent,
        // is not saved. Then it replaces the file by a rename, with the file's permissions.
        let candidate = file.deletingLastPathComponent()
            .appendingPathComponent(".\(file.deletingPathExtension().lastPathComponent).review-\(UUID().uuidString.prefix(8)).\(file.pathExtension)")
        defer { try? FileManager.default.removeItem(at: candidate) }
        do { try data.write(to: candidate) } catch { throw SaveError.unwritable("\(candidate.path): \(error.localizedDescription)") }
        try verify(candidate, holds: segments, previous: current)
        // Changed on disk while this save was made: not overwritten either.
        guard (try? Data(contentsOf: file)).map(Self.version) == now else { throw SaveError.conflict(current: (try? Data(contentsOf: file)).map(Self.version) ?? "") }
        let backup = URL(fileURLWithPath: file.path + ".bak")
        do {
            if let mode = try? FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] {
                try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: candidate.path)
            }
            try AtomicFile.write(current, to: backup)
            try AtomicFile.commit(candidate, to: file)
        } catch {
            throw SaveError.unwritable("\(error)")
        }
        return Saved(version: Self.version(data), backup: backup.path, diagnostics: try state().diagnostics)
    }

    /// Reads `candidate` back: no errors, the segments sent (times to the millisecond), and for ELAN
    /// every other tier as it was in `previous`.
    func verify(_ candidate: URL, holds sent: [Segment], previous: Data) throws {
        var o = options
        if format == .elan, case .success(let target) = AnnotationSource.elanEditTarget(file, options: options) { o.tiers = [target.tier] }
        let back = AnnotationSource.load(annotationFile: candidate, options: o)
        if !back.errors.isEmpty { throw SaveError.invalid(back.errors.map { Self.finding($0, file: candidate) }) }
        // Times in whole milliseconds, as ELAN keeps them; an ELAN file names its clip its own way and
        // keeps its annotations in time order.
        func key(_ s: Segment) -> [String] {
            [format == .elan ? "" : s.videoPath, s.label, s.start.map { "\(Int64(($0 * 1000).rounded()))" } ?? "-", s.end.map { "\(Int64(($0 * 1000).rounded()))" } ?? "-"]
        }
        var got = back.segments.map(key), want = sent.map(key)
        if format == .elan {
            got.sort { ($0[2].count, $0[2], $0[3].count, $0[3], $0[1]) < ($1[2].count, $1[2], $1[3].count, $1[3], $1[1]) }
            want.sort { ($0[2].count, $0[2], $0[3].count, $0[3], $0[1]) < ($1[2].count, $1[2], $1[3].count, $1[3], $1[1]) }
        }
        guard got == want else {
            throw SaveError.invalid([Finding(severity: "error", message: "the file written would read back otherwise than the page sent (\(got.count) segments for \(want.count)); nothing was saved", line: nil)])
        }
        guard format == .elan, let target = o.tiers.first else { return }
        // Every other tier, read from the old file and the new one, must give the same segments.
        let others = { (url: URL) -> [[String]] in
            var all = self.options
            all.tiers = ["*"]
            return AnnotationSource.load(annotationFile: url, options: all).segments
                .filter { !($0.contextGroup ?? "").hasPrefix("tier \(Diagnostic.quote(target)),") }
                .map { [$0.contextGroup ?? "", $0.contextItem ?? ""] + key($0) }
        }
        let previousFile = candidate.deletingLastPathComponent().appendingPathComponent("." + candidate.lastPathComponent + ".previous.eaf")
        defer { try? FileManager.default.removeItem(at: previousFile) }
        try? previous.write(to: previousFile)
        guard others(previousFile) == others(candidate) else {
            throw SaveError.invalid([Finding(severity: "error", message: "writing tier \(Diagnostic.quote(target)) would change other tiers of this file; nothing was saved", line: nil)])
        }
    }

    /// The ELAN file `current` with its tier's annotations replaced by `segments` (all of its one clip,
    /// each with a start and an end), everything else in it kept.
    func elan(_ segments: [Segment], into current: Data) throws -> Data {
        let target: ElanTierEdit.Target
        switch AnnotationSource.elanEditTarget(file, options: options) {
        case .success(let t): target = t
        case .failure(let why): throw SaveError.readOnly("this ELAN file cannot be saved from its segments: \(why)")
        }
        let base = file.deletingLastPathComponent()
        var problems: [Finding] = []
        var annotations: [ElanTierEdit.Annotation] = []
        for (k, s) in segments.enumerated() {
            let clip = ReviewFolder.realPath(base.appendingPathComponent(s.videoPath).path)
            guard clip == ReviewFolder.realPath(target.clip) else {
                problems.append(Finding(severity: "error", message: "segment \(k + 1): an ELAN file holds one clip's annotations (\(target.clip)), not \(Diagnostic.quote(s.videoPath))'s", line: nil))
                continue
            }
            guard let start = s.start, let end = s.end else {
                problems.append(Finding(severity: "error", message: "segment \(k + 1): an ELAN annotation needs a start and an end", line: nil))
                continue
            }
            annotations.append(ElanTierEdit.Annotation(value: s.label, start: Int64((start * 1000).rounded()) - target.origin,
                                                       end: Int64((end * 1000).rounded()) - target.origin))
        }
        if !problems.isEmpty { throw SaveError.invalid(problems) }
        guard let text = String(validating: current, as: UTF8.self) else {
            throw SaveError.readOnly("this ELAN file is not UTF-8 text; handpose saves ELAN files as UTF-8 only")
        }
        do {
            return Data(try ElanTierEdit.replacing(tier: target.tier, in: text, with: annotations).utf8)
        } catch let refusal as ElanTierEdit.Refusal {
            throw SaveError.invalid([Finding(severity: "error", message: refusal.description, line: nil)])
        }
    }

    /// The file's segments, and why it must not be saved from the page (nil: it may be).
    func load() -> (AnnotationSet, String?) {
        let set = AnnotationSource.load(annotationFile: file, options: options)
        if format == .labelStudio { return (set, Self.readOnlyLabelStudio) }
        if !options.labelMap.isEmpty {
            return (set, "--label-map renames or drops labels as the file is read, and a save would write them so; review without --label-map to edit")
        }
        // A row the reader could not take is not in the list the page edits: saving would drop it.
        if let e = set.errors.first {
            return (set, "the file has \(format == .elan ? "annotations" : "rows") handpose cannot read (\(e.location): \(e.message)); fix them in the file, then reload")
        }
        if format == .elan {
            switch AnnotationSource.elanEditTarget(file, options: options) {
            case .failure(let why): return (set, "this ELAN file is shown, not saved: \(why)")
            case .success(let target):
                // What a save would refuse is said now: the tier rewritten with nothing, as a trial.
                guard let text = (try? Data(contentsOf: file)).flatMap({ String(validating: $0, as: UTF8.self) }) else {
                    return (set, "this ELAN file is not UTF-8 text; handpose saves ELAN files as UTF-8 only")
                }
                do { _ = try ElanTierEdit.replacing(tier: target.tier, in: text, with: []) } catch {
                    return (set, "this ELAN file is shown, not saved: \(error)")
                }
            }
        }
        if let w = set.warnings.first(where: { $0.kind == .unknownColumn }) {
            return (set, "the file has columns handpose does not read (\(w.message)); saving would drop them")
        }
        return (set, nil)
    }

    /// The segments to write: labels and times checked, each video as the file names it (a path it
    /// already holds, or a clip's path under the root, written from the file's folder).
    func segments(_ rows: [Edit.Segment], written: Set<String>) throws -> [Segment] {
        var problems: [Finding] = []
        var out: [Segment] = []
        let base = ReviewFolder(file.deletingLastPathComponent())
        for (k, r) in rows.enumerated() {
            let at = "segment \(k + 1)"
            let label = r.label.trimmingCharacters(in: .whitespacesAndNewlines)
            if label.isEmpty { problems.append(Finding(severity: "error", message: "\(at): empty label", line: nil)) }
            if label.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F || $0.value == 0xFFFE || $0.value == 0xFFFF }) {
                problems.append(Finding(severity: "error", message: "\(at): the label holds a control character", line: nil))
            }
            for (name, t) in [("start", r.start), ("end", r.end)] {
                if let t, !(t.isFinite && t >= 0) { problems.append(Finding(severity: "error", message: "\(at): \(name) \(t) is not a time", line: nil)) }
            }
            if let s = r.start, let e = r.end, !(s < e) {
                problems.append(Finding(severity: "error", message: "\(at): start \(s) is not before end \(e)", line: nil))
            }
            var video = r.video
            if !written.contains(video) {
                // A clip the file does not name yet: its path under the root, as the file's folder reaches it.
                guard let clip = try? clips.file(video), let fromFile = base.relative(clips.url.appendingPathComponent(video).path),
                      (try? base.file(fromFile)) == clip else {
                    problems.append(Finding(severity: "error", message: "\(at): \(Diagnostic.quote(video)) names no clip under \(clips.url.path) that \(file.lastPathComponent)'s folder reaches", line: nil))
                    continue
                }
                video = fromFile
            }
            out.append(Segment(videoFile: video, videoPath: video, label: label, start: r.start, end: r.end, source: file.path, line: nil))
        }
        if !problems.isEmpty { throw SaveError.invalid(problems) }
        return out
    }

    func row(_ s: Segment) -> Row {
        Row(video: s.videoPath, clip: clips.relative(s.videoFile), label: s.label, start: s.start, end: s.end)
    }

    static func finding(_ d: Diagnostic) -> Finding {
        Finding(severity: d.severity.rawValue, message: d.message + (d.hint.map { " (\($0))" } ?? ""), line: d.line)
    }

    /// A finding on the file a save would write, said as such.
    static func finding(_ d: Diagnostic, file candidate: URL) -> Finding {
        Finding(severity: d.severity.rawValue, message: "the file as it would be saved: " + d.message, line: d.line)
    }

    static let readOnlyLabelStudio = "Label Studio exports are shown, not saved, here: writing one back from its segments would drop what " +
        "handpose does not read (other annotators' results, other tasks' data, predictions); edit it in Label Studio, or convert it to CSV " +
        "with `handpose annotations convert` and review that"

    static func version(_ data: Data) -> String {
        SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }
}
