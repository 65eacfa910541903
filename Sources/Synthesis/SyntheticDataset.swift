import Annotations
import Datasets
import Foundation
import Keypoints
import VideoIO

/// Settings of `handpose synth`.
public struct SynthSettings: Sendable {
    public var perClass = 2
    public var seconds = 2.0
    public var fps = Rational(15, 1)
    public var width = 256
    public var height = 256
    public var seed: UInt64 = 1
    public var montages = 1
    public var posesPerClass = 2
    /// Clips where a live tracker loses the hand: it rises into the frame from below over the first
    /// `SynthLosses.entry` seconds, and a box hides it for a few frames mid-clip (the truth keeps it).
    public var losses = false
    public init() {}
}

/// `SynthSettings.losses`: where a clip's hand enters and when it is hidden.
struct SynthLosses {
    /// Seconds the hand takes to rise into the frame from wholly below it.
    static let entry = 0.6
    /// How far below its path the wrist starts (fraction of the frame height): the fingertips below the edge.
    static let drop: Float = 0.8
    /// Frames (by index) a box hides the hand: 2 to 5 in a row, starting 40-60% into the clip.
    let hidden: Range<Int>

    init(seed: UInt64, frames: Int) {
        var rng = SeededGenerator(renderSeed: seed &+ 0x105e5)
        let length = Int.random(in: 2...5, using: &rng)
        let start = Int(Double(frames) * Double.random(in: 0.4...0.6, using: &rng))
        hidden = start..<min(frames, start + length)
    }

    /// The wrist's offset downwards at `t` seconds: `drop` at 0, easing to 0 at `entry`.
    func rise(at t: Double) -> Float {
        guard t < Self.entry else { return 0 }
        let u = Float(t / Self.entry)
        return Self.drop * (1 - u) * (1 - u)
    }
}

/// Renders labelled clips and images with ground truth, and Create ML annotation files for them.
public enum SyntheticDataset {
    public struct Entry { public var video: String; public var label: String; public var start: Double; public var end: Double }

    /// Writes everything under `dir`; returns the annotation entries (paths relative to `dir`).
    @discardableResult
    public static func generate(_ s: SynthSettings, to dir: URL, tool: KeypointFile.Tool) throws -> [Entry] {
        let fm = FileManager.default
        try fm.createDirectory(at: dir.appendingPathComponent("actions"), withIntermediateDirectories: true)
        var entries: [Entry] = []
        var clipIndex: UInt64 = 0
        for action in SynthAction.allCases {
            for k in 0..<s.perClass {
                clipIndex += 1
                let name = "actions/\(action.rawValue)_\(k).mp4"
                try renderClip(dir.appendingPathComponent(name), relative: name, parts: [(action, s.seconds)], settings: s,
                               seed: s.seed &* 1000 &+ clipIndex, left: k % 2 == 1, tool: tool)
                entries.append(Entry(video: name, label: action.rawValue, start: 0, end: s.seconds))
            }
        }
        for m in 0..<s.montages {
            clipIndex += 1
            var rng = SeededGenerator(renderSeed: s.seed &+ 77 &+ UInt64(m))
            let parts = (0..<3).map { _ in (SynthAction.allCases.filter { $0 != .Background }.randomElement(using: &rng)!, s.seconds) }
            let name = "montage_\(m).mp4"
            try renderClip(dir.appendingPathComponent(name), relative: name, parts: parts, settings: s,
                           seed: s.seed &* 1000 &+ clipIndex, left: m % 2 == 1, tool: tool)
            var t = 0.0
            for (action, length) in parts {
                entries.append(Entry(video: name, label: action.rawValue, start: t, end: t + length))
                t += length
            }
        }
        for pose in SynthPose.allCases {
            let folder = dir.appendingPathComponent("poses/\(pose.rawValue)")
            try fm.createDirectory(at: folder, withIntermediateDirectories: true)
            for k in 0..<s.posesPerClass {
                clipIndex += 1
                var rng = SeededGenerator(renderSeed: s.seed &* 1000 &+ clipIndex)
                let renderer = SceneRenderer(width: s.width, height: s.height, left: k % 2 == 1, rng: &rng)
                let v = (0..<6).map { _ in Float.random(in: 0...1, using: &rng) }
                let state = pose.pose.map { HandState(pose: $0, wrist: SIMD2(0.5 + (v[0] - 0.5) * 0.2, 0.72), size: 0.22 + v[2] * 0.05, angle: (v[3] - 0.5) * 0.5) }
                let (frame, joints) = renderer.render(state, rng: &rng)
                let name = "poses/\(pose.rawValue)/\(pose.rawValue)_\(k).png"
                try ImageWriter.writePNG(frame, to: dir.appendingPathComponent(name))
                try truth(relative: name, frames: [(0, joints)], width: s.width, height: s.height, fps: nil, left: k % 2 == 1, tool: tool)
                    .write(to: dir.appendingPathComponent(name + ".truth.hands.json"))
            }
        }
        try writeAnnotations(entries, to: dir)
        return entries
    }

    static func renderClip(_ url: URL, relative: String, parts: [(SynthAction, Double)], settings s: SynthSettings,
                           seed: UInt64, left: Bool, tool: KeypointFile.Tool) throws {
        var rng = SeededGenerator(renderSeed: seed)
        let renderer = SceneRenderer(width: s.width, height: s.height, left: left, rng: &rng)
        let writer = try VideoWriter(url: url, width: s.width, height: s.height, frameRate: s.fps, quality: 23)
        var truthFrames: [(Double, [SIMD2<Float>]?)] = []
        var index = 0
        // Drawn from a generator of their own, so clips without losses stay as they were.
        let losses = s.losses ? SynthLosses(seed: seed, frames: Int((parts.map(\.1).reduce(0, +) * s.fps.value).rounded())) : nil
        for (action, seconds) in parts {
            let v = (0..<6).map { _ in Float.random(in: 0...1, using: &rng) }
            let n = Int((seconds * s.fps.value).rounded())
            for i in 0..<n {
                var state = action.state(Float(i) / Float(max(n - 1, 1)), v)
                let t = Double(index) / s.fps.value
                if let losses, state != nil { state!.wrist.y += losses.rise(at: t) }
                let (frame, joints) = renderer.render(state, occluded: losses?.hidden.contains(index) ?? false, rng: &rng)
                try writer.append(frame)
                truthFrames.append((Double(index) / s.fps.value, joints))
                index += 1
            }
        }
        try writer.finish()
        try truth(relative: relative, frames: truthFrames, width: s.width, height: s.height, fps: s.fps.value, left: left, tool: tool)
            .write(to: URL(fileURLWithPath: url.path + ".truth.hands.json"))
    }

    /// Ground truth in the keypoint schema: the drawn joints, z 0, chirality as drawn.
    static func truth(relative: String, frames: [(Double, [SIMD2<Float>]?)], width: Int, height: Int, fps: Double?,
                      left: Bool, tool: KeypointFile.Tool) -> KeypointFile {
        let out = frames.enumerated().map { i, f in
            KeypointFile.Frame(i: i, t: (f.0 * 1e6).rounded() / 1e6, hands: f.1.map { joints in
                [KeypointFile.Hand(chirality: left ? .left : .right, handedness: left ? 0 : 1, presence: 1,
                                   landmarks: joints.map { [($0.x * 1e6).rounded() / 1e6, ($0.y * 1e6).rounded() / 1e6, 0] },
                                   world: nil, region: nil)]
            } ?? [])
        }
        return KeypointFile(source: relative, width: width, height: height, fps: fps, frames: out, tool: tool, settings: nil, models: nil)
    }

    /// Through `AnnotationWriter`, the writer whose files the readers are tested against: a label or
    /// path with a comma or quote is quoted (RFC 4180), as no hand-made join would.
    static func writeAnnotations(_ entries: [Entry], to dir: URL) throws {
        let csvURL = dir.appendingPathComponent("annotations.csv")
        let segments = entries.map {
            Segment(video: dir.appendingPathComponent($0.video), videoPath: $0.video, label: $0.label, start: $0.start, end: $0.end,
                    source: csvURL.path, line: nil)
        }
        try Data(AnnotationWriter.csv(segments).utf8).write(to: csvURL, options: .atomic)
        try AnnotationWriter.json(segments).write(to: dir.appendingPathComponent("annotations.json"), options: .atomic)
    }
}
