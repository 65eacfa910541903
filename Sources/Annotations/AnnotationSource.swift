import Foundation

/// Loads every way Create ML accepts labelled hand data: an annotation file (CSV or JSON) of
/// `video, label, start, end`, labelled folders (`ROOT/<label>/<file>`) or labelled files
/// (`ROOT/<label>.<anything>.<ext>`). Problems are collected as diagnostics, never thrown, so a user
/// sees all of them in one run.
public enum AnnotationSource {
    static let videoExtensions: Set<String> = ["mp4", "mov", "m4v", "mkv", "webm", "avi", "gif", "mpg", "mpeg"]
    static let imageExtensions: Set<String> = ["jpg", "jpeg", "png", "bmp", "webp", "heic", "tif", "tiff"]

    /// An annotation file. Video paths are relative to `root` (default: the file's folder).
    public static func load(annotationFile url: URL, root: URL? = nil, columns: AnnotationColumns = AnnotationColumns()) -> AnnotationSet {
        let file = url.path
        let base = (root ?? url.deletingLastPathComponent()).standardizedFileURL
        var set = AnnotationSet()
        let (entries, header, diagnostics) = AnnotationFileReader.read(url, columns: columns)
        set.diagnostics = diagnostics
        guard !header.isEmpty || !entries.isEmpty else { return set }

        for required in [columns.video, columns.label] where !header.contains(required) {
            set.diagnostics.append(Diagnostic(.error, file: file, line: 1, "missing required column '\(required)'",
                                              hint: "the header must name '\(columns.video)' and '\(columns.label)'" +
                                                  (header.isEmpty ? "" : "; found \(header.map { "'\($0)'" }.joined(separator: ", "))")))
        }
        for name in header where !columns.all.contains(name) {
            let close = columns.all.first { $0.lowercased() == name.lowercased() }
            set.diagnostics.append(Diagnostic(.warning, file: file, line: 1, "unknown column '\(name)' is ignored",
                                              hint: close.map { "column names are case-sensitive: did you mean '\($0)'?" }))
        }
        guard header.contains(columns.video) && header.contains(columns.label) else { return set }

        // start/end: optional, but all or nothing.
        for name in [columns.start, columns.end] {
            let present = entries.filter { !($0.values[name]?.text ?? "").isEmpty }
            if !present.isEmpty && present.count < entries.count {
                for e in entries where (e.values[name]?.text ?? "").isEmpty {
                    set.diagnostics.append(Diagnostic(.error, file: file, line: e.line, column: e.values[name]?.field,
                                                      "'\(name)' is missing here but given on other rows",
                                                      hint: "give '\(name)' on every row, or on none (then the clip's \(name == columns.start ? "start" : "end") is used)"))
                }
            }
        }

        for e in entries {
            let video = e.values[columns.video]?.text ?? ""
            let label = e.values[columns.label]?.text ?? ""
            var ok = true
            if video.isEmpty {
                set.diagnostics.append(Diagnostic(.error, file: file, line: e.line, column: e.values[columns.video]?.field, "empty video"))
                ok = false
            }
            if label.isEmpty {
                set.diagnostics.append(Diagnostic(.error, file: file, line: e.line, column: e.values[columns.label]?.field, "empty label"))
                ok = false
            }
            func time(_ name: String) -> Double? {
                guard let v = e.values[name], !v.text.isEmpty else { return nil }
                guard let t = TimeValue.parse(v.text) else {
                    set.diagnostics.append(Diagnostic(.error, file: file, line: e.line, column: v.field, "cannot read '\(v.text)' as a time",
                                                      hint: "write seconds (3 or 3.14), MM:SS, MM:SS.ff or H:MM:SS"))
                    ok = false
                    return nil
                }
                if t < 0 {
                    set.diagnostics.append(Diagnostic(.error, file: file, line: e.line, column: v.field, "\(name) is negative (\(v.text))"))
                    ok = false
                }
                return t
            }
            let start = time(columns.start), end = time(columns.end)
            if let s = start, let t = end, s >= t {
                set.diagnostics.append(Diagnostic(.error, file: file, line: e.line, column: e.values[columns.end]?.field,
                                                  "start \(format(s)) is not before end \(format(t))", hint: "swap them, or fix the typo"))
                ok = false
            }
            guard ok else { continue }
            guard let url = resolve(video, base: base) else {
                set.diagnostics.append(Diagnostic(.error, file: file, line: e.line, column: e.values[columns.video]?.field,
                                                  "'\(video)' points outside the video folder \(base.path)",
                                                  hint: "paths are relative to the annotation file's folder (or --root); '..' and absolute paths elsewhere are refused"))
                continue
            }
            set.segments.append(Segment(video: url, videoPath: video, label: label, start: start, end: end, source: file, line: e.line))
        }
        return set
    }

    /// Parses annotation bytes without touching the disk (for fuzzing and tools): the entries and the
    /// diagnostics of the file's own content.
    public static func parse(data: Data, fileName: String) -> (entries: Int, diagnostics: [Diagnostic]) {
        let r = AnnotationFileReader.read(data: data, file: fileName, json: fileName.lowercased().hasSuffix(".json"))
        for e in r.entries { for (_, v) in e.values { _ = TimeValue.parse(v.text) } }
        return (r.entries.count, r.diagnostics)
    }

    /// `path` under `base`, or nil when it escapes it.
    static func resolve(_ path: String, base: URL) -> URL? {
        let url = path.hasPrefix("/") ? URL(fileURLWithPath: path).standardizedFileURL
                                      : base.appendingPathComponent(path).standardizedFileURL
        let b = base.path.hasSuffix("/") ? base.path : base.path + "/"
        return url.path.hasPrefix(b) ? url : nil
    }

    /// Labelled folders `ROOT/<label>/<file>`, and labelled files `ROOT/<label>.<rest>` beside them.
    /// `poses` reads images (hand pose data), otherwise clips (hand action data).
    public static func load(labelledFolder root: URL, poses: Bool) -> AnnotationSet {
        var set = AnnotationSet()
        let fm = FileManager.default
        let extensions = poses ? imageExtensions : videoExtensions
        let other = poses ? videoExtensions : imageExtensions
        guard let names = try? fm.contentsOfDirectory(atPath: root.path) else {
            set.diagnostics.append(Diagnostic(.error, file: root.path, "cannot list this folder"))
            return set
        }
        func add(_ url: URL, label: String) {
            if poses { set.poses.append(PoseSample(image: url, label: label)) }
            else { set.segments.append(Segment(video: url, videoPath: url.lastPathComponent, label: label, start: nil, end: nil, source: root.path, line: nil)) }
        }
        for name in names.sorted() where !name.hasPrefix(".") {
            let url = root.appendingPathComponent(name)
            var isDir: ObjCBool = false
            _ = fm.fileExists(atPath: url.path, isDirectory: &isDir)
            if isDir.boolValue {
                let files = ((try? fm.contentsOfDirectory(atPath: url.path)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
                var used = 0
                for f in files {
                    let ext = (f as NSString).pathExtension.lowercased()
                    if extensions.contains(ext) { add(url.appendingPathComponent(f), label: name); used += 1 }
                    else if other.contains(ext) {
                        set.diagnostics.append(Diagnostic(.warning, file: url.appendingPathComponent(f).path,
                                                          "\(poses ? "a clip" : "an image") in \(poses ? "pose" : "action") data is ignored"))
                    }
                }
                if used == 0 { set.diagnostics.append(Diagnostic(.warning, file: url.path, "class folder '\(name)' holds no \(poses ? "images" : "clips")")) }
            } else {
                let ext = (name as NSString).pathExtension.lowercased()
                guard extensions.contains(ext) else { continue }
                // Labelled file: the label is the name before its first period (Wave.3.mov -> Wave).
                let label = String(name.prefix { $0 != "." })
                add(url, label: label)
            }
        }
        if set.segments.isEmpty && set.poses.isEmpty {
            set.diagnostics.append(Diagnostic(.error, file: root.path, "no labelled \(poses ? "images" : "clips") found",
                                              hint: "lay data out as ROOT/<label>/<file>, or name files <label>.<n>.<ext>"))
        }
        return set
    }
}

func format(_ seconds: Double) -> String { String(format: "%.3fs", seconds) }
