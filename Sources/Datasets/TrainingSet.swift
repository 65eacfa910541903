import Foundation
import KeypointFormats
import Keypoints
import Support

/// How windows become arrays.
public struct ExportSettings: Codable, Sendable, Equatable {
    public var fps: Double = 30
    public var window = 60
    public var stride: Int?
    public var dropShort = false
    public var padTail = false
    public var hand: HandChoice = .any
    public var features: FeatureSet = .xyc
    public var normalize: Normalization = .none
    public var layout: Layout = .createml
    public var origin: Origin = .bottomLeft
    public var augment: [Augmentation] = []
    public var copies = 0
    /// Class pairs that trade places in mirrored copies (`swipe_left` and `swipe_right`), both ways.
    public var flipLabels: [String: String] = [:]
    public var split: [SplitPart] = []
    public var seed: UInt64 = 0
    /// Body joints written beside the hands (`B`), from keypoint files made with `extract --body`; nil: none.
    public var body: BodyJoints?

    public init() {}
    public var effectiveStride: Int { stride ?? window }
}

public struct SplitPart: Codable, Sendable, Equatable {
    public var name: String
    public var fraction: Double
    public init(name: String, fraction: Double) { self.name = name; self.fraction = fraction }

    /// Parses `train=0.8,val=0.2`.
    public static func parse(_ text: String) throws -> [SplitPart] {
        let parts = try text.split(separator: ",").map { item -> SplitPart in
            let kv = item.split(separator: "=")
            guard kv.count == 2, let f = Double(kv[1]), !kv[0].isEmpty else {
                throw DatasetError.invalid(path: "--split", reason: "'\(item)' is not NAME=FRACTION")
            }
            // A part of no share (0, or 1e-320) would be an empty part blamed on too few clips.
            guard (0.001...1).contains(f) else {
                throw DatasetError.invalid(path: "--split", reason: "'\(item)': a part's fraction is from 0.001 to 1")
            }
            return SplitPart(name: String(kv[0]), fraction: f)
        }
        let total = parts.reduce(0) { $0 + $1.fraction }
        guard abs(total - 1) < 1e-6 else { throw DatasetError.invalid(path: "--split", reason: "fractions add up to \(total), not 1") }
        var seen = Set<String>()
        for p in parts where !seen.insert(p.name).inserted {
            throw DatasetError.invalid(path: "--split", reason: "part '\(p.name)' is named twice")
        }
        return parts
    }
}

/// One training example: a window of hand samples (or one pose), its label, and where it came from.
public struct Example {
    public var label: Int
    public var frames: [[HandSample?]]
    public var manifest: ExampleRecord
    public var clip: String
    /// The frame's size in pixels, for formats in pixel units (keypoint-csv).
    public var frameSize: SIMD2<Int>?
    /// Per frame, the body the hands belong to (with `ExportSettings.body`; else empty).
    public var bodies: [BodySample?] = []

    public init(label: Int, frames: [[HandSample?]], manifest: ExampleRecord, clip: String, frameSize: SIMD2<Int>? = nil) {
        self.label = label; self.frames = frames; self.manifest = manifest; self.clip = clip; self.frameSize = frameSize
    }
}

/// Builds examples and writes them as NumPy arrays with a manifest.
public enum TrainingSet {
    /// Assigns clips to split parts, stratified by class: each class's clips (sorted, then shuffled
    /// with the seed) are cut by the fractions, rounding by largest remainder, and every part gets at
    /// least one clip of a class that has a clip for each part, so no class is missing from
    /// validation. A clip goes to one part only (`clipClasses` gives each clip one class: the
    /// caller's choice for clips holding several).
    public static func assignSplits(clipClasses: [String: Int], parts: [SplitPart], seed: UInt64) -> [String: String] {
        guard !parts.isEmpty else { return [:] }
        var rng = SplitMix64(seed: seed)
        var result: [String: String] = [:]
        let byClass = Dictionary(grouping: clipClasses.keys, by: { clipClasses[$0]! })
        for label in byClass.keys.sorted() {
            var order = byClass[label]!.sorted()
            for i in stride(from: order.count - 1, to: 0, by: -1) { order.swapAt(i, Int(rng.next() % UInt64(i + 1))) }
            var start = 0
            for (part, count) in zip(parts, partSizes(order.count, parts: parts)) {
                for c in order[start..<start + count] { result[c] = part.name }
                start += count
            }
        }
        return result
    }

    /// How many of `n` items each part gets: floors of the fractions, the rest by largest remainder
    /// (earlier parts first on ties), then an empty part takes one from the largest while `n` allows.
    static func partSizes(_ n: Int, parts: [SplitPart]) -> [Int] {
        let total = parts.map(\.fraction).reduce(0, +)
        let exact = parts.map { total > 0 ? $0.fraction / total * Double(n) : 0 }
        var sizes = exact.map { Int($0.rounded(.down)) }
        let byRemainder = parts.indices.sorted { (exact[$0] - Double(sizes[$0]), -$0) > (exact[$1] - Double(sizes[$1]), -$1) }
        for i in byRemainder.prefix(n - sizes.reduce(0, +)) { sizes[i] += 1 }
        if n >= parts.count {
            for i in parts.indices where sizes[i] == 0 && parts[i].fraction > 0 {
                let largest = sizes.indices.max { sizes[$0] < sizes[$1] }!
                sizes[largest] -= 1
                sizes[i] += 1
            }
        }
        return sizes
    }

    /// Features of one hand sample, joint-major: [21][C].
    static func features(_ h: HandSample?, settings: ExportSettings) -> [[Float]] {
        let c = settings.features.count
        guard let h else { return Array(repeating: Array(repeating: 0, count: c), count: 21) }
        var pts = h.joints.map { SIMD3($0.x, settings.origin == .bottomLeft ? 1 - $0.y : $0.y, $0.z) }
        switch settings.normalize {
        case .none: break
        case .wrist:
            let w = pts[0]
            pts = pts.map { SIMD3($0.x - w.x, $0.y - w.y, $0.z) }
        case .bbox:
            var lo = SIMD2<Float>(repeating: .greatestFiniteMagnitude), hi = -lo
            for p in pts { lo = pointwiseMin(lo, SIMD2(p.x, p.y)); hi = pointwiseMax(hi, SIMD2(p.x, p.y)) }
            let size = max(hi.x - lo.x, hi.y - lo.y, 1e-6)
            pts = pts.map { SIMD3(($0.x - lo.x) / size, ($0.y - lo.y) / size, $0.z / size) }
        }
        return pts.map { p in
            switch settings.features {
            case .xyc: return [p.x, p.y, h.confidence]
            case .xyz: return [p.x, p.y, p.z]
            case .xyzc: return [p.x, p.y, p.z, h.confidence]
            }
        }
    }

    /// Features of one body sample, joint-major: [joints][C], C as for hands with the joint's visibility as
    /// its confidence. Normalised (any `--normalize` but none) frame by frame about the shoulders'
    /// midpoint, in units of the shoulders' distance in normalised frame coordinates (pose-format's
    /// `normalize()` uses the whole clip's mean, in pixels).
    static func bodyFeatures(_ b: BodySample?, settings: ExportSettings) -> [[Float]] {
        let n = settings.body?.joints.count ?? 0, c = settings.features.count
        guard let b else { return Array(repeating: Array(repeating: 0, count: c), count: n) }
        var pts = b.joints.map { SIMD3($0.x, settings.origin == .bottomLeft ? 1 - $0.y : $0.y, $0.z) }
        if settings.normalize != .none, let l = settings.body?.joints.firstIndex(of: BodyJoint.leftShoulder),
           let r = settings.body?.joints.firstIndex(of: BodyJoint.rightShoulder) {
            let centre = (pts[l] + pts[r]) / 2
            let d = SIMD2(pts[l].x - pts[r].x, pts[l].y - pts[r].y)
            let width = max((d * d).sum().squareRoot(), 1e-6)
            pts = pts.map { SIMD3($0.x - centre.x, $0.y - centre.y, $0.z - centre.z) / width }
        }
        return pts.indices.map { j in
            let p = pts[j]
            switch settings.features {
            case .xyc: return [p.x, p.y, b.visibility[j]]
            case .xyz: return [p.x, p.y, p.z]
            case .xyzc: return [p.x, p.y, p.z, b.visibility[j]]
            }
        }
    }

    /// Shape of B (the bodies) for `n` examples of `frames` frames: (N, T, C, J) or (N, T, J, C).
    public static func bodyShape(n: Int, frames: Int, settings: ExportSettings) -> [Int] {
        let c = settings.features.count, j = settings.body?.joints.count ?? 0
        return [n, frames] + (settings.layout == .createml ? [c, j] : [j, c])
    }

    /// B and its mask (1 where the frame has a body, else 0), in the layout of X.
    static func bodyArrays(_ examples: [Example], settings: ExportSettings) -> (b: [Float], mask: [UInt8]) {
        var b: [Float] = [], mask: [UInt8] = []
        let c = settings.features.count, j = settings.body?.joints.count ?? 0
        for e in examples {
            for body in e.bodies {
                let f = bodyFeatures(body, settings: settings)
                if settings.layout == .createml {
                    for k in 0..<c { for p in 0..<j { b.append(f[p][k]) } }
                } else {
                    for p in 0..<j { b.append(contentsOf: f[p]) }
                }
                mask.append(body == nil ? 0 : 1)
            }
        }
        return (b, mask)
    }

    /// Shape of X for `n` examples of `frames` frames (nil for poses) with `slots` hands.
    public static func shape(n: Int, frames: Int?, slots: Int, settings: ExportSettings) -> [Int] {
        let c = settings.features.count
        var s = [n]
        if let frames { s.append(frames) }
        if slots == 2 { s.append(2) }
        s += settings.layout == .createml ? [c, 21] : [21, c]
        return s
    }

    /// Flattens examples into X in the chosen layout, and the mask (`HandSample.mask`: 1 where a hand
    /// the model estimated is, 2 where `--complete` interpolated it, 0 where none is).
    static func arrays(_ examples: [Example], settings: ExportSettings) -> (x: [Float], mask: [UInt8]) {
        var x: [Float] = [], mask: [UInt8] = []
        // Reserved whole: appending would grow each array to up to twice its size (`ExportSize` counts it once).
        let slotFrames = examples.reduce(0) { $0 + $1.frames.reduce(0) { $0 + $1.count } }
        x.reserveCapacity(slotFrames * 21 * settings.features.count)
        mask.reserveCapacity(slotFrames)
        for e in examples {
            for frame in e.frames {
                for slot in frame {
                    let f = features(slot, settings: settings)
                    if settings.layout == .createml {
                        for k in 0..<settings.features.count { for j in 0..<21 { x.append(f[j][k]) } }
                    } else {
                        for j in 0..<21 { x.append(contentsOf: f[j]) }
                    }
                    mask.append(HandSample.mask(slot))
                }
            }
        }
        return (x, mask)
    }

    public enum Format: String, Sendable, CaseIterable {
        case npy, npz, csv
        /// Poses in the layout of hand-gesture-recognition-using-mediapipe (Kazuhito00) and the apps built
        /// on it: `keypoint.csv`, one row per sample, the class index then 42 numbers (see `keypointRow`),
        /// and `keypoint_classifier_label.csv`, one class name per line.
        case keypointCSV = "keypoint-csv"
    }

    /// One keypoint-csv row's 42 numbers: each joint's pixel position (x and y truncated to whole pixels
    /// and kept inside the frame, as that project reads MediaPipe's landmarks), relative to the wrist,
    /// flattened x0, y0, x1, y1, ..., divided by the largest absolute value.
    public static func keypointRow(_ joints: [SIMD3<Float>], width: Int, height: Int) -> [Float] {
        let pixels = joints.map { p in
            SIMD2(Float(min(Int(p.x * Float(width)), width - 1)), Float(min(Int(p.y * Float(height)), height - 1)))
        }
        let relative = pixels.flatMap { [$0.x - pixels[0].x, $0.y - pixels[0].y] }
        let largest = relative.map(abs).max() ?? 0
        return relative.map { largest > 0 ? $0 / largest : 0 }
    }

    /// Column names of the CSV format: `label`, one per value of X in its order (`t3_h1_x_wrist`: frame
    /// 3, hand slot 1, feature x, joint wrist; the frame and slot parts only where X has those axes),
    /// with bodies then one per value of B (`t3_body_x_left_shoulder`), then one mask column per frame
    /// and slot (`mask_t3_h1`), and with bodies one per frame (`body_mask_t3`).
    public static func csvHeader(frames: Int?, slots: Int, settings: ExportSettings) -> [String] {
        let features = settings.features.rawValue.map(String.init)
        var names = ["label"], masks: [String] = []
        for f in 0..<(frames ?? 1) {
            for h in 0..<slots {
                var prefix = frames == nil ? "" : "t\(f)_"
                if slots == 2 { prefix += "h\(h)_" }
                if settings.layout == .createml {
                    for k in features { for j in Joint.names { names.append(prefix + k + "_" + j) } }
                } else {
                    for j in Joint.names { for k in features { names.append(prefix + k + "_" + j) } }
                }
                masks.append("mask" + (prefix.isEmpty ? "" : "_" + prefix.dropLast()))
            }
        }
        if let body = settings.body, let frames {
            let joints = body.joints.map { BodyJoint.names[$0] }
            for f in 0..<frames {
                if settings.layout == .createml {
                    for k in features { for j in joints { names.append("t\(f)_body_\(k)_\(j)") } }
                } else {
                    for j in joints { for k in features { names.append("t\(f)_body_\(k)_\(j)") } }
                }
                masks.append("body_mask_t\(f)")
            }
        }
        return names + masks
    }

    /// Writes X, y, mask, classes.json, manifest.jsonl into `dir` (atomically, file by file).
    public static func write(_ examples: [Example], classes: [String], frames: Int?, slots: Int, settings: ExportSettings,
                             format: Format, to dir: URL) throws {
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let (x, mask) = arrays(examples, settings: settings)
        let xShape = shape(n: examples.count, frames: frames, slots: slots, settings: settings)
        // With bodies (actions only: a window of frames): B and its mask beside X.
        let bodies = settings.body != nil && frames != nil ? bodyArrays(examples, settings: settings) : nil
        let bShape = bodyShape(n: examples.count, frames: frames ?? 0, settings: settings)
        var maskShape = [examples.count]
        if let frames { maskShape.append(frames) }
        if slots == 2 { maskShape.append(2) }
        let y = examples.map { Int64($0.label) }
        func put(_ data: Data, _ name: String) throws {
            do { try data.write(to: dir.appendingPathComponent(name), options: .atomic) } catch {
                throw DatasetError.unwritable(path: dir.appendingPathComponent(name).path, reason: error.localizedDescription)
            }
        }
        switch format {
        case .keypointCSV:
            var text = ""
            for e in examples {
                guard let size = e.frameSize, let hand = e.frames.first?.first ?? nil, e.frames.count == 1, slots == 1 else {
                    throw DatasetError.invalid(path: dir.path, reason: "keypoint-csv holds one hand of one still per row (export poses, not --hand both)")
                }
                text += "\(e.label)," + keypointRow(hand.joints, width: size.x, height: size.y).map { String($0) }.joined(separator: ",") + "\n"
            }
            try put(Data(text.utf8), "keypoint.csv")
            try put(Data(classes.map { $0 + "\n" }.joined().utf8), "keypoint_classifier_label.csv")
        case .npy:
            try put(Npy.encode(x, shape: xShape), "X.npy")
            try put(Npy.encode(y, shape: [examples.count]), "y.npy")
            try put(Npy.encode(mask, shape: maskShape), "mask.npy")
            if let bodies {
                try put(Npy.encode(bodies.b, shape: bShape), "B.npy")
                try put(Npy.encode(bodies.mask, shape: [examples.count, frames ?? 0]), "body_mask.npy")
            }
        case .npz:
            var members = [("X.npy", Npy.encode(x, shape: xShape)), ("y.npy", Npy.encode(y, shape: [examples.count])),
                           ("mask.npy", Npy.encode(mask, shape: maskShape))]
            if let bodies {
                members += [("B.npy", Npy.encode(bodies.b, shape: bShape)), ("body_mask.npy", Npy.encode(bodies.mask, shape: [examples.count, frames ?? 0]))]
            }
            try put(try NpzArchive.make(members), "data.npz")
        case .csv:
            // One row per example under a header: the label index, the example's values in X's order,
            // then its mask (1 where a hand is real) per frame and hand.
            let per = examples.isEmpty ? 0 : x.count / examples.count
            let maskPer = examples.isEmpty ? 0 : mask.count / examples.count
            let bodyPer = examples.isEmpty ? 0 : (bodies?.b.count ?? 0) / examples.count, bodyMaskPer = frames ?? 0
            var text = csvHeader(frames: frames, slots: slots, settings: settings).joined(separator: ",") + "\n"
            for (i, e) in examples.enumerated() {
                text += "\(e.label)," + x[(i * per)..<((i + 1) * per)].map { String($0) }.joined(separator: ",")
                if let bodies { text += "," + bodies.b[(i * bodyPer)..<((i + 1) * bodyPer)].map { String($0) }.joined(separator: ",") }
                text += "," + mask[(i * maskPer)..<((i + 1) * maskPer)].map { String($0) }.joined(separator: ",")
                if let bodies { text += "," + bodies.mask[(i * bodyMaskPer)..<((i + 1) * bodyMaskPer)].map { String($0) }.joined(separator: ",") }
                text += "\n"
            }
            try put(Data(text.utf8), "keypoints.csv")
        }
        try put(try JSONSerialization.data(withJSONObject: classes, options: []), "classes.json")
        var manifest = ""
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        for e in examples {
            manifest += String(decoding: try encoder.encode(e.manifest), as: UTF8.self) + "\n"
        }
        try put(Data(manifest.utf8), "manifest.jsonl")
    }
}

extension ExportSettings {
    /// `--flip-labels a:b,c:d`: each pair's labels trade places in mirrored copies, both ways.
    public static func flipLabels(_ text: String) throws -> [String: String] {
        var out: [String: String] = [:]
        for pair in text.split(separator: ",") {
            let names = pair.split(separator: ":").map { $0.trimmingCharacters(in: .whitespaces) }
            guard names.count == 2, !names[0].isEmpty, !names[1].isEmpty, names[0] != names[1] else {
                throw DatasetError.invalid(path: "--flip-labels", reason: "'\(pair)' is not two different classes as a:b")
            }
            out[names[0]] = names[1]
            out[names[1]] = names[0]
        }
        return out
    }
}
