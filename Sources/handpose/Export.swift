import Annotations
import ArgumentParser
import Datasets
import Extraction
import FileSystem
import Foundation
import KeypointStore
import Keypoints
import VideoIO

/// `handpose export`: training arrays from labelled data and keypoints.
struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write training arrays (NumPy) with a manifest: action windows from clips, or poses from images.",
        subcommands: [ExportActions.self, ExportPoses.self]
    )
}

/// Options shared by both exports.
struct ExportOptions: ParsableArguments {
    @Option(help: "Folder of keypoint files from `handpose extract`; clips or images without one are extracted now and saved there.", completion: .directory)
    var keypoints: String = "out/keypoints"

    @Option(name: .shortAndLong, help: "Output folder.", completion: .directory)
    var output: String

    @Option(help: "Hand to use: right, left, any (the most confident in each frame), both (two slots, left then right) or track (the hand identity present longest in each segment).")
    var hand: HandChoice = .any

    @Option(help: "Per-joint features: xyc (Create ML: x, y, confidence), xyz or xyzc.")
    var features: FeatureSet = .xyc

    @Option(help: "Coordinate origin: bottom-left (Vision's, y = 1 - y) or top-left (image coordinates).")
    var origin: Origin = .bottomLeft

    @Option(help: "none (as Create ML expects), wrist (relative to the wrist) or bbox (hand box scaled to 0..1).")
    var normalize: Normalization = .none

    @Option(help: "createml (N, T, C, 21) or ntjc (N, T, 21, C); both hands add a dimension of 2 after T.")
    var layout: Layout = .createml

    @Option(help: "Augmentations, e.g. flip,rotate=15,scale=0.1,translate=0.05,drop=0.1,stretch=0.2 (the --augment-part only).")
    var augment: String?

    @Option(help: "The split part that gets augmented copies (with --split; without it, every example is).")
    var augmentPart = "train"

    @Option(help: "Augmented copies per example (with --augment; 1 to 10000, default 1).")
    var copies: Int?

    @Option(help: ArgumentHelp("Class pairs whose labels trade places in mirrored (flip) copies, e.g. swipe_left:swipe_right.",
                             discussion: "Mirroring a direction-bound action makes it the other one; without this, flip would teach the model wrong labels."))
    var flipLabels: String?

    @Option(help: "Split by clip (or image), stratified by class: every class with enough clips reaches every part. E.g. train=0.8,val=0.2.")
    var split: String?

    @Option(help: "Seed for the split and augmentations.")
    var seed: UInt64 = 0

    @Option(help: "npy (X.npy, y.npy, mask.npy), npz (one data.npz), csv (a header, then the label index, X's values and the mask, one row per example) or, for poses, keypoint-csv (hand-gesture-recognition-using-mediapipe's keypoint.csv and label file).")
    var format: TrainingSet.Format = .npy

    @OptionGroup(title: "Extraction (for clips and images without keypoints; keypoint files made otherwise are refused)")
    var extraction: ExtractionFlags

    @Flag(help: "Accept keypoint files made with other settings or models than the extraction flags ask for (recorded in dataset.json).")
    var allowMixed = false

    @Flag(help: "Leave out clips and images whose keypoints cannot be read or made (listed in dataset.json), instead of stopping.")
    var skipBad = false

    @Flag(help: "Replace the output folder if it holds an earlier export.")
    var overwrite = false

    @Flag(name: .shortAndLong, help: "Print only errors, warnings and the summary (as extract -q).")
    var quiet = false

    func settings() throws -> ExportSettings {
        var s = ExportSettings()
        s.hand = hand; s.features = features; s.origin = origin; s.normalize = normalize; s.layout = layout
        s.seed = seed
        if let copies {
            guard augment != nil else { throw ValidationError("--copies \(copies) makes augmented copies: it needs --augment") }
            guard (1...10_000).contains(copies) else { throw ValidationError("--copies \(copies): give 1 to 10000 augmented copies per example") }
        }
        // Flag values the command line got wrong: usage errors (64), as --copies' are.
        do {
            if let augment { s.augment = try Augmentation.parse(augment); s.copies = copies ?? 1 }
            if let split { s.split = try SplitPart.parse(split) }
        } catch { throw ValidationError("\(error)") }
        if let flipLabels {
            do { s.flipLabels = try ExportSettings.flipLabels(flipLabels) } catch { throw ValidationError("\(error)") }
        }
        return s
    }
}

extension HandChoice: ExpressibleByArgument {}
extension FeatureSet: ExpressibleByArgument {}
extension Origin: ExpressibleByArgument {}
extension Normalization: ExpressibleByArgument {}
extension Layout: ExpressibleByArgument {}
extension TrainingSet.Format: ExpressibleByArgument {}
extension BodyJoints: ExpressibleByArgument {}

/// `--short`: what becomes of a segment shorter than a window.
enum ShortSegments: String, CaseIterable, ExpressibleByArgument { case pad, drop }
/// `--tail`: what becomes of a segment's last partial window.
enum PartialWindow: String, CaseIterable, ExpressibleByArgument { case drop, pad }

/// An export's command-line side: flags in, the library's decisions (`ExportKeypoints`, `Exporter`)
/// printed. Which keypoint files are used is decided by `ExportKeypoints`, not here.
struct ExportRun {
    let options: ExportOptions
    let settings: ExportSettings
    /// What the keypoints folder gave, once `keypoints(for:)` ran.
    private(set) var gathered = ExportKeypoints()
    /// Refusals left out with --skip-bad.
    private(set) var skipped: [ExportKeypoints.Refusal] = []

    init(options: ExportOptions, settings: ExportSettings) {
        self.options = options
        self.settings = settings
    }

    /// Keypoints of every input, by relative path (see `ExportKeypoints.gather`). Every input whose
    /// keypoints cannot be used is reported together; with --skip-bad they are left out and listed in
    /// dataset.json, otherwise nothing is written and the exit code is 1.
    mutating func keypoints(for inputs: [ExportKeypoints.Input]) throws -> [PathKey: KeypointFile] {
        let root = URL(fileURLWithPath: options.keypoints).standardizedFileURL
        let output = URL(fileURLWithPath: options.output).standardizedFileURL
        if (root.path + "/").hasPrefix(output.path + "/") {
            throw ValidationError("--keypoints \(options.keypoints) lies inside the output folder \(options.output), which an export replaces whole; keep keypoints elsewhere")
        }
        // Where the keypoints folder's file system folds names (a share from macOS), two clips whose names differ
        // only in normalisation or letter case would read and write one keypoint file: refused, as extract does.
        do {
            try InputFiles.refuseFoldedCollisions(inputs.map { InputFiles.Item(url: $0.url, relative: $0.relative) }, writtenIn: root)
        } catch InputFiles.Problem.collisions(let count, let listed) {
            throw RuntimeFailure("""
                \(count) clips or images would share a keypoint file in \(root.path), whose file system takes names that \
                differ only in letter case or Unicode normalisation for one:
                  \(listed)
                Name each clip one way in the annotations (or rename one of each pair), or give --keypoints a folder on a \
                file system that keeps such names apart.
                """)
        } catch { throw RuntimeFailure("\(error)") }
        // The output is checked before any extraction (a file in the way, a non-empty folder without --overwrite).
        do { try StagedFolder.export(output, replace: options.overwrite).discard() } catch { throw RuntimeFailure("\(error)") }
        // The models asked for; when they cannot be found, files made already are still usable.
        var pipeline: ExtractionPipeline?
        var noPipeline = ""
        do { pipeline = try options.extraction.pipeline(overwrite: false) } catch { noPipeline = "\(error)" }
        let flags = options.extraction
        gathered = ExportKeypoints.gather(inputs, from: KeypointFolder(root), settings: { KeypointFile.Settings(flags.settings(forStill: $0)) },
                                          pipeline: pipeline, noPipeline: noPipeline, allowMixed: options.allowMixed, label: ExtractionFlags.label,
                                          extracting: { [quiet = options.quiet] n in
                                              if quiet { return }
                                              Console.line("extracting \(n) clips and images without usable keypoints into \(root.path)")
                                          }, events: { event in
                                              // Said even with -q: a keypoint file moved is the user's data.
                                              if case .setAside(let name, let kept, let reason) = event {
                                                  Console.warning("\(name): its keypoint file cannot be read (\(reason)); kept as \(kept) and extracted again")
                                              }
                                          })
        if gathered.interrupted { throw ExitCode(ToolExit.interrupted) }
        if !gathered.unwritable.isEmpty {
            for reason in gathered.unwritable { Console.error(reason) }
            throw RuntimeFailure("keypoints cannot be written into \(root.path); nothing exported")
        }
        if let reason = gathered.couldNotExtract { throw RuntimeFailure(reason) }
        let problems = gathered.refused
        guard problems.isEmpty else {
            for p in problems {
                let hint = [Verdict.State.otherSettings, .otherModels].contains(p.state) ? "; extract it again with these flags, or add --allow-mixed" : ""
                Console.error("\(p.input.url.path): \(p.reason)\(hint)")
            }
            if options.skipBad {
                Console.line("leaving out \(problems.count) of \(inputs.count) clips and images (--skip-bad)")
                skipped = problems
                return gathered.files
            }
            Console.line("\(problems.count) of \(inputs.count) clips and images have no usable keypoints; nothing written. Fix them, or add --skip-bad to leave them out.")
            throw ExitCode(ToolExit.someInputsFailed)
        }
        return gathered.files
    }

    /// Splits, augments the --augment-part and writes the dataset (Datasets' `Exporter`); prints the shapes.
    var exporter: Exporter {
        var exporter = Exporter(settings: settings, tool: .init(name: "handpose", version: Handpose.version),
                                command: ProcessArguments.all.dropFirst().joined(separator: " "))
        exporter.format = options.format
        exporter.augmentPart = options.augmentPart
        return exporter
    }

    /// An export refused as a run failure: too large for this machine is no error in the data (the same
    /// export runs where memory allows), the others are.
    static func failure(_ e: ExportError) -> RuntimeFailure {
        if case .tooLarge = e { return RuntimeFailure(e.description, code: ToolExit.couldNotRun) }
        return RuntimeFailure(e.description, code: ToolExit.dataErrors)
    }

    /// What can be refused from the classes alone is refused before any keypoints are extracted.
    func check(classes: [String]) throws {
        do { try exporter.check(classes: classes) } catch let e as ExportError { throw ValidationError(e.description) }
    }

    func write(_ examples: [Example], classes: [String], frames: Int?, kind: String, emptyHint: String) throws {
        var exporter = self.exporter
        exporter.models = gathered.models
        exporter.skipped = skipped.map { .init(path: $0.input.url.path, reason: $0.reason) }
        exporter.mixed = gathered.mixed
        for (c, twin) in exporter.unmappedMirrorTwins(classes: classes) {
            Console.warning("flip mirrors '\(c)' into what looks like '\(twin)' but keeps its label; add --flip-labels \(c):\(twin)")
        }
        do {
            let (parts, _) = try exporter.write(examples, classes: classes, frames: frames, kind: kind, emptyHint: emptyHint,
                                                to: URL(fileURLWithPath: options.output), replace: options.overwrite)
            for part in parts.sorted(by: { $0.name < $1.name }) where !options.quiet {
                print("\(part.name): X \(part.shape), \(part.counts.values.reduce(0, +)) examples " +
                      part.counts.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
            }
            let examples = parts.reduce(0) { $0 + $1.counts.values.reduce(0, +) }
            print("wrote \(options.output)" + (options.quiet ? " (\(examples) examples)" : ""))
        } catch let e as ExportError {
            throw Self.failure(e)
        } catch let e as DatasetError {
            // The output's fault (a full disk) is not the data's.
            if case .unwritable = e { throw RuntimeFailure(e.description) }
            throw RuntimeFailure(e.description, code: ToolExit.dataErrors)
        } catch let e as KeypointError {
            throw RuntimeFailure(e.description)
        } catch {
            throw RuntimeFailure("\(options.output): cannot be written (\(describe(error)))")
        }
    }
}

struct ExportActions: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "actions",
        abstract: "Action windows from an annotation file (or labelled folders of clips): X[N, T, 3, 21] by default.")

    @Argument(help: "Annotation file (Create ML CSV or JSON, ELAN .eaf, Label Studio JSON export), a folder of ELAN files, or a folder of labelled folders.",
              completion: .file(extensions: ["csv", "json", "eaf"]))
    var annotations: String

    @Option(help: "Folder the annotation's video paths are relative to.", completion: .directory)
    var root: String?

    @OptionGroup(title: "ELAN and Label Studio") var formatFlags: AnnotationFlags

    @Option(help: "Frames per second to resample to (real timestamps).")
    var fps: Double = 30

    @Option(help: "Frames per window (Create ML: 60 = 2 s at 30 fps).")
    var window = 60

    @Option(help: "Frames between window starts (default: the window, no overlap).")
    var stride: Int?

    @Option(help: "Segments shorter than a window: pad (with zeros, as Apple's sample) or drop.")
    var short: ShortSegments = .pad

    @Option(help: "A last partial window: drop or pad.")
    var tail: PartialWindow = .drop

    @Option(help: ArgumentHelp("Also write the body the hands belong to: upper (MediaPipe's landmarks 0-24: face, arms, hips) as B (N, T, C, 25; ntjc: N, T, 25, C) with the same features (confidence: each joint's visibility) and body_mask (N, T).",
                               discussion: "Needs keypoints made with --body (pass it: clips without keypoints are then extracted with bodies). A segment follows one person: the body its hand is tied to in the most frames (each keypoint frame's `person`), else the body seen in the most frames; frames without that person have body_mask 0. Augmentations move the body with the hands (a mirrored copy trades the person's left and right joints); --normalize other than none centres each frame's body on its shoulders' midpoint, in units of their distance."))
    var bodyJoints: BodyJoints?

    @OptionGroup var common: ExportOptions

    func validate() throws {
        guard fps > 0, window > 0, (stride ?? 1) > 0 else { throw ValidationError("--fps, --window and --stride must be positive") }
        guard InputRange.frameRate.contains(fps) else {
            throw ValidationError("--fps \(fps) is no frame rate: give one from \(InputRange.frameRate.lowerBound) to \(InputRange.frameRate.upperBound)")
        }
        guard window <= 100_000, (stride ?? 1) <= 100_000 else { throw ValidationError("--window and --stride are frames: at most 100000") }
        if bodyJoints != nil && !common.extraction.body {
            throw ValidationError("--body-joints needs keypoints with bodies: add --body (keypoints made without it are refused, clips without keypoints are extracted with it)")
        }
        guard common.format != .keypointCSV else { throw ValidationError("--format keypoint-csv is for export poses (one hand per still); actions take npy, npz or csv") }
    }

    func run() throws {
        var settings = try common.settings()
        settings.fps = fps; settings.window = window; settings.stride = stride
        settings.dropShort = short == .drop; settings.padTail = tail == .pad
        settings.body = bodyJoints
        guard var set = AnnotationSource.load(fileOrFolder: URL(fileURLWithPath: annotations), root: root.map { URL(fileURLWithPath: $0) },
                                              options: formatFlags.options) else { throw RuntimeFailure("\(annotations): no such file or folder") }
        Validator().check(&set)
        guard set.errors.isEmpty else {
            for d in set.errors { print(d) }
            print("\(set.errors.count) errors in the annotations; fix them (see `handpose validate`) and run again")
            throw ExitCode(ToolExit.dataErrors)
        }
        guard !set.segments.isEmpty else { throw RuntimeFailure("\(annotations): no segments to export", code: ToolExit.dataErrors) }
        var run = ExportRun(options: common, settings: settings)
        let classes = set.classes
        try run.check(classes: classes)
        // Counted before a window is cut: an export too large for this machine is refused, not run until the
        // system kills it. First from the segments whose ends the annotations give, before any keypoints are made.
        func checkSize(_ spans: [(start: Double, end: Double)]) throws {
            do { try ExportSize.of(spans, settings: settings, format: common.format).check(settings: settings) } catch let e as ExportError {
                throw ExportRun.failure(e)
            }
        }
        try checkSize(set.segments.compactMap { s in s.end.map { (start: s.start ?? 0, end: $0) } })
        let inputs = Set(set.segments.map { ExportKeypoints.Input(url: $0.video, relative: $0.videoPath, still: false) })
        let files = try run.keypoints(for: inputs.sorted { $0.relative < $1.relative })
        let kept = set.segments.filter { files[PathKey($0.videoPath)] != nil }
        try checkSize(kept.map { s in (start: s.start ?? 0, end: s.end ?? Windowing.clipEnd(files[PathKey(s.videoPath)]!)) })
        let examples = try ExampleBuilder.actions(kept, classes: classes, settings: settings) { files[PathKey($0.videoPath)]! }
        let longest = kept.map { s -> Double in
            let last = files[PathKey(s.videoPath)]!.frames.last?.t ?? 0
            return ((s.end ?? last) - (s.start ?? 0)) * fps
        }.max() ?? 0
        try run.write(examples, classes: classes, frames: window, kind: "actions",
                      emptyHint: "the \(kept.count) segments give no window of \(window) frames at \(fps) fps with --short \(short.rawValue) " +
                                 "(the longest segment has \(Int(longest.rounded())) frames); use " + (short == .pad ? "a smaller --window" : "--short pad or a smaller --window"))
    }
}

struct ExportPoses: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "poses",
        abstract: "Hand poses from labelled folders of images: X[N, 3, 21] by default; images without a hand are listed.")

    @Argument(help: "Folder of labelled folders of images (ROOT/<label>/<image>).")
    var root: String

    @OptionGroup var common: ExportOptions

    func validate() throws {
        if common.format == .keypointCSV && common.hand == .both {
            throw ValidationError("--format keypoint-csv holds one hand per row; choose --hand right, left or any")
        }
    }

    func run() throws {
        let settings = try common.settings()
        var set = AnnotationSource.load(labelledFolder: URL(fileURLWithPath: root), poses: true)
        Validator().check(&set)
        guard set.errors.isEmpty else {
            for d in set.errors { print(d) }
            throw ExitCode(ToolExit.dataErrors)
        }
        guard !set.poses.isEmpty else { throw RuntimeFailure("\(root): no labelled images to export (ROOT/<label>/<image>)", code: ToolExit.dataErrors) }
        var run = ExportRun(options: common, settings: settings)
        try run.check(classes: set.classes)
        let base = URL(fileURLWithPath: root).standardizedFileURL.path + "/"
        func relative(_ p: PoseSample) -> String { String(p.image.standardizedFileURL.path.dropFirst(base.count)) }
        let files = try run.keypoints(for: set.poses.map { ExportKeypoints.Input(url: $0.image, relative: relative($0), still: true) })
        let kept = set.poses.filter { files[PathKey(relative($0))] != nil }
        let (examples, missing) = try ExampleBuilder.poses(kept, classes: set.classes, settings: settings, name: relative) { files[PathKey(relative($0))]! }
        try run.write(examples, classes: set.classes, frames: nil, kind: "poses",
                      emptyHint: "none of the \(kept.count) images has a hand the --hand choice accepts")
        if !missing.isEmpty {
            print("\(missing.count) images without a hand (not exported)" + (common.quiet ? "" : ":"))
            for m in missing where !common.quiet { print("  \(m)") }
        }
    }
}
