import FileSystem
import Foundation
import VideoIO

/// Loads every way Create ML accepts labelled hand data: an annotation file (CSV or JSON) of
/// `video, label, start, end`, labelled folders (`ROOT/<label>/<file>`) or labelled files
/// (`ROOT/<label>.<anything>.<ext>`). Problems are collected as diagnostics, never thrown, so a user
/// sees all of them in one run.
public enum AnnotationSource {
    /// An annotation file. Video paths are relative to `root` (default: the file's folder). The file
    /// is read as a stream; `maxDiagnosticsPerKind` (0: all) caps the findings kept of each kind.
    /// The format is found from the file's content (`AnnotationFormat.detect`): ELAN and Label Studio
    /// files are read with `options` (tiers, label map, media root, frame rate); their clips must lie
    /// under `root` too, which names their keypoints.
    public static func load(annotationFile url: URL, root: URL? = nil, columns: AnnotationColumns = AnnotationColumns(),
                            options: AnnotationOptions = AnnotationOptions(), maxDiagnosticsPerKind: Int = 0) -> AnnotationSet {
        let base = (root ?? url.deletingLastPathComponent()).standardizedFileURL
        let format = AnnotationFormat.detect(url)
        if format == .elan || format == .labelStudio {
            let media = MediaLocator(root: base, mediaRoot: options.mediaRoot)
            var set = AnnotationSet(maxDiagnosticsPerKind: maxDiagnosticsPerKind)
            if format == .elan {
                var reader = ElanReader(file: url.path, options: options, media: media, log: set.log)
                set.segments = reader.read()
                set.log = reader.log
            } else {
                var reader = LabelStudioReader(file: url.path, options: options, media: media, log: set.log)
                set.segments = reader.read()
                set.log = reader.log
            }
            return set
        }
        var builder = SegmentBuilder(file: url.path, base: base, columns: columns, log: DiagnosticLog(limit: maxDiagnosticsPerKind))
        AnnotationFileReader.read(url, into: &builder)
        builder.finish()
        var set = AnnotationSet()
        set.segments = builder.segments
        set.log = builder.log
        return set
    }

    /// For an ELAN file: the one tier a save may rewrite in place (`ElanTierEdit`), the media's time origin
    /// and the clip, or why its segments cannot be saved back into it.
    public static func elanEditTarget(_ url: URL, root: URL? = nil, options: AnnotationOptions) -> Result<ElanTierEdit.Target, ElanTierEdit.Refusal> {
        let base = (root ?? url.deletingLastPathComponent()).standardizedFileURL
        var reader = ElanReader(file: url.path, options: options, media: MediaLocator(root: base, mediaRoot: options.mediaRoot), log: DiagnosticLog(limit: 0))
        return reader.editTarget()
    }

    /// The ELAN files in `folder` and its sub-folders, sorted by path: an ELAN corpus holds one per
    /// clip. Empty when there are none (then the folder is read as labelled folders).
    public static func elanFiles(in folder: URL) -> [URL] {
        guard let walk = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { return [] }
        var out: [URL] = []
        for case let url as URL in walk where url.pathExtension.lowercased() == "eaf" { out.append(url.standardizedFileURL) }
        return out.sorted { $0.path < $1.path }
    }

    /// What `url` holds: an annotation file (its format from its content) or a folder (see
    /// `load(folder:)`); nil when there is nothing at `url`.
    public static func load(fileOrFolder url: URL, poses: Bool = false, root: URL? = nil, columns: AnnotationColumns = AnnotationColumns(),
                            options: AnnotationOptions = AnnotationOptions(), maxDiagnosticsPerKind: Int = 0) -> AnnotationSet? {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDir) else { return nil }
        return isDir.boolValue
            ? load(folder: url, poses: poses, root: root, options: options, maxDiagnosticsPerKind: maxDiagnosticsPerKind)
            : load(annotationFile: url, root: root, columns: columns, options: options, maxDiagnosticsPerKind: maxDiagnosticsPerKind)
    }

    /// A folder: an ELAN corpus (its .eaf files, with `options`) or labelled folders (`poses`: of images);
    /// a folder holding both .eaf files and labelled folders of clips is an error, not a silent choice.
    public static func load(folder: URL, poses: Bool, root: URL? = nil, options: AnnotationOptions = AnnotationOptions(),
                            maxDiagnosticsPerKind: Int = 0) -> AnnotationSet {
        let eafs = poses ? [] : elanFiles(in: folder)
        if eafs.isEmpty { return load(labelledFolder: folder, poses: poses, maxDiagnosticsPerKind: maxDiagnosticsPerKind) }
        let labelled = load(labelledFolder: folder, poses: false)
        if !labelled.segments.isEmpty {
            var set = AnnotationSet(maxDiagnosticsPerKind: maxDiagnosticsPerKind)
            set.log.add(.error, .noLabelledData, file: folder.path,
                        "holds both ELAN files (\(eafs.count), such as \(eafs[0].path)) and labelled folders of clips (\(labelled.segments.count))",
                        hint: "give the folder of .eaf files, or the labelled folders, not one folder holding both")
            return set
        }
        return load(elanFolder: folder, root: root, options: options, maxDiagnosticsPerKind: maxDiagnosticsPerKind)
    }

    /// Every ELAN file of a corpus folder as one set; clip paths are relative to `root` (default: the folder).
    public static func load(elanFolder folder: URL, root: URL? = nil, options: AnnotationOptions = AnnotationOptions(),
                            maxDiagnosticsPerKind: Int = 0) -> AnnotationSet {
        var set = AnnotationSet(maxDiagnosticsPerKind: maxDiagnosticsPerKind)
        // One locator for the corpus: the media root is listed once, not once per file.
        let media = MediaLocator(root: (root ?? folder).standardizedFileURL, mediaRoot: options.mediaRoot)
        for file in elanFiles(in: folder) {
            var reader = ElanReader(file: file.path, options: options, media: media, log: set.log)
            set.segments += reader.read()
            set.log = reader.log
        }
        return set
    }

    /// Parses annotation bytes without touching the disk (for fuzzing and tools): the entries and the
    /// diagnostics of the file's own content.
    public static func parse(data: Data, fileName: String) -> (entries: Int, diagnostics: [Diagnostic]) {
        struct Counter: AnnotationEntrySink {
            var log = DiagnosticLog()
            var entries = 0
            mutating func header(_ names: [String]) {}
            mutating func entry(_ e: RawEntry) {
                entries += 1
                for v in e.values { _ = v.map(TimeValue.parse) }
            }
        }
        var counter = Counter()
        AnnotationFileReader.read(data: data, file: fileName, json: fileName.lowercased().hasSuffix(".json"), into: &counter)
        return (counter.entries, counter.log.kept)
    }

    /// The absolute path of `path` (absolute, or relative to `basePath`) with `.` and `..` resolved,
    /// or nil when it is not under `basePath` (or is that folder itself). Done on the text's bytes, as
    /// `URL.standardizedFileURL` would, at a third of its cost: it runs once per distinct path of a million-row
    /// file. Bytes, not `String` comparison: that compares by canonical equivalence, under which a base named
    /// in NFC would take a path under its NFD twin (another folder on Linux) as its own.
    static func resolve(_ path: String, basePath: String) -> String? {
        let slash = UInt8(ascii: "/"), dot = UInt8(ascii: ".")
        let whole = Array((path.utf8.first == slash ? path : basePath + "/" + path).utf8)
        var resolved: [UInt8] = []
        var starts: [Int] = []   // where each kept part's slash is in `resolved`
        for part in whole.split(separator: slash) {
            if part.count == 1 && part.first == dot { continue }
            if part.count == 2 && part.allSatisfy({ $0 == dot }) {
                if let start = starts.popLast() { resolved.removeSubrange(start...) }
                continue
            }
            starts.append(resolved.count)
            resolved.append(slash)
            resolved.append(contentsOf: part)
        }
        let base = Array(basePath.utf8.last == slash ? basePath.utf8 : (basePath + "/").utf8)
        guard resolved.count > base.count, resolved.starts(with: base) else { return nil }
        return String(decoding: resolved, as: UTF8.self)
    }

    /// Labelled folders `ROOT/<label>/<file>`, and labelled files `ROOT/<label>.<rest>` beside them.
    /// `poses` reads images (hand pose data), otherwise clips (hand action data).
    public static func load(labelledFolder root: URL, poses: Bool, maxDiagnosticsPerKind: Int = 0) -> AnnotationSet {
        var set = AnnotationSet(maxDiagnosticsPerKind: maxDiagnosticsPerKind)
        let fm = FileManager.default
        // The extensions `extract` takes (`MediaKind`): a file accepted here is one extraction reads.
        let extensions = poses ? MediaKind.imageExtensions : MediaKind.videoExtensions
        let other = poses ? MediaKind.videoExtensions : MediaKind.imageExtensions
        // Listed by `FolderListing`: a folder that cannot be listed or a name that is not UTF-8 is an error
        // naming it, never a class or clip that silently drops out of the data.
        // At the root a folder is a class; in a class folder, folders are not searched.
        func listing(_ path: String, classes: Bool) -> FolderListing.Listing? {
            do {
                let listing = try FolderListing.read(path)
                for odd in listing.undecodable where odd.lost(searchingFolders: classes, wanted: { extensions.contains(($0 as NSString).pathExtension.lowercased()) }) {
                    set.log.add(.error, .unlistableFolder, file: odd.shown, "its name is not valid UTF-8, so it cannot be read as data: rename it")
                }
                return listing
            } catch let failure as FolderListing.Failure {
                set.log.add(.error, .unlistableFolder, file: path, "cannot list this folder (\(failure.reason))")
            } catch {
                set.log.add(.error, .unlistableFolder, file: path, "cannot list this folder")
            }
            return nil
        }
        guard let names = listing(root.path, classes: true)?.names else { return set }
        // A clip is named by its path under ROOT (`wave/clip1.mp4`), never its bare name: `wave/clip1.mp4`
        // and `Background/clip1.mp4` are two clips, with two keypoint files.
        let base = root.standardizedFileURL.path + "/"
        func add(_ url: URL, label: String) {
            let full = url.standardizedFileURL.path
            let relative = full.hasPrefix(base) ? String(full.dropFirst(base.count)) : url.lastPathComponent
            if poses { set.poses.append(PoseSample(image: url, label: label)) }
            else { set.segments.append(Segment(video: url, videoPath: relative, label: label, start: nil, end: nil, source: root.path, line: nil)) }
        }
        for name in names.sorted() where !name.hasPrefix(".") {
            let url = root.appendingPathComponent(name)
            var isDir: ObjCBool = false
            _ = fm.fileExists(atPath: url.path, isDirectory: &isDir)
            if isDir.boolValue {
                guard let listed = listing(url.path, classes: false) else { continue }
                let files = listed.names.filter { !$0.hasPrefix(".") }
                var used = 0
                for f in files {
                    let ext = (f as NSString).pathExtension.lowercased()
                    if extensions.contains(ext) { add(url.appendingPathComponent(f), label: name); used += 1 }
                    else if other.contains(ext) {
                        set.log.add(.warning, .ignoredFile, file: url.appendingPathComponent(f).path,
                                    "\(poses ? "a clip" : "an image") in \(poses ? "pose" : "action") data is ignored")
                    } else if let reason = MediaKind.unreadableReason(name: f) {
                        set.log.add(.warning, .ignoredFile, file: url.appendingPathComponent(f).path, reason + "; it is ignored")
                    }
                }
                if used == 0 {
                    set.log.add(.warning, .emptyClassFolder, file: url.path, "class folder \(Diagnostic.quote(name)) holds no \(poses ? "images" : "clips")")
                }
            } else {
                let ext = (name as NSString).pathExtension.lowercased()
                guard extensions.contains(ext) else {
                    if let reason = MediaKind.unreadableReason(name: name) {
                        set.log.add(.warning, .ignoredFile, file: url.path, reason + "; it is ignored")
                    }
                    continue
                }
                // Labelled file: the label is the name before its first period (Wave.3.mov -> Wave).
                let label = String(name.prefix { $0 != "." })
                add(url, label: label)
            }
        }
        if set.segments.isEmpty && set.poses.isEmpty {
            set.log.add(.error, .noLabelledData, file: root.path, "no labelled \(poses ? "images" : "clips") found",
                        hint: "lay data out as ROOT/<label>/<file>, or name files <label>.<n>.<ext>")
        }
        return set
    }
}

func format(_ seconds: Double) -> String { String(format: "%.3fs", seconds) }
