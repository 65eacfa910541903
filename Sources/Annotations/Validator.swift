import FileSystem
import Foundation
import VideoIO

/// Checks an annotation set against the files on disk and for doubtful labelling.
public struct Validator {
    /// Segments shorter than `window` frames at `fps` are reported (Create ML pads or drops them).
    public var window: Int?
    public var fps: Double = 30
    /// A class with fewer than this share of the largest class's examples is reported.
    public var imbalanceRatio: Double = 0.25
    /// Open every image and decode its first frame, so a file that only looks like an image (by its
    /// name) is found. Off by default: exporting poses reads keypoint files, not the images.
    public var openImages = false
    /// Decode every frame of every clip: finds clips cut short or damaged after their first frames,
    /// which opening alone does not. Costs a full decode of each clip.
    public var deep = false

    public init(window: Int? = nil, fps: Double = 30) {
        self.window = window
        self.fps = fps
    }

    /// Facts about a clip that the checks need.
    public struct ClipFacts: Sendable { public var duration: Double; public var frameRate: Double }

    /// A clip and the segments naming it: each clip is opened once, however many rows name it.
    struct Clip {
        var file: String
        var firstSegment: Int
        var segments: Int
        var url: URL { URL(fileURLWithPath: file, isDirectory: false) }
    }

    /// Adds the disk and dataset checks to the set's log; returns the facts of the clips it could open, by path.
    @discardableResult
    public func check(_ set: inout AnnotationSet) -> [PathKey: ClipFacts] {
        var (clips, clipOf) = Self.groupByClip(set.segments)
        var facts = [ClipFacts?](repeating: nil, count: clips.count)
        for (k, clip) in clips.enumerated() {
            facts[k] = open(clip, first: set.segments[clip.firstSegment], log: &set.log)
        }
        for (i, s) in set.segments.enumerated() {
            guard let f = facts[Int(clipOf[i])] else { continue }
            segmentChecks(s, f, log: &set.log)
        }
        for p in set.poses { check(p, log: &set.log) }
        var byPath: [PathKey: ClipFacts] = [:]
        for (k, clip) in clips.enumerated() { if let f = facts[k] { byPath[PathKey(clip.file)] = f } }
        // Not needed any more: with a clip per row, they are as large as what the dataset checks need.
        clips = []
        facts = []
        datasetChecks(&set, clipOf: clipOf)
        return byPath
    }

    /// The clips the segments name, in the order they are first named, and each segment's clip.
    /// Grouped by sorting indices rather than through a dictionary of paths: with a different clip
    /// on each of a million rows, the dictionary alone costs 50 to 75 MB, the indices 8.
    static func groupByClip(_ segments: [Segment]) -> (clips: [Clip], clipOf: [Int32]) {
        // Sorted by the path's hash first: integers compare faster than paths, and the paths of one
        // clip, equal, stay side by side in row order.
        // Paths compare by their bytes (`PathKey`): two clips whose names differ only in Unicode normalisation are two clips.
        let hashes = segments.map { PathKey($0.videoFile).hashValue }
        var order = Array(segments.indices)
        order.sort { a, b in
            if hashes[a] != hashes[b] { return hashes[a] < hashes[b] }
            let x = PathKey(segments[a].videoFile), y = PathKey(segments[b].videoFile)
            return x == y ? a < b : x < y
        }
        var clips: [Clip] = []
        var clipOf = [Int32](repeating: 0, count: segments.count)
        for (k, i) in order.enumerated() {
            if k > 0 && PathKey(segments[order[k - 1]].videoFile) == PathKey(segments[i].videoFile) {
                clips[clips.count - 1].segments += 1
            } else {
                clips.append(Clip(file: segments[i].videoFile, firstSegment: i, segments: 1))
            }
            clipOf[i] = Int32(clips.count - 1)
        }
        order = []
        // Number the clips in file order, so findings about them come in the order rows name them.
        var renumber = Array(clips.indices)
        renumber.sort { clips[$0].firstSegment < clips[$1].firstSegment }
        var newNumber = [Int32](repeating: 0, count: clips.count)
        for (new, old) in renumber.enumerated() { newNumber[old] = Int32(new) }
        for i in clipOf.indices { clipOf[i] = newNumber[Int(clipOf[i])] }
        return (renumber.map { clips[$0] }, clipOf)
    }

    /// Opens a clip (and with `deep`, decodes it all); reports at the first row naming it what stops it.
    func open(_ clip: Clip, first s: Segment, log: inout DiagnosticLog) -> ClipFacts? {
        let named = clip.segments > 1 ? "; \(Diagnostic.grouped(clip.segments)) rows name it, this is the first" : ""
        do {
            let reader = try VideoReader(url: clip.url)
            let info = reader.info
            if !deep, let why = info.cutShort {
                // The container declares more than the file holds: a cut copy, found without decoding
                // (--deep decodes and says at which frame it stops).
                log.add(.error, .corruptClip, file: s.source, line: s.line,
                        "video \(Diagnostic.quote(s.videoPath)) is truncated: \(why)\(named)",
                        hint: "copy or download it again; --deep tells where decoding stops")
            } else if deep, let stop = Self.decodeAll(reader) {
                log.add(.error, .corruptClip, file: s.source, line: s.line,
                        "video \(Diagnostic.quote(s.videoPath)) is damaged: \(stop)\(named)",
                        hint: "re-export or re-copy the clip; the frames before this point decode")
            }
            return ClipFacts(duration: info.duration, frameRate: info.averageFrameRate > 0 ? info.averageFrameRate : info.nominalFrameRate)
        } catch VideoError.fileNotFound {
            log.add(.error, .noSuchFile, file: s.source, line: s.line,
                    "video \(Diagnostic.quote(s.videoPath)) does not exist (looked for \(Self.quotePath(clip.file)))\(named)",
                    hint: Self.missingFileHint(clip.url))
        } catch {
            log.add(.error, .unreadableClip, file: s.source, line: s.line,
                    "video \(Diagnostic.quote(s.videoPath)) cannot be opened: \(Self.reason(error))\(named)")
        }
        return nil
    }

    /// Decodes every frame; nil when all decode, else where and why decoding stopped.
    static func decodeAll(_ reader: VideoReader) -> String? {
        var frames = 0
        var lastTime: Double?
        func at(_ frame: Int, _ time: Double?) -> String {
            "decoding stopped at frame \(frame)" + (time.map { String(format: " (t=%.3fs)", $0) } ?? "")
        }
        do {
            while let f = try reader.nextFrame() { frames += 1; lastTime = f.time }
            return nil
        } catch let VideoError.corrupt(_, frame, time, ffmpeg) {
            return at(frame, time) + ": \(ffmpeg)"
        } catch let VideoError.truncated(_, decoded, expected) {
            return at(decoded, lastTime) + ": the file ends there, but its container lists \(Diagnostic.grouped(expected)) frames (cut short?)"
        } catch let VideoError.cutShort(_, decoded, why) {
            return at(decoded, lastTime) + ": the file ends there, but \(why) (cut short?)"
        } catch {
            return at(frames, lastTime) + ": \(reason(error))"
        }
    }

    /// The per-segment checks against its clip's duration and the window.
    func segmentChecks(_ s: Segment, _ f: ClipFacts, log: inout DiagnosticLog) {
        let oneFrame = f.frameRate > 0 ? 1 / f.frameRate : 0.05
        // ELAN and Label Studio segments say where they come from besides the line (tier, annotation id).
        let at = s.context.map { "\($0): " } ?? ""
        if let end = s.end, f.duration > 0, end > f.duration + oneFrame {
            log.add(.error, .endBeyondClip, file: s.source, line: s.line,
                    "\(at)end \(format(end)) is beyond the clip's duration \(format(f.duration)) (\(Diagnostic.quote(s.videoPath)))")
        }
        if let start = s.start, f.duration > 0, start >= f.duration {
            log.add(.error, .startBeyondClip, file: s.source, line: s.line,
                    "\(at)start \(format(start)) is at or beyond the clip's end \(format(f.duration)) (\(Diagnostic.quote(s.videoPath)))")
        }
        if let window {
            let length = (s.end ?? f.duration) - (s.start ?? 0)
            if length * fps < Double(window) {
                log.add(.warning, .shortSegment, file: s.source, line: s.line, at +
                        String(format: "segment is %.2fs, %.0f frames at %g fps: shorter than the %ld-frame window", length, (length * fps).rounded(.towardZero), fps, window),
                        hint: "it will be padded with zeros (or dropped with --short drop)")
            }
        }
    }

    /// An image exists and, with `openImages`, decodes.
    func check(_ p: PoseSample, log: inout DiagnosticLog) {
        guard FileManager.default.fileExists(atPath: p.image.path) else {
            log.add(.error, .noSuchFile, file: p.image.path, "image does not exist")
            return
        }
        guard openImages else { return }
        do {
            // One thread: a still is one frame, not worth starting a decoder pool for.
            let reader = try VideoReader(url: p.image, threads: 1)
            if try reader.nextFrame() == nil {
                log.add(.error, .unreadableImage, file: p.image.path, "image cannot be decoded: FFmpeg found no picture in it")
            }
        } catch let VideoError.corrupt(_, _, _, ffmpeg) {
            log.add(.error, .unreadableImage, file: p.image.path, "image cannot be decoded: \(ffmpeg)",
                    hint: "re-save it as JPEG or PNG, or remove it")
        } catch {
            log.add(.error, .unreadableImage, file: p.image.path, "image cannot be decoded: \(Self.reason(error))",
                    hint: "re-save it as JPEG or PNG, or remove it")
        }
    }

    /// An error's reason without the file name, which the diagnostic already gives.
    static func reason(_ error: Error) -> String {
        guard let e = error as? VideoError else { return "\(error)" }
        var text = e.description
        if text.hasPrefix(e.path + ": ") { text.removeFirst(e.path.count + 2) }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// A path built from a value in the file: whole unless it is far longer than any real path.
    static func quotePath(_ path: String) -> String {
        path.prefix(161).count > 160 ? Diagnostic.quote(head: path, length: path.count) : path
    }

    /// A file that differs only in letter case is what a macOS annotation (case-insensitive disk)
    /// usually meant; otherwise, where paths are resolved from.
    static func missingFileHint(_ url: URL) -> String {
        let folder = url.deletingLastPathComponent(), name = url.lastPathComponent
        if let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path),
           let match = names.first(where: { $0.lowercased() == name.lowercased() }) {
            return "did you mean \(Diagnostic.quote(match))? Paths are case-sensitive on Linux"
        }
        return "paths are relative to the annotation file's folder unless --root is given"
    }
}
