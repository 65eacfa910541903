import FileSystem
import Foundation
import Keypoints

/// What `dataset.json` records of an export: enough to know what made every array.
public struct DatasetManifest: Codable, Sendable, Equatable {
    public struct Tool: Codable, Sendable, Equatable {
        public var name: String
        public var version: String
        public init(name: String, version: String) { self.name = name; self.version = version }
    }
    public struct Skipped: Codable, Sendable, Equatable {
        public var path: String
        public var reason: String
        public init(path: String, reason: String) { self.path = path; self.reason = reason }
    }
    public var tool: Tool
    /// The command line that made it.
    public var command: String
    /// `actions` or `poses`.
    public var kind: String
    public var settings: ExportSettings
    /// SHA-256 of the models that made the keypoints, by file name.
    public var models: [String: String]
    public var classes: [String]
    /// Examples per class in each part ("all" without a split).
    public var counts: [String: [String: Int]]
    /// X's shape in each part.
    public var shapes: [String: [Int]]
    /// The part that got augmented copies (nil when nothing was augmented).
    public var augmentedPart: String?
    /// Inputs left out (--skip-bad), with why.
    public var skipped: [Skipped]?
    /// Inputs whose keypoints were made otherwise than asked, accepted with --allow-mixed.
    public var mixedKeypoints: [String]?

    enum CodingKeys: String, CodingKey {
        case tool, command, kind, settings, models, classes, counts, shapes, skipped
        case augmentedPart = "augmented_part", mixedKeypoints = "mixed_keypoints"
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(tool, forKey: .tool); try c.encode(command, forKey: .command); try c.encode(kind, forKey: .kind)
        try c.encode(settings, forKey: .settings); try c.encode(models, forKey: .models); try c.encode(classes, forKey: .classes)
        try c.encode(counts, forKey: .counts); try c.encode(shapes, forKey: .shapes)
        try c.encode(augmentedPart, forKey: .augmentedPart)   // null when nothing was augmented, not left out
        try c.encodeIfPresent(skipped, forKey: .skipped); try c.encodeIfPresent(mixedKeypoints, forKey: .mixedKeypoints)
    }

    /// The manifest of an export folder, if it has one.
    public static func load(_ folder: URL) throws -> DatasetManifest {
        let url = folder.appendingPathComponent("dataset.json")
        do { return try JSONDecoder().decode(DatasetManifest.self, from: RegularFile.read(url.path)) } catch {
            throw DatasetError.unreadable(path: url.path, reason: "\(error)")
        }
    }
}

/// Why an export cannot be written as asked.
public enum ExportError: Error, CustomStringConvertible, Equatable {
    case noExamples(hint: String)
    case emptyPart(part: String, clips: Int, split: String)
    case augmentPartNotInSplit(part: String, parts: [String])
    case unknownFlipLabel(name: String, classes: [String])
    /// The export would take `bytes` of memory (infinity: past counting), more than the machine's `memory`.
    case tooLarge(what: String, bytes: Double, memory: UInt64)

    public var description: String {
        switch self {
        case .noExamples(let hint): return "no examples to export: \(hint)"
        case .emptyPart(let part, let clips, let split):
            return "split part '\(part)' has no examples: \(clips) clips are too few for --split \(split)"
        case .augmentPartNotInSplit(let part, let parts):
            return "--augment-part '\(part)' is not a part of --split (\(parts.joined(separator: ", ")))"
        case .unknownFlipLabel(let name, let classes):
            return "--flip-labels: '\(name)' is not a class (classes: \(classes.joined(separator: ", ")))"
        case .tooLarge(let what, let bytes, let memory):
            let gib = { (b: Double) in String(format: "%.1f GiB", b / 1_073_741_824) }
            let need = bytes.isFinite ? "would hold about \(gib(bytes)) in memory, more than this machine's \(gib(Double(memory))) (or its job's memory limit)" : "is past counting"
            return "the export \(need): \(what). Lower --fps (each segment is resampled to it), --copies or --window, or export fewer segments at a time"
        }
    }
}

/// Splits examples, augments the chosen part, writes every part and `dataset.json` into a staged
/// folder and moves it into place; nothing is printed.
public struct Exporter {
    public var settings: ExportSettings
    public var format: TrainingSet.Format = .npy
    /// The part that gets augmented copies (with a split; without one, every example does).
    public var augmentPart = "train"
    public var tool: DatasetManifest.Tool
    public var command: String
    public var models: [String: String] = [:]
    public var skipped: [DatasetManifest.Skipped] = []
    public var mixed: [String] = []
    /// Memory an export may take (`ExportSize.check`): what the machine or the job's cgroup allows, unless a test says otherwise.
    public var memory = CGroup.memoryLimit

    public init(settings: ExportSettings, tool: DatasetManifest.Tool, command: String) {
        self.settings = settings; self.tool = tool; self.command = command
    }

    /// One part as written.
    public struct Part: Equatable {
        public var name: String
        public var shape: [Int]
        public var counts: [String: Int]
    }

    /// `--flip-labels` as class indices; a name that is no class is refused.
    public func flippedLabels(classes: [String]) throws -> [Int: Int] {
        var map: [Int: Int] = [:]
        for (a, b) in settings.flipLabels.sorted(by: { $0.key < $1.key }) {   // sorted: the same error every run
            guard let i = classes.firstIndex(of: a), let j = classes.firstIndex(of: b) else {
                throw ExportError.unknownFlipLabel(name: classes.contains(a) ? b : a, classes: classes)
            }
            map[i] = j
        }
        return map
    }

    /// Classes that flip mirrors into what looks like their twin (`x_left` and `x_right`) without a
    /// --flip-labels mapping, as (class, twin): the caller warns.
    public func unmappedMirrorTwins(classes: [String]) -> [(String, String)] {
        guard settings.augment.contains(.flip) else { return [] }
        return classes.compactMap { c in
            guard c.contains("left"), settings.flipLabels[c] == nil else { return nil }
            let twin = c.replacingOccurrences(of: "left", with: "right")
            return classes.contains(twin) ? (c, twin) : nil
        }
    }

    /// The checks that need only the classes, made before any keypoints are extracted: flip labels name
    /// classes, and the augmented part is a part of the split.
    public func check(classes: [String]) throws {
        _ = try flippedLabels(classes: classes)
        let parts = settings.split.map(\.name)
        if !settings.augment.isEmpty && !parts.isEmpty && !parts.contains(augmentPart) {
            throw ExportError.augmentPartNotInSplit(part: augmentPart, parts: parts)
        }
    }

    /// Writes `examples` (`frames` per window, nil for poses) into `output`, replacing an earlier export
    /// there only if `replace`. An empty result or an empty part is refused before anything is written.
    public func write(_ examples: [Example], classes: [String], frames: Int?, kind: String, emptyHint: String,
                      to output: URL, replace: Bool) throws -> (parts: [Part], manifest: DatasetManifest) {
        guard !examples.isEmpty else { throw ExportError.noExamples(hint: emptyHint) }
        let augmentations = settings.augment
        // A clip's class for the split: its most frequent label (the smallest on ties).
        var labelCounts: [String: [Int: Int]] = [:]
        for e in examples { labelCounts[e.clip, default: [:]][e.label, default: 0] += 1 }
        let clipClasses = labelCounts.mapValues { c in c.max { ($0.value, -$0.key) < ($1.value, -$1.key) }!.key }
        let assignment = TrainingSet.assignSplits(clipClasses: clipClasses, parts: settings.split, seed: settings.seed)
        let parts = settings.split.isEmpty ? [""] : settings.split.map(\.name)
        if !augmentations.isEmpty && !settings.split.isEmpty && !parts.contains(augmentPart) {
            throw ExportError.augmentPartNotInSplit(part: augmentPart, parts: parts)
        }
        let flipped = try flippedLabels(classes: classes).mapValues { (index: $0, name: classes[$0]) }
        try ExportSize.examples(examples.count, frames: frames ?? 1, settings: settings, format: format).check(settings: settings, memory: memory)
        let slots = settings.hand == .both ? 2 : 1
        var written: [Part] = []
        var chosenParts: [(String, [Example])] = []
        for part in parts {
            var chosen = examples.filter { part.isEmpty || assignment[$0.clip] == part }
            guard !chosen.isEmpty else {
                throw ExportError.emptyPart(part: part, clips: clipClasses.count,
                                            split: settings.split.map { "\($0.name)=\($0.fraction)" }.joined(separator: ","))
            }
            for k in chosen.indices { chosen[k].manifest.split = part.isEmpty ? "all" : part }
            if part.isEmpty || part == augmentPart {
                chosen = ExampleBuilder.augment(chosen, with: augmentations, copies: settings.copies, seed: settings.seed,
                                                flippedLabel: flipped, joints: settings.body)
            }
            chosenParts.append((part, chosen))
        }
        let staged = try StagedFolder.export(output, replace: replace)
        do {
            for (part, chosen) in chosenParts {
                let dir = part.isEmpty ? staged.staging : staged.staging.appendingPathComponent(part)
                try TrainingSet.write(chosen, classes: classes, frames: frames, slots: slots, settings: settings, format: format, to: dir)
                written.append(Part(name: part.isEmpty ? "all" : part,
                                    shape: TrainingSet.shape(n: chosen.count, frames: frames, slots: slots, settings: settings),
                                    counts: Dictionary(grouping: chosen, by: { classes[$0.label] }).mapValues(\.count)))
            }
            let manifest = DatasetManifest(
                tool: tool, command: command, kind: kind, settings: settings, models: models, classes: classes,
                counts: Dictionary(uniqueKeysWithValues: written.map { ($0.name, $0.counts) }),
                shapes: Dictionary(uniqueKeysWithValues: written.map { ($0.name, $0.shape) }),
                augmentedPart: augmentations.isEmpty ? nil : (settings.split.isEmpty ? "all" : augmentPart),
                skipped: skipped.isEmpty ? nil : skipped, mixedKeypoints: mixed.isEmpty ? nil : mixed)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            do { try encoder.encode(manifest).write(to: staged.staging.appendingPathComponent("dataset.json")) } catch {
                throw DatasetError.unwritable(path: output.appendingPathComponent("dataset.json").path, reason: describe(error))
            }
            try staged.commitExport()
            return (written, manifest)
        } catch {
            staged.discard()
            throw error
        }
    }
}
