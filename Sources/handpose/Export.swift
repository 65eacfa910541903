import Annotations
import ArgumentParser
import Datasets
import Extraction
import Foundation
import HandLandmarks
import Keypoints

/// `handpose export`: training arrays from labelled data and keypoints.
struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write training arrays (NumPy) with a manifest: action windows from clips, or poses from images.",
        subcommands: [ExportActions.self, ExportPoses.self]
    )
}

/// Options shared by both exports.
struct ExportOptions: ParsableArguments {
    @Option(help: "Folder of keypoint files from `handpose extract`; clips or images without one are extracted now and saved there.")
    var keypoints: String = "out/keypoints"

    @Option(name: .shortAndLong, help: "Output folder.")
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

    @Option(help: "Augmented copies per example.")
    var copies = 1

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

    func settings() throws -> ExportSettings {
        var s = ExportSettings()
        s.hand = hand; s.features = features; s.origin = origin; s.normalize = normalize; s.layout = layout
        s.seed = seed
        if let augment { s.augment = try Augmentation.parse(augment); s.copies = copies }
        if let split { s.split = try SplitPart.parse(split) }
        for pair in (flipLabels ?? "").split(separator: ",") {
            let names = pair.split(separator: ":").map { $0.trimmingCharacters(in: .whitespaces) }
            guard names.count == 2, !names[0].isEmpty, !names[1].isEmpty, names[0] != names[1] else {
                throw ValidationError("--flip-labels: '\(pair)' is not two different classes as a:b")
            }
            s.flipLabels[names[0]] = names[1]
            s.flipLabels[names[1]] = names[0]
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

/// A clip or image an export needs keypoints for: its file, and its path relative to the annotation
/// root, which is also where its keypoints are in the keypoints folder (never its bare file name).
struct ExportInput: Hashable {
    var url: URL
    var relative: String
    var still: Bool
}

/// Finds or makes the keypoint files of an export, collects every bad input in one pass, and writes
/// the split folders and dataset.json into a staged folder moved into place at the end.
struct ExportRun {
    let options: ExportOptions
    let settings: ExportSettings
    /// (path, reason) of inputs left out with --skip-bad.
    private(set) var skipped: [(path: String, reason: String)] = []
    private(set) var modelHashes: [String: String] = [:]
    /// Keypoint files accepted although made otherwise than asked (--allow-mixed).
    private(set) var mixed: [String] = []

    init(options: ExportOptions, settings: ExportSettings) {
        self.options = options
        self.settings = settings
    }

    /// Keypoints of every input, by relative path. Missing ones are extracted (through the same pipeline
    /// as `extract`, with the same flags) into the keypoints folder. Every input whose keypoints cannot
    /// be read or made, or were made with other settings or models, is reported together; with
    /// --skip-bad they are left out and listed in dataset.json, otherwise nothing is written and the
    /// exit code is 1.
    mutating func keypoints(for inputs: [ExportInput]) throws -> [String: KeypointFile] {
        let root = URL(fileURLWithPath: options.keypoints).standardizedFileURL
        let output = URL(fileURLWithPath: options.output).standardizedFileURL
        if (root.path + "/").hasPrefix(output.path + "/") {
            throw ValidationError("--keypoints \(options.keypoints) lies inside the output folder \(options.output), which an export replaces whole; keep keypoints elsewhere")
        }
        // The output is checked before any extraction (a file in the way, a non-empty folder without --overwrite).
        do { try StagedFolder(output, replace: options.overwrite).discard() } catch { throw ValidationError("\(error)") }
        var problems: [(String, String)] = []
        var files: [String: KeypointFile] = [:]
        var missing: [InputFiles.Item] = []
        for input in inputs {
            let url = ExtractionPipeline.outputURL(for: input.relative, in: root)
            if FileManager.default.fileExists(atPath: url.path) {
                do {
                    let file = try KeypointFile.load(url)
                    if let damage = file.incomplete {
                        problems.append((input.url.path, "its keypoints are incomplete (\(damage.error))"))
                    } else {
                        files[input.relative] = file
                    }
                } catch { problems.append((input.url.path, "\(error)")) }
            } else {
                missing.append(InputFiles.Item(url: input.url, relative: input.relative))
            }
        }
        let pipeline = try? options.extraction.pipeline(overwrite: false)
        if !missing.isEmpty {
            guard let pipeline else { _ = try options.extraction.pipeline(overwrite: false); return [:] }   // rethrows its error
            FileHandle.standardError.write(Data("extracting \(missing.count) clips and images without keypoints into \(root.path)\n".utf8))
            let failures = EventLog()
            let finished = pipeline.run(missing, into: root) { event in
                switch event {
                case .failed(let name, let reason): failures.add(name, reason)
                case .incomplete(let name, _, let reason): failures.add(name, "keypoints incomplete: \(reason)")
                default: break
                }
            }
            guard finished else { throw ExitCode(130) }
            let failed = Dictionary(failures.entries, uniquingKeysWith: { a, _ in a })
            for item in missing {
                if let reason = failed[item.relative] { problems.append((item.url.path, reason)); continue }
                do { files[item.relative] = try KeypointFile.load(ExtractionPipeline.outputURL(for: item.relative, in: root)) } catch {
                    problems.append((item.url.path, "\(error)"))
                }
            }
        }
        // Every file made with the settings and models asked for (or, without the models here, all alike).
        for input in inputs {
            guard let file = files[input.relative] else { continue }
            let expected = KeypointFile.Settings(options.extraction.options(forStill: input.still))
            let models = pipeline?.models.hashes ?? files.values.first?.models ?? [:]
            var why: String?
            if file.settings == nil { why = "record no extraction settings (not made by handpose extract?)" }
            else if file.settings != expected { why = "were made with other settings (\(Self.asFlags(file.settings!.differences(from: expected))))" }
            else if file.models != models { why = "were made with other models (\((file.models ?? [:]).keys.sorted().joined(separator: ", ")))" }
            if let why {
                if options.allowMixed { mixed.append(input.relative) } else {
                    problems.append((input.url.path, "its keypoints \(why); extract it again with these flags, or add --allow-mixed"))
                    files[input.relative] = nil
                }
            }
            if files[input.relative] != nil { modelHashes.merge(file.models ?? [:]) { a, _ in a } }
        }
        guard problems.isEmpty else {
            for (path, reason) in problems { FileHandle.standardError.write(Data("error: \(path): \(reason)\n".utf8)) }
            if options.skipBad {
                FileHandle.standardError.write(Data("leaving out \(problems.count) of \(inputs.count) clips and images (--skip-bad)\n".utf8))
                skipped = problems
                for (path, _) in problems { if let i = inputs.first(where: { $0.url.path == path }) { files[i.relative] = nil } }
                return files
            }
            FileHandle.standardError.write(Data("\(problems.count) of \(inputs.count) clips and images have no usable keypoints; nothing written. Fix them, or add --skip-bad to leave them out.\n".utf8))
            throw ExitCode(1)
        }
        return files
    }

    /// Settings differences ("model: lite (asked full)") named by the flags that set them.
    static func asFlags(_ differences: [String]) -> String {
        let flags = ["model": "--model", "maxHands": "--max-hands", "minDetectionConfidence": "--min-detection-confidence",
                     "minPresenceConfidence": "--min-presence-confidence", "mode": "--mode", "mirrored": "--mirrored",
                     "smoothing": "--smooth", "smoother": "smoothing method", "rules": "--legacy (rules)",
                     "pipeline": "pipeline revision (an earlier handpose made it; extract it again):"]
        return differences.map { d in
            guard let colon = d.firstIndex(of: ":"), let flag = flags[String(d[..<colon])] else { return d }
            return flag + d[colon...].dropFirst()
        }.joined(separator: "; ")
    }

    /// Splits, augments the --augment-part and writes the dataset (Datasets' `Exporter`); prints the shapes.
    var exporter: Exporter {
        var exporter = Exporter(settings: settings, tool: .init(name: "handpose", version: Handpose.version),
                                command: CommandLine.arguments.dropFirst().joined(separator: " "))
        exporter.format = options.format
        exporter.augmentPart = options.augmentPart
        return exporter
    }

    /// What can be refused from the classes alone is refused before any keypoints are extracted.
    func check(classes: [String]) throws {
        do { try exporter.check(classes: classes) } catch let e as ExportError { throw ValidationError(e.description) }
    }

    func write(_ examples: [Example], classes: [String], frames: Int?, kind: String, emptyHint: String) throws {
        var exporter = self.exporter
        exporter.models = modelHashes
        exporter.skipped = skipped.map { .init(path: $0.path, reason: $0.reason) }
        exporter.mixed = mixed
        for (c, twin) in exporter.unmappedMirrorTwins(classes: classes) {
            FileHandle.standardError.write(Data("warning: flip mirrors '\(c)' into what looks like '\(twin)' but keeps its label; add --flip-labels \(c):\(twin)\n".utf8))
        }
        do {
            let (parts, _) = try exporter.write(examples, classes: classes, frames: frames, kind: kind, emptyHint: emptyHint,
                                                to: URL(fileURLWithPath: options.output), replace: options.overwrite)
            for part in parts.sorted(by: { $0.name < $1.name }) {
                print("\(part.name): X \(part.shape), \(part.counts.values.reduce(0, +)) examples " +
                      part.counts.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
            }
            print("wrote \(options.output)")
        } catch let e as ExportError {
            throw ValidationError(e.description)
        } catch let e as DatasetError {
            throw ValidationError(e.description)
        } catch let e as KeypointError {
            throw ValidationError(e.description)
        } catch {
            throw ValidationError("\(options.output): cannot be written (\(describe(error)))")
        }
    }
}

/// Pipeline failures gathered from its events.
final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [(String, String)] = []
    var entries: [(String, String)] { lock.lock(); defer { lock.unlock() }; return items }
    func add(_ name: String, _ reason: String) { lock.lock(); items.append((name, reason)); lock.unlock() }
}

struct ExportActions: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "actions",
        abstract: "Action windows from an annotation file (or labelled folders of clips): X[N, T, 3, 21] by default.")

    @Argument(help: "Annotation file (.csv/.json) or folder of labelled folders.")
    var annotations: String

    @Option(help: "Folder the annotation's video paths are relative to.")
    var root: String?

    @Option(help: "Frames per second to resample to (real timestamps).")
    var fps: Double = 30

    @Option(help: "Frames per window (Create ML: 60 = 2 s at 30 fps).")
    var window = 60

    @Option(help: "Frames between window starts (default: the window, no overlap).")
    var stride: Int?

    @Option(help: "Segments shorter than a window: pad (with zeros, as Apple's sample) or drop.")
    var short: String = "pad"

    @Option(help: "A last partial window: drop or pad.")
    var tail: String = "drop"

    @OptionGroup var common: ExportOptions

    func validate() throws {
        guard fps > 0, window > 0, (stride ?? 1) > 0 else { throw ValidationError("--fps, --window and --stride must be positive") }
        guard ["pad", "drop"].contains(short), ["pad", "drop"].contains(tail) else { throw ValidationError("--short and --tail take pad or drop") }
        guard common.format != .keypointCSV else { throw ValidationError("--format keypoint-csv is for export poses (one hand per still); actions take npy, npz or csv") }
    }

    func run() throws {
        var settings = try common.settings()
        settings.fps = fps; settings.window = window; settings.stride = stride
        settings.dropShort = short == "drop"; settings.padTail = tail == "pad"
        let url = URL(fileURLWithPath: annotations)
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDir) else { throw ValidationError("\(annotations): no such file or folder") }
        var set = isDir.boolValue ? AnnotationSource.load(labelledFolder: url, poses: false)
                                  : AnnotationSource.load(annotationFile: url, root: root.map { URL(fileURLWithPath: $0) })
        Validator().check(&set)
        guard set.errors.isEmpty else {
            for d in set.errors { print(d) }
            print("\(set.errors.count) errors in the annotations; fix them (see `handpose validate`) and run again")
            throw ExitCode(2)
        }
        guard !set.segments.isEmpty else { throw ValidationError("\(annotations): no segments to export") }
        var run = ExportRun(options: common, settings: settings)
        let classes = set.classes
        try run.check(classes: classes)
        let inputs = Set(set.segments.map { ExportInput(url: $0.video, relative: $0.videoPath, still: false) })
        let files = try run.keypoints(for: inputs.sorted { $0.relative < $1.relative })
        let kept = set.segments.filter { files[$0.videoPath] != nil }
        let examples = try ExampleBuilder.actions(kept, classes: classes, settings: settings) { files[$0.videoPath]! }
        let longest = kept.map { s -> Double in
            let last = files[s.videoPath]!.frames.last?.t ?? 0
            return ((s.end ?? last) - (s.start ?? 0)) * fps
        }.max() ?? 0
        try run.write(examples, classes: classes, frames: window, kind: "actions",
                      emptyHint: "the \(kept.count) segments give no window of \(window) frames at \(fps) fps with --short \(short) " +
                                 "(the longest segment has \(Int(longest.rounded())) frames); use --short pad or a smaller --window")
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
            throw ExitCode(2)
        }
        guard !set.poses.isEmpty else { throw ValidationError("\(root): no labelled images to export (ROOT/<label>/<image>)") }
        var run = ExportRun(options: common, settings: settings)
        try run.check(classes: set.classes)
        let base = URL(fileURLWithPath: root).standardizedFileURL.path + "/"
        func relative(_ p: PoseSample) -> String { String(p.image.standardizedFileURL.path.dropFirst(base.count)) }
        let files = try run.keypoints(for: set.poses.map { ExportInput(url: $0.image, relative: relative($0), still: true) })
        let kept = set.poses.filter { files[relative($0)] != nil }
        let (examples, missing) = try ExampleBuilder.poses(kept, classes: set.classes, settings: settings, name: relative) { files[relative($0)]! }
        try run.write(examples, classes: set.classes, frames: nil, kind: "poses",
                      emptyHint: "none of the \(kept.count) images has a hand the --hand choice accepts")
        if !missing.isEmpty {
            print("\(missing.count) images without a hand (not exported):")
            for m in missing { print("  \(m)") }
        }
    }
}
