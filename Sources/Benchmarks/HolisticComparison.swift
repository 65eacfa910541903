import FileSystem
import Foundation

/// `bench holistic`: `extract --holistic` beside pose-format's `video_to_pose` and `videos_to_poses`
/// (MediaPipe 0.10.14's Holistic, as sign-language researchers run it) over the same clips, each run a
/// separate process tree measured from outside (`MeasuredRun`): handpose with N jobs and with one;
/// `videos_to_poses --num-workers N` over a folder of links to the clips; `video_to_pose` once per clip,
/// one after another, as its users loop over files. The clips are those `videos_to_poses` takes (its
/// suffixes: no GIFs). Runs alternate for a number of rounds and each configuration's fastest counts.
/// Every run must write a `.pose` for every clip, and handpose's files must hold every frame.
public struct HolisticComparison {
    private struct Side {
        var name: String
        var executable: String
        var arguments: [String]
        var ours: Bool
        /// Where the run's `.pose` files land, emptied before each run.
        var output: URL
    }

    /// `videos_to_poses`' video suffixes.
    public static let referenceSuffixes: Set<String> = ["mp4", "mov", "avi", "mkv", "flv", "wmv", "webm"]
    public let clips: [String]
    private let scratch: URL
    private let models: URL
    private let refineFace: Bool
    private let sides: [Side]

    /// `referenceBin`: the folder holding pose-format's `video_to_pose` and `videos_to_poses` (a
    /// virtual environment's `bin`, `make holistic-venv`); `jobs`: workers on each side; `refineFace`: both sides
    /// run the face mesh with attention (`extract --refine-face`, pose-format's `refine_face_landmarks=true`).
    public init(inputs: [String], models folder: URL, jobs: Int, referenceBin: URL, refineFace: Bool = false,
                handpose: String = MeasuredRun.executablePath) throws(BenchmarkError) {
        let clips = try ClipList.collect(inputs, recursive: false).map(\.url)
            .filter { Self.referenceSuffixes.contains($0.pathExtension.lowercased()) }
        guard !clips.isEmpty else { throw .noClips(inputs: inputs) }
        for tool in ["video_to_pose", "videos_to_poses"] where !FileManager.default.isExecutableFile(atPath: referenceBin.appendingPathComponent(tool).path) {
            throw .referenceNotRunnable(python: referenceBin.appendingPathComponent(tool).path,
                                        reason: "pose-format's \(tool) is not there (make holistic-venv installs it in .venv-holistic)")
        }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("handpose-bench-holistic-\(getpid())")
        let flags = refineFace ? ["--holistic", "--refine-face"] : ["--holistic"], flag = flags.joined(separator: " ")
        func ours(_ name: String, jobs: Int) -> Side {
            let out = scratch.appendingPathComponent("handpose-\(jobs)")
            return Side(name: name, executable: handpose,
                        arguments: ["extract"] + clips.map(\.path) + ["-o", out.path, "--overwrite", "--quiet", "--jobs", "\(jobs)",
                                                                     "--models", folder.path, "--format", "pose"] + flags,
                        ours: true, output: out)
        }
        // pose-format's own switch for the attention mesh; without it, its defaults (video_to_pose's plain run).
        let config = refineFace ? ["--additional-config", "refine_face_landmarks=true"] : []
        // videos_to_poses writes each .pose beside its video: a folder of links to the clips.
        let links = scratch.appendingPathComponent("videos_to_poses")
        let loop = scratch.appendingPathComponent("video_to_pose")
        let script = clips.map { c in
            "\"$0\" --format mediapipe \(config.joined(separator: " ")) -i '\(c.path.replacingOccurrences(of: "'", with: "'\\''"))' -o '\(loop.appendingPathComponent(c.lastPathComponent).path.replacingOccurrences(of: "'", with: "'\\''")).pose' || exit 1"
        }.joined(separator: "\n")
        var sides: [Side] = []
        if jobs > 1 {
            sides.append(ours("handpose extract \(flag), \(jobs) jobs", jobs: jobs))
            sides.append(Side(name: "videos_to_poses, \(jobs) workers", executable: referenceBin.appendingPathComponent("videos_to_poses").path,
                              arguments: ["--format", "mediapipe", "--directory", links.path, "--num-workers", "\(jobs)"] + config, ours: false, output: links))
        }
        sides.append(ours("handpose extract \(flag), 1 job", jobs: 1))
        sides.append(Side(name: "video_to_pose, once per clip", executable: "/bin/sh",
                          arguments: ["-c", script, referenceBin.appendingPathComponent("video_to_pose").path], ours: false, output: loop))
        self.clips = clips.map(\.path)
        self.scratch = scratch
        self.sides = sides
        self.models = folder
        self.refineFace = refineFace
        do {
            try FileManager.default.createDirectory(at: links, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: loop, withIntermediateDirectories: true)
            for c in clips { try FileManager.default.createSymbolicLink(at: links.appendingPathComponent(c.lastPathComponent), withDestinationURL: c) }
        } catch {
            throw .inputs(reason: "cannot prepare \(scratch.path): \(describe(error))")
        }
    }

    /// Runs every configuration in each of `rounds` rounds; each row is its fastest round, and each
    /// handpose row's speed-up is over the reference row that follows it (the same number of workers).
    /// `profile`: also handpose's time per frame by stage (`StageSplit.measureHolistic`).
    public func measure(rounds: Int, profile: Bool = false, progress: (BenchProgress) -> Void) throws(BenchmarkError) -> BenchJSON.ExtractReport {
        defer { try? FileManager.default.removeItem(at: scratch) }
        var best: [String: MeasuredRun] = [:]
        var frames = 0
        for round in 1...max(1, rounds) {
            for side in sides {
                // Each run makes its .pose files afresh (videos_to_poses passes over a clip whose .pose exists).
                for file in Self.poseFiles(in: side.output) { try? FileManager.default.removeItem(at: file) }
                let run = try MeasuredRun(executable: side.executable, arguments: side.arguments)
                guard run.status == 0 else { throw .runFailed(run: side.name, status: run.status, errorTail: run.errorTail, ours: side.ours) }
                let made = Self.poseFiles(in: side.output).count
                guard made == clips.count else {
                    throw .missingOutputs(run: side.name, made: made, expected: clips.count)
                }
                if side.ours { frames = try ExtractComparison.decodedFramesAndHands(in: side.output).frames }
                if run.seconds < best[side.name]?.seconds ?? .infinity { best[side.name] = run }
                progress(.extractRun(round: round, run: side.name, seconds: run.seconds))
            }
        }
        let split = profile ? try StageSplit.measureHolistic(clips: clips, models: models, refineFace: refineFace, scratch: scratch) : nil
        return BenchJSON.ExtractReport(runs: BenchJSON.ExtractRow.rows(sides.map { ($0.name, $0.ours, best[$0.name]!) }, frames: frames),
                                       profile: split)
    }

    static func poseFiles(in folder: URL) -> [URL] {
        guard let walk = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { return [] }
        return walk.compactMap { $0 as? URL }.filter { $0.pathExtension == "pose" }
    }
}
