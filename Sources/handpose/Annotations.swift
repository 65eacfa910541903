import Annotations
import ArgumentParser
import FileSystem
import Foundation
import VideoIO

/// `handpose annotations`: annotation files between the tools people annotate with.
struct AnnotationsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "annotations",
        abstract: "Annotation files between Create ML (CSV, JSON), ELAN (.eaf) and Label Studio (JSON).",
        subcommands: [Convert.self])
}

/// What `convert` writes.
enum AnnotationTarget: String, CaseIterable, ExpressibleByArgument {
    case csv, json, eaf
    case labelStudio = "label-studio"
}

struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Convert annotations: Create ML CSV or JSON, ELAN (one .eaf per clip) or Label Studio tasks with predictions.",
        discussion: """
        IN is read as validate reads it (its format from its content; a folder of .eaf files is an ELAN corpus). \
        Labels, times (to the millisecond; Label Studio counts whole frames) and clip paths are kept: a round trip gives \
        the same segments. ELAN output is a folder with one .eaf per clip (OUT/<clip path>.eaf), linking the clip by a \
        relative and an absolute path; overlapping segments of one clip go to further tiers. Label Studio output is a \
        task file with predictions (Label Studio imports them as pre-annotations) and, beside it, \
        OUT.label-config.xml, the labeling config declaring --frame-rate. Clips without start or end are opened for \
        their duration. Exit 2 when IN has errors (nothing is written).
        """)

    @Argument(help: "Annotation file, or a folder of ELAN files.", completion: .file(extensions: ["csv", "json", "eaf"]))
    var input: String

    @Option(name: .shortAndLong, help: "Output file (.csv, .json) or, for ELAN, a folder.", completion: .file())
    var output: String

    @Option(help: "Format to write. Default: from the output's name (.csv, .json; .eaf or a folder: ELAN); label-studio must be asked for.")
    var to: AnnotationTarget?

    @Option(help: "Folder the clip paths are relative to (the folder given to extract). Default: IN's folder (or IN itself, a folder).", completion: .directory)
    var root: String?

    @OptionGroup(title: "ELAN and Label Studio") var formatFlags: AnnotationFlags

    @Flag(help: "Replace an existing output.")
    var overwrite = false

    var target: AnnotationTarget {
        if let to { return to }
        switch (output as NSString).pathExtension.lowercased() {
        case "csv", "txt": return .csv
        case "json": return .json
        default: return .eaf
        }
    }

    func validate() throws {
        if target == .labelStudio && formatFlags.frameRate == nil {
            throw ValidationError("--to label-studio counts frames: give --frame-rate (the rate the Label Studio project declares)")
        }
    }

    func run() throws {
        let url = URL(fileURLWithPath: input)
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDir) else { throw RuntimeFailure("\(input): no such file or folder") }
        let rootURL = root.map { URL(fileURLWithPath: $0) }
        var set = isDir.boolValue ? AnnotationSource.load(elanFolder: url, root: rootURL, options: formatFlags.options)
                                  : AnnotationSource.load(annotationFile: url, root: rootURL, options: formatFlags.options)
        if isDir.boolValue && AnnotationSource.elanFiles(in: url).isEmpty { throw RuntimeFailure("\(input): a folder holding no .eaf files", code: ToolExit.dataErrors) }
        for d in set.warnings { FileHandle.standardError.write(Data("\(d)\n".utf8)) }
        guard set.errors.isEmpty else {
            for d in set.errors { FileHandle.standardError.write(Data("\(d)\n".utf8)) }
            throw RuntimeFailure("\(set.errorCount) errors in \(input); nothing written", code: ToolExit.dataErrors)
        }
        guard !set.segments.isEmpty else { throw RuntimeFailure("\(input): no segments", code: ToolExit.dataErrors) }
        let out = URL(fileURLWithPath: output)
        if FileManager.default.fileExists(atPath: out.path) && !overwrite {
            throw RuntimeFailure("\(output) exists; add --overwrite to replace it")
        }
        do {
            switch target {
            case .csv: try AtomicFile.write(Data(AnnotationWriter.csv(set.segments).utf8), to: out)
            case .json: try AtomicFile.write(AnnotationWriter.json(set.segments), to: out)
            case .labelStudio:
                let fps = formatFlags.frameRate!
                try AtomicFile.write(LabelStudioWriter.tasks(set.segments, frameRate: fps, modelVersion: "handpose \(Handpose.version)"), to: out)
                let config = out.deletingPathExtension().appendingPathExtension("label-config.xml")
                try AtomicFile.write(Data(LabelStudioWriter.labelConfig(classes: set.classes, frameRate: fps).utf8), to: config)
                print("wrote \(output) (\(set.segments.count) segments) and \(config.path), the labeling config to paste into the project")
                return
            case .eaf:
                try writeElan(&set.segments, into: out)
            }
        } catch let e as RuntimeFailure { throw e } catch {
            throw RuntimeFailure("cannot write \(output): \(error)")
        }
        print("wrote \(output) (\(set.segments.count) segments, \(set.classes.count) classes)")
    }

    /// One .eaf per clip under `folder`, named by the clip's path; open ends filled from the clip.
    func writeElan(_ segments: inout [Segment], into folder: URL) throws {
        var byClip: [String: [Segment]] = [:]
        for s in segments { byClip[s.videoPath, default: []].append(s) }
        for (path, list) in byClip.sorted(by: { $0.key < $1.key }) {
            var list = list
            if list.contains(where: { $0.start == nil || $0.end == nil }) {
                let duration: Double
                do { duration = try VideoReader(url: list[0].video).info.duration } catch {
                    throw RuntimeFailure("\(list[0].videoFile): cannot open it for its duration (a segment has no end): \(error)", code: ToolExit.dataErrors)
                }
                for k in list.indices { list[k].start = list[k].start ?? 0; list[k].end = list[k].end ?? duration }
            }
            let eaf = folder.appendingPathComponent(path + ".eaf")
            try FileManager.default.createDirectory(at: eaf.deletingLastPathComponent(), withIntermediateDirectories: true)
            try AtomicFile.write(Data(ElanWriter.document(list, clip: list[0].videoFile, savedAt: eaf).utf8), to: eaf)
        }
    }
}
