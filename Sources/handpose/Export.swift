import Annotations
import ArgumentParser
import Datasets
import Extraction
import Foundation
import HandLandmarks

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

    @Option(help: "Hand to use: right, left, any (the most confident) or both (two slots, left then right).")
    var hand: HandChoice = .any

    @Option(help: "Per-joint features: xyc (Create ML: x, y, confidence), xyz or xyzc.")
    var features: FeatureSet = .xyc

    @Option(help: "Coordinate origin: bottom-left (Vision's, y = 1 - y) or top-left (image coordinates).")
    var origin: Origin = .bottomLeft

    @Option(help: "none (as Create ML expects), wrist (relative to the wrist) or bbox (hand box scaled to 0..1).")
    var normalize: Normalization = .none

    @Option(help: "createml (N, T, C, 21) or ntjc (N, T, 21, C); both hands add a dimension of 2 after T.")
    var layout: Layout = .createml

    @Option(help: "Augmentations, e.g. flip,rotate=15,scale=0.1,translate=0.05,drop=0.1,stretch=0.2 (training part only).")
    var augment: String?

    @Option(help: "Augmented copies per example.")
    var copies = 1

    @Option(help: ArgumentHelp("Class pairs whose labels trade places in mirrored (flip) copies, e.g. swipe_left:swipe_right.",
                             discussion: "Mirroring a direction-bound action makes it the other one; without this, flip would teach the model wrong labels."))
    var flipLabels: String?

    @Option(help: "Split by clip (or image), stratified by class: every class with enough clips reaches every part. E.g. train=0.8,val=0.2.")
    var split: String?

    @Option(help: "Seed for the split and augmentations.")
    var seed: UInt64 = 0

    @Option(help: "npy (X.npy, y.npy, mask.npy), npz (one data.npz) or csv (label index then values, one row per example).")
    var format: TrainingSet.Format = .npy

    @Option(help: "Folder with the .tflite models (for on-the-fly extraction).")
    var models = "Models"

    func settings() throws -> ExportSettings {
        var s = ExportSettings()
        s.hand = hand; s.features = features; s.origin = origin; s.normalize = normalize; s.layout = layout
        s.seed = seed
        if let augment { s.augment = try Augmentation.parse(augment).map(\.description); s.copies = copies }
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

/// Finds or makes keypoint files, and writes the split folders and dataset.json.
struct ExportRun {
    let options: ExportOptions
    let settings: ExportSettings
    var trackers: [HandTrackerOptions: HandTracker] = [:]
    var models: HandModels?
    var modelHashes: [String: String] = [:]

    init(options: ExportOptions, settings: ExportSettings) {
        self.options = options
        self.settings = settings
    }

    mutating func keypoints(for media: URL, relative: String, still: Bool) throws -> KeypointFile {
        let dir = URL(fileURLWithPath: options.keypoints)
        for candidate in [relative, media.lastPathComponent] {
            let url = dir.appendingPathComponent(candidate + ".hands.json")
            if FileManager.default.fileExists(atPath: url.path) {
                let file = try KeypointFile.load(url)
                modelHashes.merge(file.models ?? [:]) { a, _ in a }
                return file
            }
        }
        if models == nil { models = try HandModels(directory: URL(fileURLWithPath: options.models), complexity: .full) }
        var o = HandTrackerOptions()
        o.mode = still ? .image : .video
        if trackers[o] == nil { trackers[o] = try HandTracker(models: models!, options: o, threads: ProcessInfo.processInfo.activeProcessorCount) }
        FileHandle.standardError.write(Data("extracting \(relative)\n".utf8))
        let file = try KeypointExtraction.extract(media, sourcePath: relative, tracker: trackers[o]!,
                                                  tool: .init(name: "handpose", version: Handpose.version))
        try file.write(to: dir.appendingPathComponent(relative + ".hands.json"))
        modelHashes.merge(file.models ?? [:]) { a, _ in a }
        return file
    }

    /// `--flip-labels` as class indices. A name that is no class is refused; mirroring classes that
    /// look like a left/right pair without a mapping earns a warning.
    func flippedLabels(classes: [String]) throws -> [Int: Int] {
        var map: [Int: Int] = [:]
        for (a, b) in settings.flipLabels {
            guard let i = classes.firstIndex(of: a), let j = classes.firstIndex(of: b) else {
                let missing = classes.contains(a) ? b : a
                throw ValidationError("--flip-labels: '\(missing)' is not a class (classes: \(classes.joined(separator: ", ")))")
            }
            map[i] = j
        }
        if settings.augment.contains("flip") {
            for c in classes where c.contains("left") && settings.flipLabels[c] == nil {
                let twin = c.replacingOccurrences(of: "left", with: "right")
                if classes.contains(twin) {
                    FileHandle.standardError.write(Data("warning: flip mirrors '\(c)' into what looks like '\(twin)' but keeps its label; add --flip-labels \(c):\(twin)\n".utf8))
                }
            }
        }
        return map
    }

    /// Splits, augments the training part, writes every part and dataset.json; prints shapes.
    func write(_ examples: [Example], classes: [String], frames: Int?, kind: String) throws {
        let out = URL(fileURLWithPath: options.output)
        let augmentations = try settings.augment.flatMap { try Augmentation.parse($0) }
        // A clip's class for the split: its most frequent label (the smallest on ties).
        var labelCounts: [String: [Int: Int]] = [:]
        for e in examples { labelCounts[e.clip, default: [:]][e.label, default: 0] += 1 }
        let clipClasses = labelCounts.mapValues { c in c.max { ($0.value, -$0.key) < ($1.value, -$1.key) }!.key }
        let assignment = TrainingSet.assignSplits(clipClasses: clipClasses, parts: settings.split, seed: settings.seed)
        let parts = settings.split.isEmpty ? [""] : settings.split.map(\.name)
        var counts: [String: [String: Int]] = [:]
        var shapes: [String: [Int]] = [:]
        for (i, part) in parts.enumerated() {
            var chosen = examples.filter { part.isEmpty || assignment[$0.clip] == part }
            for k in chosen.indices { chosen[k].manifest["split"] = part.isEmpty ? "all" : part }
            if i == 0 {
                chosen = ExampleBuilder.augment(chosen, with: augmentations, copies: settings.copies, seed: settings.seed,
                                                flippedLabel: try flippedLabels(classes: classes))
            }
            let dir = part.isEmpty ? out : out.appendingPathComponent(part)
            try TrainingSet.write(chosen, classes: classes, frames: frames, slots: settings.hand == .both ? 2 : 1,
                                  settings: settings, format: options.format, to: dir)
            let name = part.isEmpty ? "all" : part
            counts[name] = Dictionary(grouping: chosen, by: { classes[$0.label] }).mapValues(\.count)
            shapes[name] = TrainingSet.shape(n: chosen.count, frames: frames, slots: settings.hand == .both ? 2 : 1, settings: settings)
        }
        let dataset: [String: Any] = [
            "tool": ["name": "handpose", "version": Handpose.version],
            "command": CommandLine.arguments.dropFirst().joined(separator: " "),
            "kind": kind,
            "settings": try JSONSerialization.jsonObject(with: JSONEncoder().encode(settings)),
            "models": modelHashes, "classes": classes, "counts": counts, "shapes": shapes,
        ]
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        try JSONSerialization.data(withJSONObject: dataset, options: [.prettyPrinted, .sortedKeys])
            .write(to: out.appendingPathComponent("dataset.json"), options: .atomic)
        for name in shapes.keys.sorted() {
            print("\(name): X \(shapes[name]!), \(counts[name]!.values.reduce(0, +)) examples " +
                  counts[name]!.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
        }
        print("wrote \(out.path)")
    }
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
        var run = ExportRun(options: common, settings: settings)
        let classes = set.classes
        let examples = try ExampleBuilder.actions(set.segments, classes: classes, settings: settings) { s in
            try run.keypoints(for: s.video, relative: s.videoPath, still: false)
        }
        try run.write(examples, classes: classes, frames: window, kind: "actions")
    }
}

struct ExportPoses: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "poses",
        abstract: "Hand poses from labelled folders of images: X[N, 3, 21] by default; images without a hand are listed.")

    @Argument(help: "Folder of labelled folders of images (ROOT/<label>/<image>).")
    var root: String

    @OptionGroup var common: ExportOptions

    func run() throws {
        let settings = try common.settings()
        var set = AnnotationSource.load(labelledFolder: URL(fileURLWithPath: root), poses: true)
        Validator().check(&set)
        guard set.errors.isEmpty else {
            for d in set.errors { print(d) }
            throw ExitCode(2)
        }
        var run = ExportRun(options: common, settings: settings)
        let base = URL(fileURLWithPath: root).standardizedFileURL.path + "/"
        let (examples, missing) = try ExampleBuilder.poses(set.poses, classes: set.classes, settings: settings) { p in
            try run.keypoints(for: p.image, relative: String(p.image.standardizedFileURL.path.dropFirst(base.count)), still: true)
        }
        try run.write(examples, classes: set.classes, frames: nil, kind: "poses")
        if !missing.isEmpty {
            print("\(missing.count) images without a hand (not exported):")
            for m in missing { print("  \(m)") }
        }
    }
}
