import Foundation
import VideoIO

/// Checks an annotation set against the files on disk and for doubtful labelling.
public struct Validator {
    /// Segments shorter than `window` frames at `fps` are reported (Create ML pads or drops them).
    public var window: Int?
    public var fps: Double = 30
    /// A class with fewer than this share of the largest class's examples is reported.
    public var imbalanceRatio: Double = 0.25

    public init(window: Int? = nil, fps: Double = 30) {
        self.window = window
        self.fps = fps
    }

    /// Facts about a clip that the checks need.
    public struct ClipFacts: Sendable { public var duration: Double; public var frameRate: Double }

    /// Adds the disk and dataset checks to `set.diagnostics`; returns the clip facts it read.
    @discardableResult
    public func check(_ set: inout AnnotationSet) -> [URL: ClipFacts] {
        var facts: [URL: ClipFacts] = [:]
        var unreadable = Set<URL>()
        for s in set.segments {
            if facts[s.video] == nil && !unreadable.contains(s.video) {
                do {
                    let info = try VideoReader(url: s.video).info
                    facts[s.video] = ClipFacts(duration: info.duration, frameRate: info.averageFrameRate > 0 ? info.averageFrameRate : info.nominalFrameRate)
                } catch let e as VideoError {
                    unreadable.insert(s.video)
                    let missing: Bool = { if case .fileNotFound = e { return true }; return false }()
                    set.diagnostics.append(Diagnostic(.error, file: s.source, line: s.line,
                                                      missing ? "video '\(s.videoPath)' does not exist (looked for \(s.video.path))"
                                                              : "video '\(s.videoPath)' cannot be opened: \(e)",
                                                      hint: missing ? Self.missingFileHint(s.video) : nil))
                    continue
                } catch {
                    unreadable.insert(s.video)
                    continue
                }
            }
            guard let f = facts[s.video] else { continue }
            let oneFrame = f.frameRate > 0 ? 1 / f.frameRate : 0.05
            if let end = s.end, f.duration > 0, end > f.duration + oneFrame {
                set.diagnostics.append(Diagnostic(.error, file: s.source, line: s.line,
                                                  "end \(format(end)) is beyond the clip's duration \(format(f.duration)) ('\(s.videoPath)')"))
            }
            if let start = s.start, f.duration > 0, start >= f.duration {
                set.diagnostics.append(Diagnostic(.error, file: s.source, line: s.line,
                                                  "start \(format(start)) is at or beyond the clip's end \(format(f.duration)) ('\(s.videoPath)')"))
            }
            if let window {
                let length = (s.end ?? f.duration) - (s.start ?? 0)
                if length * fps < Double(window) {
                    set.diagnostics.append(Diagnostic(.warning, file: s.source, line: s.line,
                                                      String(format: "segment is %.2fs, %d frames at %g fps: shorter than the %d-frame window", length, Int(length * fps), fps, window),
                                                      hint: "it will be padded with zeros (or dropped with --short drop)"))
                }
            }
        }
        for p in set.poses where !FileManager.default.fileExists(atPath: p.image.path) {
            set.diagnostics.append(Diagnostic(.error, file: p.image.path, "image does not exist"))
        }
        datasetChecks(&set)
        return facts
    }

    /// A file that differs only in letter case is what a macOS annotation (case-insensitive disk)
    /// usually meant; otherwise, where paths are resolved from.
    static func missingFileHint(_ url: URL) -> String {
        let folder = url.deletingLastPathComponent(), name = url.lastPathComponent
        if let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path),
           let match = names.first(where: { $0.lowercased() == name.lowercased() }) {
            return "did you mean '\(match)'? Paths are case-sensitive on Linux"
        }
        return "paths are relative to the annotation file's folder unless --root is given"
    }

    func datasetChecks(_ set: inout AnnotationSet) {
        // Duplicate rows.
        var seen: [String: Segment] = [:]
        for s in set.segments {
            let key = "\(s.video.path)|\(s.label)|\(s.start ?? -1)|\(s.end ?? -1)"
            if let first = seen[key] {
                set.diagnostics.append(Diagnostic(.warning, file: s.source, line: s.line, "duplicate of line \(first.line ?? 0)",
                                                  hint: "remove one; duplicates weigh an example twice"))
            } else { seen[key] = s }
        }
        // Overlapping segments of one video with different labels.
        let byVideo = Dictionary(grouping: set.segments.filter { $0.start != nil && $0.end != nil }, by: \.video)
        for (_, segments) in byVideo {
            // Sweep by start time, keeping for each label the segment reaching furthest so far: one
            // warning per segment and label it overlaps, in O(segments x labels).
            var reach: [String: Segment] = [:]
            for b in segments.sorted(by: { ($0.start!, $0.line ?? 0) < ($1.start!, $1.line ?? 0) }) {
                for (label, a) in reach.sorted(by: { $0.key < $1.key }) where label != b.label && a.end! > b.start! {
                    set.diagnostics.append(Diagnostic(.warning, file: b.source, line: b.line,
                                                      "overlaps line \(a.line ?? 0) (\(format(b.start!))-\(format(min(a.end!, b.end!))) of '\(a.videoPath)') with a different label ('\(b.label)' vs '\(a.label)')",
                                                      hint: "frames in the overlap would train both classes"))
                }
                if (reach[b.label]?.end ?? -1) < b.end! { reach[b.label] = b }
            }
        }
        // Labels that differ only by case or spaces.
        let labels = set.classes
        var byFolded: [String: [String]] = [:]
        for l in labels { byFolded[l.lowercased().filter { !$0.isWhitespace }, default: []].append(l) }
        for (_, variants) in byFolded where variants.count > 1 {
            set.diagnostics.append(Diagnostic(.warning, file: set.segments.first?.source ?? set.poses.first?.image.path ?? "",
                                              "labels \(variants.map { "'\($0)'" }.joined(separator: ", ")) differ only by case or spaces",
                                              hint: "they are separate classes; use one spelling"))
        }
        // Class balance and the Background class.
        var counts: [String: Int] = [:]
        for s in set.segments { counts[s.label, default: 0] += 1 }
        for p in set.poses { counts[p.label, default: 0] += 1 }
        if let most = counts.values.max(), counts.count > 1 {
            for (label, n) in counts.sorted(by: { $0.key < $1.key }) where Double(n) < imbalanceRatio * Double(most) {
                set.diagnostics.append(Diagnostic(.warning, file: set.segments.first?.source ?? set.poses.first?.image.path ?? "",
                                                  "class '\(label)' has \(n) examples, far fewer than the largest class (\(most))",
                                                  hint: "add examples or expect it to be under-learned"))
            }
        }
        if !counts.isEmpty && !counts.keys.contains(where: { $0.lowercased() == "background" }) {
            set.diagnostics.append(Diagnostic(.warning, file: set.segments.first?.source ?? set.poses.first?.image.path ?? "",
                                              "no 'Background' class",
                                              hint: "Apple recommends a Background class of hands doing none of the actions"))
        }
    }
}
