import Foundation
import Inference
import Keypoints

/// `bench extract`: handpose's extraction over clips beside MediaPipe (Tasks) as its users run it, each
/// run a separate process tree measured from outside (`MeasuredRun`): handpose with N jobs and with one,
/// MediaPipe (`scripts/mediapipe_bench.py`) in a pool of N processes and in one. The runs alternate for
/// a number of rounds and each configuration's fastest counts, so a burst of load on a shared machine
/// does not fall on one side only. Both sides must read the same frames and find about the same hands.
public struct ExtractComparison {
    /// One configuration: a command line and the name of its row.
    private struct Side {
        var name: String
        var executable: String
        var arguments: [String]
        var ours: Bool
    }

    /// The clips measured.
    public let clips: [String]
    private let models: URL
    private let body: Bool
    private let scratch: URL
    private let sides: [Side]

    /// Finds the clips under `inputs` (not in subfolders), and with `referencePython` the MediaPipe helper
    /// script and the release that Python imports, which names its rows; all before any run, so a missing
    /// file is said at once. `models`: the folder of the full hand models (`ModelFolder`); `jobs`: worker
    /// processes on each side; `body`: bodies too (MediaPipe's PoseLandmarker beside its HandLandmarker);
    /// `handpose`: the handpose binary to run.
    public init(inputs: [String], models folder: URL, jobs: Int, body: Bool, referencePython: String?,
                handpose: String = MeasuredRun.executablePath) throws(BenchmarkError) {
        let clips = try ClipList.collect(inputs, recursive: false).map(\.url.path)
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("handpose-bench-\(getpid())")
        let cores = UsableCores.count
        func ours(_ name: String, jobs: Int) -> Side {
            Side(name: name, executable: handpose, arguments: ["extract"] + clips + ["-o", scratch.path, "--overwrite", "--quiet", "--jobs", "\(jobs)",
                                                                                   "--models", folder.path] + (body ? ["--body"] : []), ours: true)
        }
        var reference: (python: String, script: URL, release: String)?
        if let referencePython {
            let script = try HelperScript.url("mediapipe_bench.py")
            reference = (referencePython, script, try Self.mediapipeVersion(referencePython))
        }
        func mediapipe(_ name: String, workers: Int) -> Side? {
            guard let reference else { return nil }
            return Side(name: "MediaPipe \(reference.release), \(name)", executable: reference.python,
                        arguments: [reference.script.path, body ? "body" : "tasks", "--models", folder.path, "--workers", "\(workers)"] + clips,
                        ours: false)
        }
        // Row names say how each side uses the cores: with one job handpose's engine runs on every core,
        // while MediaPipe's XNNPACK keeps its default of one thread on Linux.
        var sides: [Side] = []
        let what = body ? " (hands + body)" : ""
        if jobs > 1 {
            sides.append(ours("handpose, \(jobs) jobs\(what)", jobs: jobs))
            if let m = mediapipe("\(jobs) processes\(what)", workers: jobs) { sides.append(m) }
        }
        sides.append(ours("handpose, 1 job (\(cores) engine threads)\(what)", jobs: 1))
        if let m = mediapipe("1 process\(what)", workers: 1) { sides.append(m) }
        self.clips = clips
        self.models = folder
        self.body = body
        self.scratch = scratch
        self.sides = sides
    }

    /// Runs every configuration in each of `rounds` rounds and returns each one's fastest round; each
    /// handpose row's speed-up is over the MediaPipe row of the same shape, which follows it. With
    /// `profile`, handpose's time per frame split by stage too (`StageSplit`).
    public func measure(rounds: Int, profile: Bool, progress: (BenchProgress) -> Void) throws(BenchmarkError) -> BenchJSON.ExtractReport {
        defer { try? FileManager.default.removeItem(at: scratch) }
        var best: [String: MeasuredRun] = [:]
        var frames = 0, hands = 0
        for round in 1...max(1, rounds) {
            for side in sides {
                let run = try MeasuredRun(executable: side.executable, arguments: side.arguments)
                guard run.status == 0 else { throw .runFailed(run: side.name, status: run.status, errorTail: run.errorTail, ours: side.ours) }
                // Both sides must have read the same frames and found about the same hands (a task bundle
                // without the right models would be fast and find none), else the times mean nothing.
                let counted: (frames: Int, hands: Int)
                if side.ours {
                    counted = try Self.decodedFramesAndHands(in: scratch)
                    (frames, hands) = counted
                } else {
                    guard let r = try? BenchJSON.decoder.decode(BenchJSON.ReferenceCounts.self, from: run.output) else {
                        throw .noCounts(run: side.name, output: String(decoding: run.output.prefix(300), as: UTF8.self))
                    }
                    counted = (r.frames, r.hands)
                }
                if counted.frames != frames || abs(counted.hands - hands) > max(10, hands / 10) {
                    throw .notComparable(run: side.name, frames: counted.frames, hands: counted.hands, expectedFrames: frames, expectedHands: hands)
                }
                if run.seconds < best[side.name]?.seconds ?? .infinity { best[side.name] = run }
                progress(.extractRun(round: round, run: side.name, seconds: run.seconds))
            }
        }
        let rows = BenchJSON.ExtractRow.rows(sides.map { ($0.name, $0.ours, best[$0.name]!) }, frames: frames)
        let split = profile ? try StageSplit.measure(clips: clips, models: models, scratch: scratch) : nil
        return BenchJSON.ExtractReport(runs: rows, profile: split)
    }

    /// `mediapipe.__version__` as the Python `python` imports it.
    static func mediapipeVersion(_ python: String) throws(BenchmarkError) -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: python)
        p.arguments = ["-c", "import mediapipe; print(mediapipe.__version__)"]
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = FileHandle.nullDevice
        do { try p.run() } catch { throw .referenceNotRunnable(python: python, reason: error.localizedDescription) }
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        p.waitUntilExit()
        guard p.terminationStatus == 0, !text.isEmpty else { throw .referenceWithoutMediaPipe(python: python) }
        return text
    }

    /// The frames and hands in the keypoint files under `folder`.
    static func decodedFramesAndHands(in folder: URL) throws(BenchmarkError) -> (frames: Int, hands: Int) {
        var frames = 0, hands = 0
        guard let walk = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { return (0, 0) }
        for case let url as URL in walk where url.path.hasSuffix(".hands.json") {
            let file = try attempt(BenchmarkError.extraction) { try KeypointFile.load(url) }
            frames += file.frames.count
            hands += file.frames.reduce(0) { $0 + $1.hands.count }
        }
        return (frames, hands)
    }
}
