import Annotations
import Crypto
import FileSystem
import Foundation

/// The annotation file under review: its segments as the page shows them, a version (the SHA-256 of
/// its bytes) that a save must name, and saves that write it in its own format, atomically, with the
/// previous version kept beside it (`FILE.bak`). An actor, so saves run one at a time: of two saves
/// naming one version, the first is written and the second finds the file changed. The file is read
/// only while it is a regular file (a FIFO put in its place would hold the actor, and every request
/// after, forever); the saved file and its backup keep its owner, group and permissions.
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
    /// What the page sends to save (`SaveRequest`, decoded and checked there).
    public typealias Edit = SaveRequest
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

    /// Why the annotation file cannot be read now (moved away, replaced by a FIFO, unreadable).
    public struct Unreadable: Error, CustomStringConvertible {
        public enum Kind: Sendable { case missing, notRegular, other }
        public var kind: Kind
        public var description: String
    }

    /// `validate`'s findings on the file at one version: it opens every clip, so it runs once a version.
    private var checked: (version: String, findings: [Finding])?

    /// The file as it is on disk now, with `validate`'s findings.
    public func state() throws -> State {
        let version = Self.version(try bytes())
        let (set, readOnly) = try load()
        if checked?.version != version {
            var all = set
            Validator().check(&all)
            checked = (version, all.diagnostics.map(finding))
        }
        return State(file: file.path, format: format.rawValue, version: version, editable: readOnly == nil,
                     readOnlyReason: readOnly, segments: set.segments.map(row), diagnostics: checked?.findings ?? [])
    }

    /// The segments as the list needs them (no clip opened).
    public func rows() throws -> [Row] { try load().0.segments.map(row) }

    /// Throws `Unreadable` unless the file is a regular file now: asked before any reader gets its path.
    func readable() throws {
        guard let why = RegularFile.problem(file.path) else { return }
        var st = stat()
        if stat(file.path, &st) != 0 {
            if errno == ENOENT {
                throw Unreadable(kind: .missing, description: "the annotation file \(file.path) is gone (moved or deleted since review started): " +
                                 "put it back and reload, or start review again with --annotations naming where it is now")
            }
        } else if st.st_mode & S_IFMT != S_IFREG {
            throw Unreadable(kind: .notRegular, description: "the annotation file \(file.path) is \(RegularFile.kind(st.st_mode)) now, not a regular file: " +
                             "it is not read (reading it could wait forever); put the annotation file back in its place, then reload")
        }
        throw Unreadable(kind: .other, description: "the annotation file \(file.path) cannot be read (\(why)); make it readable, then reload")
    }

    /// The file's bytes, read without ever waiting on a special file.
    func bytes() throws -> Data {
        try readable()
        do { return try RegularFile.read(file.path) } catch let refusal as RegularFile.Refusal {
            // Replaced between the check and the opening: said as the check says it.
            try readable()
            throw Unreadable(kind: .other, description: "the annotation file \(refusal)")
        }
    }

    /// Writes `edit` if the file is still at `edit.version`.
    public func save(_ edit: Edit) throws -> Saved {
        let current = try bytes()
        let now = Self.version(current)
        guard now == edit.version else { throw SaveError.conflict(current: now) }
        let (set, readOnly) = try load()
        if let readOnly { throw SaveError.readOnly(readOnly) }
        let segments = try segments(edit.segments, written: Set(set.segments.map(\.videoPath)))
        let data: Data
        switch format {
        case .createMLCSV: data = Data(AnnotationWriter.csv(segments).utf8)
        case .createMLJSON: data = try AnnotationWriter.json(segments) + Data("\n".utf8)
        case .elan: data = try elan(segments, into: current)
        case .labelStudio: throw SaveError.readOnly(Self.readOnlyLabelStudio)
        }
        // The new file is written beside the old under a hidden name of the same extension, with the
        // file's owner, group and permissions, and read back by the reader every command uses: what it
        // cannot read, or reads otherwise than the page sent, is not saved. Then it replaces the file by
        // a rename; the old bytes go to FILE.bak the same way, so the backup is no more readable than the file.
        var original = stat()
        guard stat(file.path, &original) == 0 else { try readable(); throw SaveError.unwritable("\(file.path) cannot be examined (\(Self.reason(errno)))") }
        let candidate = file.deletingLastPathComponent()
            .appendingPathComponent(".\(file.deletingPathExtension().lastPathComponent).review-\(UUID().uuidString.prefix(8)).\(file.pathExtension)")
        defer { unlink(candidate.path) }
        try write(data, to: candidate, like: original)
        try verify(candidate, holds: segments, previous: current, like: original)
        // Changed on disk while this save was made: not overwritten either.
        let latest = try bytes()
        guard Self.version(latest) == now else { throw SaveError.conflict(current: Self.version(latest)) }
        let backup = URL(fileURLWithPath: file.path + ".bak"), backupTemporary = AtomicFile.temporaryURL(for: backup)
        try write(current, to: backupTemporary, like: original)
        do {
            try AtomicFile.commit(backupTemporary, to: backup)
            try AtomicFile.commit(candidate, to: file)
        } catch {
            throw SaveError.unwritable("\(error)")
        }
        return Saved(version: Self.version(data), backup: backup.path, diagnostics: try state().diagnostics)
    }

    /// Writes `data` to `url`, a new name in the file's folder, owned and permitted as `original`: set
    /// on the open file, before anything can read it under its name, and refused when this process
    /// cannot give it that owner (a save must not turn another user's file into this user's).
    func write(_ data: Data, to url: URL, like original: stat) throws {
        // A file left there (a crash, or a link planted) is replaced, never written through.
        unlink(url.path)
        let fd = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw SaveError.unwritable("\(url.path) cannot be created (\(Self.reason(errno))): nothing was saved") }
        var written = false
        defer {
            close(fd)
            if !written { unlink(url.path) }
        }
        var failure: Int32 = 0
        data.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + done, raw.count - done)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                done += n
            }
        }
        guard failure == 0 else { throw SaveError.unwritable("\(url.path) cannot be written (\(Self.reason(failure))): nothing was saved") }
        if fchown(fd, original.st_uid, original.st_gid) != 0 {
            throw SaveError.readOnly("\(file.path) belongs to user \(original.st_uid), group \(original.st_gid), and this server (user \(geteuid())) " +
                                     "cannot give a new file that owner (\(Self.reason(errno))): nothing was saved; run review as the file's owner to edit it")
        }
        guard fchmod(fd, original.st_mode & 0o7777) == 0, fsync(fd) == 0 else {
            throw SaveError.unwritable("\(url.path) cannot be written (\(Self.reason(errno))): nothing was saved")
        }
        written = true
    }

    /// Why this server cannot save the file keeping what it is (its permissions, its owner), or nil.
    /// Root passes `access`'s permission checks, so for root a file or folder no one may write (no
    /// write bit at all) is taken as meant to stay as it is.
    func unwritable() -> String? {
        let folder = file.deletingLastPathComponent().path
        var st = stat(), dir = stat()
        guard stat(file.path, &st) == 0, stat(folder, &dir) == 0 else { return nil }
        let root = geteuid() == 0
        let mode = { (m: mode_t) in String(m & 0o7777, radix: 8) }
        if access(file.path, W_OK) != 0 || (root && st.st_mode & 0o222 == 0) {
            let why = access(file.path, W_OK) != 0 ? Self.reason(errno) : "no write permission for anyone"
            return "\(file.path) is read-only (mode \(mode(st.st_mode)), \(why)): a save would replace it; make it writable (chmod u+w), then reload"
        }
        if access(folder, W_OK) != 0 || (root && dir.st_mode & 0o222 == 0) {
            let why = access(folder, W_OK) != 0 ? Self.reason(errno) : "no write permission for anyone"
            return "its folder \(folder) is read-only (mode \(mode(dir.st_mode)), \(why)): a save writes the new file and FILE.bak there; " +
                "make the folder writable, then reload"
        }
        if !root && st.st_uid != geteuid() {
            return "\(file.path) belongs to user \(st.st_uid) and this server runs as user \(geteuid()): a saved file would change owner; run review as its owner to edit it"
        }
        if !root && !Self.inGroup(st.st_gid) {
            return "\(file.path) belongs to group \(st.st_gid), which this server's user is not in: a saved file would change group; run review as a member to edit it"
        }
        return nil
    }

    static func inGroup(_ gid: gid_t) -> Bool {
        if getegid() == gid { return true }
        let count = getgroups(0, nil)
        guard count > 0 else { return false }
        var groups = [gid_t](repeating: 0, count: Int(count))
        let got = getgroups(count, &groups)
        return got > 0 && groups.prefix(Int(got)).contains(gid)
    }

    static func reason(_ code: Int32) -> String { String(cString: strerror(code)) }

    /// Reads `candidate` back: no errors, the segments sent (times to the millisecond), and for ELAN
    /// every other tier as it was in `previous`.
    func verify(_ candidate: URL, holds sent: [Segment], previous: Data, like original: stat) throws {
        var o = options
        try readable()
        if format == .elan, case .success(let target) = AnnotationSource.elanEditTarget(file, options: options) { o.tiers = [target.tier] }
        if let why = RegularFile.problem(candidate.path) { throw SaveError.unwritable("\(candidate.path) \(why): nothing was saved") }
        let back = AnnotationSource.load(annotationFile: candidate, options: o)
        if !back.errors.isEmpty { throw SaveError.invalid(back.errors.map { Self.finding($0, file: candidate) }) }
        // Times in whole milliseconds, as ELAN keeps them (a time out of range, which a save refuses,
        // compared as written); an ELAN file names its clip its own way and keeps its annotations in time order.
        func ms(_ t: Double?) -> String {
            guard let t else { return "-" }
            return InputRange.milliseconds(t).map { "\($0)" } ?? "\(t)"
        }
        func key(_ s: Segment) -> [String] { [format == .elan ? "" : s.videoPath, s.label, ms(s.start), ms(s.end)] }
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
        defer { unlink(previousFile.path) }
        // The old bytes, as private as the file they came from.
        try write(previous, to: previousFile, like: original)
        guard others(previousFile) == others(candidate) else {
            throw SaveError.invalid([Finding(severity: "error", message: "writing tier \(Diagnostic.quote(target)) would change other tiers of this file; nothing was saved", line: nil)])
        }
    }

    /// The ELAN file `current` with its tier's annotations replaced by `segments` (all of its one clip,
    /// each with a start and an end), everything else in it kept.
    func elan(_ segments: [Segment], into current: Data) throws -> Data {
        try readable()
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
            // Times were checked against InputRange.seconds (`segments`), and the reader keeps the origin in
            // it too; an overflow is refused all the same rather than trapped on.
            guard let a = InputRange.milliseconds(start), let b = InputRange.milliseconds(end),
                  case let (startMs, false) = a.subtractingReportingOverflow(target.origin),
                  case let (endMs, false) = b.subtractingReportingOverflow(target.origin) else {
                problems.append(Finding(severity: "error", message: "segment \(k + 1): its times are out of range for this ELAN file (time origin \(target.origin) ms)", line: nil))
                continue
            }
            annotations.append(ElanTierEdit.Annotation(value: s.label, start: startMs, end: endMs))
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
    func load() throws -> (AnnotationSet, String?) {
        try readable()
        let set = AnnotationSource.load(annotationFile: file, options: options)
        if format == .labelStudio { return (set, Self.readOnlyLabelStudio) }
        if !options.labelMap.isEmpty {
            return (set, "--label-map renames or drops labels as the file is read, and a save would write them so; review without --label-map to edit")
        }
        // A row the reader could not take is not in the list the page edits: saving would drop it.
        if let e = set.errors.first {
            return (set, "the file has \(format == .elan ? "annotations" : "rows") handpose cannot read (\(e.location): \(e.message)); fix them in the file, then reload")
        }
        if let why = unwritable() { return (set, why) }
        if format == .elan {
            try readable()
            switch AnnotationSource.elanEditTarget(file, options: options) {
            case .failure(let why): return (set, "this ELAN file is shown, not saved: \(why)")
            case .success(let target):
                // What a save would refuse is said now: the tier rewritten with nothing, as a trial.
                guard let text = String(validating: try bytes(), as: UTF8.self) else {
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
    /// already holds, its `.` and `..` resolved as `Segment.videoPath` says, or a clip's path under the root, written from the file's folder).
    func segments(_ rows: [Edit.Segment], written: Set<String>) throws -> [Segment] {
        var problems: [Finding] = []
        var out: [Segment] = []
        let base = ReviewFolder(file.deletingLastPathComponent())
        // The rules of the request itself (labels, times), again here for callers that built an Edit in code.
        problems += SaveRequest(version: "", segments: rows).problems().map { Finding(severity: "error", message: $0, line: nil) }
        for (k, r) in rows.enumerated() {
            let at = "segment \(k + 1)"
            let label = r.label
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

    /// Why `t` seconds from a request is no time in a clip, or nil; the same words whether JSON could
    /// hold the number (9.3e15) or not (1e400, see `ReviewServer`).

    func row(_ s: Segment) -> Row {
        Row(video: s.videoPath, clip: clips.relative(s.videoFile), label: s.label, start: s.start, end: s.end)
    }

    func finding(_ d: Diagnostic) -> Finding {
        Finding(severity: d.severity.rawValue, message: d.message + (hint(d).map { " (\($0))" } ?? ""), line: d.line)
    }

    /// `d`'s hint, said for review: the checks' hint for a clip not found names `--root`, which
    /// `validate` and `export` take but review does not (review finds a file's clips from its folder).
    func hint(_ d: Diagnostic) -> String? {
        guard let h = d.hint, h.contains("--root") else { return d.hint }
        return "review finds the file's clips from its own folder, \(file.deletingLastPathComponent().path); write the paths from there, " +
            "or keep the file in ROOT (\(clips.url.path)) with paths from ROOT" +
            (format == .elan || format == .labelStudio ? "; --media-root names where clips are looked for by file name" : "")
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
