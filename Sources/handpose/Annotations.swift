import Analysis
import Annotations
import ArgumentParser
import FileSystem
import Foundation
import Keypoints

/// `handpose annotations`: annotation files between the tools people annotate with.
struct AnnotationsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "annotations",
        abstract: "Annotation files between Create ML (CSV, JSON), ELAN (.eaf) and Label Studio (JSON).",
        subcommands: [Convert.self, Suggest.self])
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
        Labels, times (to the millisecond; Label Studio counts whole frames) and clip paths are kept (a path's `.`, `..` and \
        doubled slashes resolved: ./clip.mp4 is written clip.mp4): a round trip gives the same segments. ELAN output is a folder with one .eaf per clip (or one .eaf file for one clip) (OUT/<clip path>.eaf), linking the clip by a \
        relative and an absolute path; overlapping segments of one clip go to further tiers. Label Studio output is a \
        task file with predictions (Label Studio imports them as pre-annotations) and, beside it, \
        OUT.label-config.xml, the labeling config declaring --output-frame-rate. Clips without start or end are opened for \
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

    @OptionGroup(title: "ELAN and Label Studio (reading IN)") var formatFlags: AnnotationFlags

    @Option(help: "Label Studio output: the frame rate the project declares (ranges are written in its frames).")
    var outputFrameRate: Double?

    @Flag(help: "Replace an existing output.")
    var overwrite = false

    var target: AnnotationTarget { to ?? Self.target(of: output) }

    /// The format `output` asks for by its name: .csv, .json, otherwise ELAN.
    static func target(of output: String) -> AnnotationTarget {
        switch (output as NSString).pathExtension.lowercased() {
        case "csv", "txt": return .csv
        case "json": return .json
        default: return .eaf
        }
    }

    func validate() throws {
        if target == .labelStudio && outputFrameRate == nil {
            throw ValidationError("--to label-studio counts frames: give --output-frame-rate (the rate the Label Studio project declares)")
        }
        try checkFrameRate(outputFrameRate, flag: "--output-frame-rate")
    }

    func run() throws {
        guard let set = AnnotationSource.load(fileOrFolder: URL(fileURLWithPath: input), root: root.map { URL(fileURLWithPath: $0) },
                                              options: formatFlags.options) else { throw RuntimeFailure("\(input): no such file or folder") }
        for d in set.warnings { Console.line("\(d)") }
        guard set.errors.isEmpty else {
            for d in set.errors { Console.line("\(d)") }
            throw RuntimeFailure("\(set.errorCount) errors in \(input); nothing written", code: ToolExit.dataErrors)
        }
        guard !set.segments.isEmpty else { throw RuntimeFailure("\(input): no segments", code: ToolExit.dataErrors) }
        let out = URL(fileURLWithPath: output)
        if FileManager.default.fileExists(atPath: out.path) && !overwrite {
            throw RuntimeFailure("\(output) exists; add --overwrite to replace it")
        }
        print(try Self.write(set.segments, to: out, as: target, frameRate: outputFrameRate, overwrite: overwrite))
    }

    /// Writes `segments` as `target` at `out` (ELAN: a file for one clip named .eaf, else a folder of one
    /// .eaf per clip; Label Studio: the tasks and, beside them, the labeling config); says what it wrote.
    static func write(_ segments: [Segment], to out: URL, as target: AnnotationTarget, frameRate: Double?, overwrite: Bool) throws -> String {
        let classes = Set(segments.map(\.label)).sorted()
        do {
            switch target {
            case .csv: try AtomicFile.write(Data(AnnotationWriter.csv(segments).utf8), to: out)
            case .json: try AtomicFile.write(AnnotationWriter.json(segments), to: out)
            case .labelStudio:
                guard let fps = frameRate else { throw RuntimeFailure("Label Studio counts frames: give its frame rate", code: ToolExit.usage) }
                let config = out.deletingPathExtension().appendingPathExtension("label-config.xml")
                if FileManager.default.fileExists(atPath: config.path) && !overwrite {
                    throw RuntimeFailure("\(config.path) exists; add --overwrite to replace it")
                }
                try AtomicFile.write(LabelStudioWriter.tasks(segments, frameRate: fps, modelVersion: "handpose \(Handpose.version)"), to: out)
                try AtomicFile.write(Data(LabelStudioWriter.labelConfig(classes: classes, frameRate: fps).utf8), to: config)
                return "wrote \(out.path) (\(segments.count) segments) and \(config.path), the labeling config to paste into the project"
            case .eaf:
                try ElanFolder.write(segments, to: out, overwrite: overwrite)
            }
        } catch let e as RuntimeFailure { throw e } catch let e as ElanFolder.WriteError {
            if case .severalClips = e { throw RuntimeFailure("\(e)", code: ToolExit.usage) }
            throw RuntimeFailure("\(e)", code: ToolExit.dataErrors)
        } catch let e as StagedFolder.Refusal {
            throw RuntimeFailure("\(e)")
        } catch {
            throw RuntimeFailure("cannot write \(out.path): \(error)")
        }
        return "wrote \(out.path) (\(segments.count) segments, \(classes.count) classes)"
    }
}

struct Suggest: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Draft segments where a hand is present and moving, from keypoint files, for annotators to correct in ELAN or Label Studio.",
        discussion: """
        A hand moves when its joints move relative to its wrist, or its wrist moves, faster than --min-speed palm sizes \
        a second (each hand against itself in its own track); pauses shorter than --merge-gap are bridged and drafts \
        shorter than --min-duration dropped. Each draft gets the label --label, to be corrected. Written as convert \
        writes (an .eaf for one clip or a folder of them, Label Studio tasks with predictions, Create ML CSV or JSON).
        """)

    @Argument(help: "Keypoint files (.hands.json), or folders of them (searched with their sub-folders).", completion: .file())
    var keypoints: [String]

    @Option(name: .shortAndLong, help: "Output: drafts.eaf (one clip), a folder (one .eaf per clip), tasks.json with --to label-studio, or .csv / .json.", completion: .file())
    var output: String

    @Option(help: "The folder the clips were extracted from (keypoint files name their clips relative to it).", completion: .directory)
    var root: String

    @Option(help: "Format to write (default: from the output's name; label-studio must be asked for).")
    var to: AnnotationTarget?

    @Option(help: "The drafts' label.") var label = "gesture"
    @Option(help: "Palm sizes a second above which a hand is moving.") var minSpeed = DraftSegments.Settings().minSpeed
    @Option(help: "Seconds: a shorter pause does not end a draft.") var mergeGap = DraftSegments.Settings().mergeGap
    @Option(help: "Seconds: shorter drafts are dropped.") var minDuration = DraftSegments.Settings().minDuration
    @Option(help: "Label Studio: the frame rate of the project (default: the clips' own, when they share one).") var frameRate: Double?
    @Flag(help: "Replace an existing output.") var overwrite = false

    func validate() throws {
        guard minSpeed > 0, mergeGap >= 0, minDuration >= 0 else { throw ValidationError("--min-speed must be positive, --merge-gap and --min-duration not negative") }
        guard InputRange.seconds.contains(mergeGap), InputRange.seconds.contains(minDuration) else {
            throw ValidationError("--merge-gap and --min-duration must be at most \(Int(InputRange.seconds.upperBound)) seconds")
        }
        try checkFrameRate(frameRate, flag: "--frame-rate")
        guard !label.trimmingCharacters(in: .whitespaces).isEmpty else { throw ValidationError("--label must not be empty") }
    }

    func run() throws {
        var files: [URL] = []
        for k in keypoints {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: k, isDirectory: &isDir) else { throw RuntimeFailure("\(k): no such file or folder") }
            if isDir.boolValue {
                let walk = FileManager.default.enumerator(at: URL(fileURLWithPath: k), includingPropertiesForKeys: nil)
                while let url = walk?.nextObject() as? URL { if url.lastPathComponent.hasSuffix(".hands.json") { files.append(url) } }
            } else { files.append(URL(fileURLWithPath: k)) }
        }
        guard !files.isEmpty else { throw RuntimeFailure("no keypoint files (.hands.json) in \(keypoints.joined(separator: ", "))") }
        var settings = DraftSegments.Settings()
        settings.minSpeed = minSpeed; settings.mergeGap = mergeGap; settings.minDuration = minDuration
        let base = URL(fileURLWithPath: root).standardizedFileURL
        if let problem = RegularFile.folderProblem(base.path) {
            throw RuntimeFailure("--root \(root): \(problem): the drafts name their clips under it; give the folder the clips were extracted from")
        }
        var segments: [Segment] = []
        var rates = Set<Double>()
        var failed = 0, incomplete = 0
        for url in files.sorted(by: { $0.path < $1.path }) {
            let file: KeypointFile
            do { file = try KeypointFile.load(url) } catch {
                Console.error("\(url.path): \(error)"); failed += 1; continue
            }
            if let note = file.incompleteNote {
                Console.warning("\(url.path): \(note): drafts cover only the frames before")
                incomplete += 1
            }
            if let fps = file.video.fps { rates.insert(fps) }
            let clip = base.appendingPathComponent(file.source.path).path
            for d in DraftSegments.suggest(file, settings: settings) {
                segments.append(Segment(videoFile: clip, videoPath: file.source.path, label: label, start: (d.start * 1000).rounded() / 1000,
                                        end: (d.end * 1000).rounded() / 1000, source: url.path, line: nil))
            }
        }
        let target = to ?? Convert.target(of: output)
        let out = URL(fileURLWithPath: output)
        if FileManager.default.fileExists(atPath: out.path) && !overwrite { throw RuntimeFailure("\(output) exists; add --overwrite to replace it") }
        guard !segments.isEmpty else { throw RuntimeFailure("no hand moved in \(files.count - failed) keypoint files: no drafts (try a lower --min-speed)", code: ToolExit.dataErrors) }
        var fps = frameRate
        if target == .labelStudio && fps == nil {
            guard rates.count == 1 else { throw RuntimeFailure("the clips have \(rates.count) frame rates; give --frame-rate, the one the Label Studio project declares", code: ToolExit.usage) }
            fps = rates.first
        }
        let clips = Set(segments.map(\.videoPath)).count
        print(try Convert.write(segments, to: out, as: target, frameRate: fps, overwrite: overwrite) + " from \(clips) of \(files.count) clips")
        if failed + incomplete > 0 { throw ExitCode(ToolExit.someInputsFailed) }
    }
}

/// A frame rate given as a flag (a Label Studio project's, which every segment's frames are counted at):
/// inside the range of rates, so no segment collapses to frame 1 (1e-300) and no count overflows.
func checkFrameRate(_ rate: Double?, flag: String) throws {
    if let rate, !InputRange.frameRate.contains(rate) {
        throw ValidationError("\(flag) must be from \(InputRange.frameRate.lowerBound) to \(Int(InputRange.frameRate.upperBound)) frames a second")
    }
}
