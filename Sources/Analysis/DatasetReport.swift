import Datasets
import FileSystem
import Foundation
import KeypointFormats
import Keypoints

/// What `handpose report` says of an exported dataset (and of the keypoint files behind it) before any
/// GPU is spent: per class the clips, segments, seconds, examples per split part and the share of frames
/// with a hand; per clip the detection rate and the longest gap; warnings for what will hurt training;
/// and a baseline classifier trained on the training part and scored on the held-out one.
public struct DatasetReport: Codable, Sendable {
    public struct ClassRow: Codable, Sendable, Equatable {
        public var name: String
        public var clips: Int
        /// Annotated segments (actions) or images (poses).
        public var segments: Int
        /// Seconds of annotated footage (actions).
        public var seconds: Double?
        /// Original examples (windows or samples) per split part.
        public var examples: [String: Int]
        /// Augmented copies, over all parts.
        public var augmented: Int
        /// Share of the examples' frames that hold a real hand (from the mask); nil when the format has none.
        public var handShare: Double?
    }
    /// A clip's figures from its keypoint file (`Keypoints`' `ClipFigures`, which the review page lists too).
    public typealias ClipRow = ClipFigures
    public struct Baseline: Codable, Sendable, Equatable {
        public var model: String
        public var trainedOn: String
        public var scoredOn: String
        public var trainingExamples: Int
        public var features: Int
        public var score: BaselineClassifier.Score
    }

    public var dataset: String?
    public var kind: String?
    public var classes: [ClassRow] = []
    public var parts: [String] = []
    public var clips: [ClipRow] = []
    /// Dataset clips whose keypoint file was not found (no per-clip figures for them).
    public var clipsWithoutKeypoints: [String] = []
    public var warnings: [String] = []
    public var baseline: Baseline?
    /// Why there is no baseline (no split with a held-out part, one class only, ...).
    public var baselineSkipped: String?

    public init() {}

    /// The per-clip figures of one keypoint file.
    public static func clipRow(_ file: KeypointFile, source: String) -> ClipRow { ClipFigures(file, source: source) }

    /// A report of keypoint files alone: per clip figures and the warning for clips with hands in under
    /// half their frames.
    public static func keypoints(_ files: [(source: String, file: KeypointFile)]) -> DatasetReport {
        var r = DatasetReport()
        r.clips = files.map { clipRow($0.file, source: $0.source) }.sorted { $0.source < $1.source }
        r.warnings = r.clipWarnings()
        return r
    }

    func clipWarnings(skipping: Set<String> = []) -> [String] {
        clips.filter { $0.frames > 0 && $0.detectionRate < 0.5 && !skipping.contains($0.source) }.map {
            "clip \($0.source): a hand in only \(Self.percent($0.detectionRate)) of its \($0.frames) frames (longest gap \($0.longestGap) frames)"
        }
    }

    static func percent(_ v: Double) -> String { String(format: "%.0f%%", v * 100) }

    /// The report of an export folder (with `dataset.json`). `keypointFile(source)` gives a clip's
    /// keypoint file when it can be found (nil otherwise).
    public static func dataset(at folder: URL, keypointFile: (String) -> KeypointFile?) throws -> DatasetReport {
        let manifest = try DatasetManifest.load(folder)
        var r = DatasetReport()
        r.dataset = folder.path
        r.kind = manifest.kind
        let parts = manifest.settings.split.map(\.name)
        r.parts = parts.isEmpty ? ["all"] : parts
        var loaded: [String: PartData] = [:]
        for part in r.parts {
            loaded[part] = try PartData.load(folder: parts.isEmpty ? folder : folder.appendingPathComponent(part), part: part,
                                             manifest: manifest)
        }
        // Per class. Each part's examples are grouped by class once: a pass over every example for each
        // class would cost classes times examples, both counts from outside.
        let classes = manifest.classes
        let byClass = loaded.mapValues { data in Dictionary(grouping: data.labels.indices, by: { data.labels[$0] }) }
        for (c, name) in classes.enumerated() {
            var row = ClassRow(name: name, clips: 0, segments: 0, seconds: manifest.kind == "actions" ? 0 : nil, examples: [:],
                               augmented: 0, handShare: nil)
            var sources = Set<PathKey>(), segments = Set<PathKey>()
            var handFrames = 0.0, frames = 0.0, haveMask = false
            for part in r.parts {
                guard let data = loaded[part] else { continue }
                var originals = 0
                for i in byClass[part]?[c] ?? [] {
                    let record = data.records[i]
                    if record.copy != nil { row.augmented += 1; continue }
                    originals += 1
                    sources.insert(PathKey(record.source))
                    let key = "\(record.source)|\(record.annotation ?? "")|\(record.line ?? -1)|\(record.segment?.map { "\($0)" }.joined(separator: ",") ?? "")"
                    if segments.insert(PathKey(key)).inserted, let s = record.segment, s.count == 2 { row.seconds! += max(0, s[1] - s[0]) }
                    if let m = data.maskShare(i) { handFrames += m.hands; frames += m.frames; haveMask = true }
                }
                row.examples[part] = originals
            }
            row.clips = sources.count
            row.segments = segments.count
            if let s = row.seconds { row.seconds = (s * 1000).rounded() / 1000 }
            if haveMask && frames > 0 { row.handShare = handFrames / frames }
            r.classes.append(row)
        }
        // Per clip, from the keypoint files.
        var seen = Set<PathKey>()
        for part in r.parts { for record in loaded[part]?.records ?? [] where seen.insert(PathKey(record.source)).inserted {
            if let file = keypointFile(record.source) { r.clips.append(clipRow(file, source: record.source)) } else {
                r.clipsWithoutKeypoints.append(record.source)
            }
        } }
        r.clips.sort { $0.source < $1.source }
        r.clipsWithoutKeypoints.sort()
        // Warnings.
        let totals = r.classes.map { $0.examples.values.reduce(0, +) }
        if let most = totals.max(), most > 0 {
            for (row, total) in zip(r.classes, totals) where Double(total) < Double(most) / 10 {
                r.warnings.append("class \(row.name): \(total) example\(total == 1 ? "" : "s"), under a tenth of the largest class (\(most))")
            }
        }
        if r.parts.count > 1 {
            for row in r.classes { for part in r.parts where (row.examples[part] ?? 0) == 0 {
                r.warnings.append("part \(part) has no example of class \(row.name)")
            } }
        }
        // Create ML's negative class, Background, is meant to hold clips without the actions: its clips
        // are not warned about for having few hands.
        let background = Set(loaded.values.flatMap { d in d.records.filter { $0.label == "Background" }.map(\.source) })
        let elsewhere = Set(loaded.values.flatMap { d in d.records.filter { $0.label != "Background" }.map(\.source) })
        r.warnings += r.clipWarnings(skipping: background.subtracting(elsewhere))
        // The baseline.
        let held = ["val", "valid", "validation", "test"].first { r.parts.contains($0) }
            ?? r.parts.first { $0 != "train" && r.parts.count > 1 }
        let training = r.parts.contains("train") ? "train" : r.parts.first { $0 != held }
        if let held, let training, held != training, let a = loaded[training], let b = loaded[held] {
            // Scored on the held-out originals (augmented copies left out), chance over the same.
            let originals = b.records.indices.filter { b.records[$0].copy == nil }
            let work = BaselineClassifier.work(training: a.labels.count, scored: originals.count, features: a.featureCount,
                                               classes: classes.count)
            if classes.count < 2 {
                r.baselineSkipped = "one class only"
            } else if a.labels.isEmpty || b.labels.isEmpty {
                r.baselineSkipped = "part \(a.labels.isEmpty ? training : held) has no examples"
            } else if work > BaselineClassifier.workBudget {
                r.baselineSkipped = "too large for a quick baseline: \(classes.count) classes, \(a.labels.count) training and \(originals.count) held-out examples of \(a.featureCount) features take about "
                    + String(format: "%.1e multiply-adds, over the %.0e it may take", work, BaselineClassifier.workBudget)
            } else {
                let classifier = BaselineClassifier(x: a.features, y: a.labels, features: a.featureCount, classes: classes.count)
                var counts = [Int](repeating: 0, count: classes.count)
                for label in a.labels { counts[label] += 1 }
                let common = counts.indices.max { counts[$0] < counts[$1] } ?? 0
                let chance = originals.isEmpty ? 0 : Double(originals.filter { b.labels[$0] == common }.count) / Double(originals.count)
                let x = originals.flatMap { Array(b.features[$0 * b.featureCount..<($0 + 1) * b.featureCount]) }
                let score = classifier.score(x: x, y: originals.map { b.labels[$0] }, chance: chance)
                r.baseline = Baseline(model: "logistic regression on wrist-normalised x, y summarised per window (mean shape, its change and spread, the wrist's displacement, the share of frames with a hand)",
                                      trainedOn: training, scoredOn: held, trainingExamples: a.labels.count, features: a.featureCount, score: score)
                if score.accuracy < chance + 0.1 {
                    r.warnings.append("the baseline scores \(percent(score.accuracy)) on \(held), near chance (\(percent(chance))): check labels and segments")
                }
                if score.confusion.isEmpty {
                    r.warnings.append("the baseline's confusion matrix is left out: \(classes.count) classes, over the \(BaselineClassifier.confusionClassLimit) a table of it can show (recall per class is kept)")
                }
            }
        } else {
            r.baselineSkipped = "no held-out part: export with --split (e.g. train=0.8,val=0.2) for a baseline"
        }
        return r
    }
}

/// One split part of an export, read back: its manifest records, labels, the baseline's features and
/// the mask.
struct PartData {
    var records: [ExampleRecord]
    var labels: [Int]
    var features: [Float]
    var featureCount: Int
    /// Per example: frames x hand slots of the mask (1 where a hand is real).
    var mask: [Float]
    var maskPerExample: Int
    /// Hand slots per frame (2 with --hand both).
    var slots: Int = 1

    /// Frames of example `i` with a hand in any slot, and its frames.
    func maskShare(_ i: Int) -> (hands: Double, frames: Double)? {
        guard maskPerExample > 0, slots > 0 else { return nil }
        let frames = maskPerExample / slots
        var withHand = 0
        for t in 0..<frames where (0..<slots).contains(where: { mask[i * maskPerExample + t * slots + $0] != 0 }) { withHand += 1 }
        return (Double(withHand), Double(frames))
    }

    static func load(folder: URL, part: String, manifest: DatasetManifest) throws -> PartData {
        let fm = FileManager.default
        func path(_ name: String) -> URL { folder.appendingPathComponent(name) }
        var records: [ExampleRecord] = []
        let manifestURL = path("manifest.jsonl")
        guard let text = (try? RegularFile.read(manifestURL.path)).flatMap({ String(data: $0, encoding: .utf8) }) else {
            throw DatasetError.unreadable(path: manifestURL.path, reason: "no manifest.jsonl for part \(part)")
        }
        for (n, line) in text.split(separator: "\n").enumerated() {
            do { records.append(try JSONDecoder().decode(ExampleRecord.self, from: Data(line.utf8))) } catch {
                throw DatasetError.invalid(path: "\(manifestURL.path):\(n + 1)", reason: "not an example record")
            }
        }
        let classIndex = Dictionary(uniqueKeysWithValues: manifest.classes.enumerated().map { ($1, $0) })
        let labels = try records.enumerated().map { n, r -> Int in
            guard let c = classIndex[r.label] else {
                throw DatasetError.invalid(path: "\(manifestURL.path):\(n + 1)", reason: "label '\(r.label.prefix(40))' is not a class")
            }
            return c
        }
        let frames: Int? = manifest.kind == "actions" ? manifest.settings.window : nil
        let slots = manifest.settings.hand == .both ? 2 : 1
        let channels = manifest.settings.features.count
        let n = records.count
        // The sizes come from dataset.json, a file from outside: a window of 0, or one whose arrays could
        // not be counted in an Int, is refused before any of them is multiplied or indexed.
        guard (frames ?? 1) > 0, let per = product([frames ?? 1, slots, channels, Joint.count]),
              let maskPer = product([frames ?? 1, slots]), product([n, per]) != nil else {
            throw DatasetError.invalid(path: folder.appendingPathComponent("dataset.json").path,
                                       reason: "a window of \(frames ?? 1) frames cannot be read (it must be at least 1 and the arrays countable)")
        }
        // y, as written beside X, must be the manifest's classes in its order: the baseline learns from the
        // manifest's labels, and an export whose y says otherwise was edited or mixed with another.
        func checkLabels(_ y: [Float], _ file: String, line: (Int) -> String = { "example \($0 + 1)" }) throws {
            guard y.count == n else { throw DatasetError.invalid(path: file, reason: "\(y.count) labels for the manifest's \(n) examples") }
            if let i = y.indices.first(where: { y[$0] != Float(labels[$0]) }) {
                throw DatasetError.invalid(path: file, reason: "\(line(i)): class \(y[i]) where the manifest's example \(i + 1) is class \(labels[i])")
            }
        }
        var x: [Float], mask: [Float]
        if fm.fileExists(atPath: path("X.npy").path) {
            x = try Npy.read(try RegularFile.read(path("X.npy").path), name: path("X.npy").path).values
            mask = try Npy.read(try RegularFile.read(path("mask.npy").path), name: path("mask.npy").path).values
            try checkLabels(try Npy.read(try RegularFile.read(path("y.npy").path), name: path("y.npy").path).values, path("y.npy").path)
        } else if fm.fileExists(atPath: path("data.npz").path) {
            let z = try NpzArchive.read(path("data.npz"))
            guard let xs = z["X"], let ms = z["mask"], let ys = z["y"] else { throw DatasetError.invalid(path: path("data.npz").path, reason: "no X, y or mask") }
            try checkLabels(ys.values, path("data.npz").path + " (y)")
            x = xs.values; mask = ms.values
        } else if fm.fileExists(atPath: path("keypoints.csv").path) {
            let rows = try csvRows(path("keypoints.csv"), header: true)
            try checkLabels(rows.map { $0.values.first ?? .nan }, path("keypoints.csv").path) { "line \(rows[$0].line)" }
            x = []; mask = []
            for (line, row) in rows {
                guard row.count == 1 + per + maskPer else {
                    throw DatasetError.invalid(path: "\(path("keypoints.csv").path):\(line)", reason: "a row of \(row.count) values, expected \(1 + per + maskPer)")
                }
                x += row[1...per]; mask += row[(per + 1)...]
            }
        } else if fm.fileExists(atPath: path("keypoint.csv").path) {
            // Kazuhito00's layout: already wrist-relative and scaled, the class index then 42 numbers, no
            // mask; one row per manifest record, in its order.
            let file = path("keypoint.csv").path
            let rows = try csvRows(path("keypoint.csv"))
            guard rows.count == n else {
                throw DatasetError.invalid(path: file, reason: "\(rows.count) rows for the manifest's \(n) examples")
            }
            for (i, (line, row)) in rows.enumerated() {
                guard row.count == 43 else { throw DatasetError.invalid(path: "\(file):\(line)", reason: "a row of \(row.count) values, expected 43") }
                guard row[0] == Float(labels[i]) else {
                    throw DatasetError.invalid(path: "\(file):\(line)", reason: "class \(row[0]) where the manifest's example \(i + 1) is class \(labels[i])")
                }
                try requireFinite(row, "example \(i + 1)", path: { "\(file):\(line):\($0 + 1)" })
            }
            return PartData(records: records, labels: labels, features: rows.flatMap { $0.values.dropFirst() }, featureCount: 42,
                            mask: [], maskPerExample: 0, slots: 1)
        } else {
            throw DatasetError.unreadable(path: folder.path, reason: "no X.npy, data.npz or keypoints.csv for part \(part)")
        }
        guard x.count == n * per else {
            throw DatasetError.invalid(path: folder.path, reason: "X holds \(x.count) values for \(n) examples of \(per)")
        }
        guard mask.count == n * maskPer else {
            throw DatasetError.invalid(path: folder.path, reason: "the mask holds \(mask.count) values for \(n) examples of \(maskPer)")
        }
        try requireFinite(x, "X", path: { _ in folder.path }, at: { " at value \($0 % per + 1) of example \($0 / per + 1)" })
        if let k = mask.firstIndex(where: { ![0, 1, 2].contains($0) }) {
            throw DatasetError.invalid(path: folder.path, reason: "the mask holds \(mask[k]) at value \(k % maskPer + 1) of example \(k / maskPer + 1): it holds 0, 1 or 2")
        }
        // Per hand slot, over the window's real frames (the mask's): the shape (each frame's joints'
        // x, y minus the wrist's, divided by their largest absolute value) averaged, its change from the
        // first real frame to the last, its spread over time, the wrist's displacement from first to
        // last (a swipe left and a swipe right differ only there) and the share of frames with a hand.
        // Summaries, not every frame: a window's timing varies from clip to clip, and a baseline trained
        // on few clips must not learn it.
        let frameCount = frames ?? 1
        let perSlot = 3 * 42 + 3
        var features: [Float] = []
        features.reserveCapacity(n * slots * perSlot)
        let createml = manifest.settings.layout == .createml
        for i in 0..<n {
            for slot in 0..<slots {
                var shapes: [[Float]] = [], wrists: [SIMD2<Float>] = []
                for t in 0..<frameCount {
                    let s = t * slots + slot
                    guard mask[i * maskPer + s] != 0 else { continue }
                    let base = (i * maskPer + s) * channels * Joint.count
                    func value(_ j: Int, _ c: Int) -> Float { x[base + (createml ? c * Joint.count + j : j * channels + c)] }
                    var v: [Float] = []
                    for j in 0..<Joint.count { v += [value(j, 0) - value(0, 0), value(j, 1) - value(0, 1)] }
                    let m = v.map(abs).max() ?? 0
                    shapes.append(m > 0 ? v.map { $0 / m } : v)
                    wrists.append(SIMD2(value(0, 0), value(0, 1)))
                }
                guard let first = shapes.first, let last = shapes.last else {
                    features += [Float](repeating: 0, count: perSlot)
                    continue
                }
                let count = Float(shapes.count)
                let mean = (0..<42).map { k in shapes.reduce(0) { $0 + $1[k] } / count }
                let spread = (0..<42).map { k in (shapes.reduce(0) { $0 + ($1[k] - mean[k]) * ($1[k] - mean[k]) } / count).squareRoot() }
                let moved = wrists[wrists.count - 1] - wrists[0]
                features += mean
                features += zip(last, first).map { $0 - $1 }
                features += spread
                features += [moved.x, moved.y, count / Float(frameCount)]
            }
        }
        return PartData(records: records, labels: labels, features: features, featureCount: slots * perSlot, mask: mask,
                        maskPerExample: maskPer, slots: slots)
    }

    /// Refuses the first value in `values` that no export writes (NaN, infinity): it would turn the
    /// baseline's figures to chance without a word. `path(k)` is where value `k` was read (with its line
    /// and column where the file has them), `at(k)` words saying which value it is, after `name`.
    static func requireFinite(_ values: [Float], _ name: String, path: (Int) -> String, at: (Int) -> String = { _ in "" }) throws {
        guard let k = values.firstIndex(where: { !$0.isFinite }) else { return }
        throw DatasetError.invalid(path: path(k), reason: "\(name) holds \(values[k])\(at(k)), which no export writes")
    }

    /// The product of sizes, or nil when it overflows an Int.
    static func product(_ factors: [Int]) -> Int? {
        var total = 1
        for f in factors {
            let (p, overflow) = total.multipliedReportingOverflow(by: f)
            if overflow { return nil }
            total = p
        }
        return total
    }

    /// The rows of a CSV file the export wrote (numbers only, each row ending in a line break), with
    /// their line numbers; after the header line when `header`. A value that is not a number is an
    /// error naming its line and column, and so is a file that stops inside a row: a cut file is never
    /// read as a shorter one.
    static func csvRows(_ url: URL, header: Bool = false) throws -> [(line: Int, values: [Float])] {
        guard let read = (try? RegularFile.read(url.path)).flatMap({ String(data: $0, encoding: .utf8) }) else {
            throw DatasetError.unreadable(path: url.path, reason: RegularFile.problem(url.path) ?? "cannot be read")
        }
        // A file saved on Windows ends its lines in CR LF (one Character to Swift, so no "\n" ends it): read as LF.
        let text = read.contains("\r\n") ? read.replacingOccurrences(of: "\r\n", with: "\n") : read
        guard text.isEmpty || text.hasSuffix("\n") else {
            throw DatasetError.invalid(path: url.path, reason: "ends inside a row, with no line break: the file was cut short")
        }
        var rows: [(line: Int, values: [Float])] = []
        for (i, line) in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().enumerated() where !(header && i == 0) {
            if line.isEmpty { continue }
            var values: [Float] = []
            for (column, field) in line.split(separator: ",", omittingEmptySubsequences: false).enumerated() {
                guard let v = Float(field.trimmingCharacters(in: .whitespaces)) else {
                    throw DatasetError.invalid(path: "\(url.path):\(i + 1):\(column + 1)", reason: "'\(field.prefix(20))' is not a number")
                }
                values.append(v)
            }
            rows.append((i + 1, values))
        }
        return rows
    }
}
