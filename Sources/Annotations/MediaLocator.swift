import Foundation
import VideoIO

/// Finds the clip an ELAN file or a Label Studio task names, on this machine. Those files carry the
/// annotator's own paths (an absolute path or `file:` URL from another computer, an upload name with
/// a random prefix), so each path written is tried as it is, and then, by its file name, the one clip
/// of that name under the media root. Two clips of that name there are an error naming both: a clip
/// is never picked silently. A found clip must lie under the annotation root, whose relative path
/// names its keypoints (as for Create ML files).
struct MediaLocator {
    /// The folder clip paths are relative to (the annotation root; what `extract` was given).
    let root: String
    /// Where clips are looked for by name.
    let mediaRoot: String
    /// File name to the clips of that name under `mediaRoot`, listed once when first needed.
    private let index = Index()

    /// Unchecked: a locator is used by one thread at a time (validation runs file by file); the class only
    /// lets a value type fill its index once, lazily.
    final class Index: @unchecked Sendable { var byName: [String: [String]]? }

    init(root: URL, mediaRoot: URL?) {
        self.root = root.standardizedFileURL.path
        self.mediaRoot = (mediaRoot ?? root).standardizedFileURL.path
    }

    struct Found { var file: String; var relative: String }

    enum Outcome {
        case found(Found)
        case failure(Diagnostic.Kind, String, hint: String?)
    }

    /// The clip that `written` (paths or URLs as the file wrote them, best first) names; relative ones
    /// are taken from `folder`.
    func locate(written: [String], relativeTo folder: String) -> Outcome {
        var tried: [String] = []
        for w in written {
            for path in Self.paths(from: w) {
                // `.` and `..` resolved on the text, symbolic links kept (as the root's own path keeps them;
                // NSString's standardizingPath would resolve them and put the clip "outside" a linked root).
                let resolved = URL(fileURLWithPath: path.hasPrefix("/") ? path : folder + "/" + path).standardizedFileURL.path
                tried.append(resolved)
                var isDir: ObjCBool = false
                if FileManager.default.fileExists(atPath: resolved, isDirectory: &isDir), !isDir.boolValue { return under(resolved) }
            }
        }
        // By name, under the media root.
        let names = Set(written.flatMap { Self.paths(from: $0) }.map { ($0 as NSString).lastPathComponent }).filter { !$0.isEmpty }
        var matches: [String] = []
        for name in names.sorted() { matches += byName()[name] ?? [] }
        matches = Array(Set(matches)).sorted()
        if matches.count == 1 { return under(matches[0]) }
        if matches.count > 1 {
            return .failure(.mediaAmbiguous, "\(matches.count) clips named \(names.sorted().map(Diagnostic.quote).joined(separator: " or ")) under \(mediaRoot): \(matches.prefix(5).joined(separator: ", "))" + (matches.count > 5 ? " and \(matches.count - 5) more" : ""),
                            hint: "give --media-root the folder that holds the right one only")
        }
        return .failure(.noSuchFile, "the clip is not found: tried \(tried.joined(separator: ", ")) and a file named \(names.sorted().map(Diagnostic.quote).joined(separator: " or ")) under \(mediaRoot)",
                        hint: "give --media-root the folder that holds the clips (searched with its sub-folders)")
    }

    /// A found clip, named by its path under the annotation root.
    private func under(_ file: String) -> Outcome {
        // Compared and cut by bytes: `String`'s `hasPrefix` compares by canonical equivalence, so a root named in
        // NFC took a clip under its NFD twin (another folder on Linux) as its own, and a cut by characters or
        // bytes then named it wrong.
        let base = root.hasSuffix("/") ? root : root + "/"
        guard file.utf8.count > base.utf8.count, file.utf8.starts(with: base.utf8) else {
            return .failure(.outsideRoot, "the clip \(file) lies outside the annotation root \(root)",
                            hint: "give --root the folder that holds the clips (the folder given to extract), so keypoints are found by their path under it")
        }
        return .found(Found(file: file, relative: String(decoding: file.utf8.dropFirst(base.utf8.count), as: UTF8.self)))
    }

    /// Clips under the media root by file name, listed once.
    private func byName() -> [String: [String]] {
        if let known = index.byName { return known }
        var out: [String: [String]] = [:]
        let base = URL(fileURLWithPath: mediaRoot)
        if let walk = FileManager.default.enumerator(at: base, includingPropertiesForKeys: [.isRegularFileKey]) {
            for case let url as URL in walk where MediaKind.videoExtensions.contains(url.pathExtension.lowercased()) {
                out[url.lastPathComponent, default: []].append(url.standardizedFileURL.path)
            }
        }
        index.byName = out
        return out
    }

    /// A file path from what an annotation tool wrote: `file:` URLs (`file:///a/b.mp4`, `file:/./b.mp4`)
    /// decoded, other URLs (`http:`, `s3:`) left to the search by name (nil here), plain paths as they are.
    /// With a backslash, the path as written first: on Linux a name may hold one (`back\slash.mp4`), and only
    /// when no such file exists is it read as a Windows path.
    static func paths(from written: String) -> [String] {
        let windows = path(from: written)
        guard written.contains("\\"), let literal = path(from: written, windowsSeparators: false), literal != windows else {
            return windows.map { [$0] } ?? []
        }
        return [literal] + (windows.map { [$0] } ?? [])
    }

    static func path(from written: String, windowsSeparators: Bool = true) -> String? {
        var w = written.trimmingCharacters(in: .whitespaces)
        guard !w.isEmpty else { return nil }
        // A Windows path (C:\Users\me\clip.mp4) from the annotator's machine: only its name can match here.
        if windowsSeparators && w.contains("\\") { w = w.replacingOccurrences(of: "\\", with: "/") }
        if w.lowercased().hasPrefix("file:") {
            var rest = String(w.dropFirst(5))
            if rest.hasPrefix("//") { rest = String(rest.dropFirst(2)); if !rest.hasPrefix("/") { rest = "/" + rest.drop { $0 != "/" }.dropFirst() } }
            if rest.hasPrefix("/./") || rest.hasPrefix("/../") { rest = String(rest.dropFirst()) }
            return rest.removingPercentEncoding ?? rest
        }
        if let scheme = w.range(of: "://"), w[..<scheme.lowerBound].allSatisfy({ $0.isLetter || $0 == "-" || $0 == "+" }) {
            // s3://bucket/key, gs://..., http(s)://host/path: the file name is all that can be matched.
            let tail = String(w[scheme.upperBound...]).split(separator: "?").first.map(String.init) ?? ""
            return (tail as NSString).lastPathComponent.removingPercentEncoding
        }
        return w
    }
}
