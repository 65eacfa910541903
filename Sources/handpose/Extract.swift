import ArgumentParser
import Datasets
import Foundation
import HandLandmarks
import VideoIO

/// `handpose extract`: hand keypoints for every frame of every clip and image.
struct Extract: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Find hands and their 21 joints in every frame of clips and images; write one keypoint file per input.",
        discussion: """
        Writes OUT/<path relative to the input folder>.hands.json (schema handpose/keypoints@1). An output newer \
        than its input and made with the same settings and models is skipped, so an interrupted run resumes; \
        --overwrite redoes it. Outputs are written under a temporary name and renamed. A file that cannot be read \
        is reported and the others still processed; the exit code is 1 when any failed.
        """
    )

    @Argument(help: "Clips, images, or folders of them.")
    var inputs: [String]

    @Option(name: .shortAndLong, help: "Output folder.")
    var output: String

    @Flag(name: .shortAndLong, help: "Descend into sub-folders.")
    var recursive = false

    @Option(help: "Model complexity: full or lite.")
    var model: String = "full"

    @Option(help: "Most hands per frame.")
    var maxHands = 2

    @Option(help: "Palm detection score threshold.")
    var minDetectionConfidence: Float = 0.5

    @Option(help: "Hand presence threshold of the landmark model.")
    var minPresenceConfidence: Float = 0.5

    @Option(help: "video (track across frames) or image (detect every frame). Default: video for clips, image for still images.")
    var mode: String?

    @Flag(help: "Footage is mirrored (selfie view): flip handedness back.")
    var mirrored = false

    @Flag(help: "Smooth landmarks over time (One-Euro filter, video mode).")
    var smooth = false

    @Flag(help: ArgumentHelp("Follow MediaPipe's legacy Python solution (mp.solutions.hands) rather than MediaPipe Tasks: its rule for joining new palms to tracked hands, and a hand found twice in one frame reported twice.",
                             discussion: "For parity with outputs the legacy solution made, such as the corpus references."))
    var legacy = false

    @Option(help: "Files processed at once (default: the number of cores).")
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    @Option(help: "Folder with the .tflite models.")
    var models: String = "Models"

    @Flag(help: "Redo inputs whose outputs are up to date.")
    var overwrite = false

    @Flag(name: .shortAndLong, help: "Print only errors and the summary.")
    var quiet = false

    func validate() throws {
        guard ["full", "lite"].contains(model) else { throw ValidationError("--model must be full or lite") }
        if let mode, !["video", "image"].contains(mode) { throw ValidationError("--mode must be video or image") }
        guard maxHands >= 1 else { throw ValidationError("--max-hands must be at least 1") }
        guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1") }
        guard (0...1).contains(minDetectionConfidence), (0...1).contains(minPresenceConfidence) else {
            throw ValidationError("confidence thresholds lie between 0 and 1")
        }
    }

    func options(forStill still: Bool) -> HandTrackerOptions {
        var o = HandTrackerOptions()
        o.model = model == "lite" ? .lite : .full
        o.maxHands = maxHands
        o.minDetectionConfidence = minDetectionConfidence
        o.minPresenceConfidence = minPresenceConfidence
        o.mode = mode.map { $0 == "image" ? .image : .video } ?? (still ? .image : .video)
        o.mirrored = mirrored
        o.smoothing = smooth
        o.rules = legacy ? .legacy : .tasks
        return o
    }

    func run() throws {
        let work = try InputFiles.collect(inputs, recursive: recursive)
        let outRoot = URL(fileURLWithPath: output)
        let models: HandModels
        do {
            models = try HandModels(directory: URL(fileURLWithPath: self.models), complexity: model == "lite" ? .lite : .full)
        } catch {
            throw ValidationError("\(error)")
        }
        let tool = KeypointFile.Tool(name: "handpose", version: Handpose.version)
        let report = Report(total: work.count, quiet: quiet)
        let jobCount = min(jobs, max(work.count, 1))
        // One core per job; a single job gets every core for its engine.
        let engineThreads = jobCount == 1 ? ProcessInfo.processInfo.activeProcessorCount : 1
        let next = Counter()
        let start = Date()
        DispatchQueue.concurrentPerform(iterations: jobCount) { _ in
            var trackers: [HandTrackerOptions: HandTracker] = [:]
            while let index = next.take(below: work.count) {
                let item = work[index]
                let out = outRoot.appendingPathComponent(item.relative + ".hands.json")
                let still = InputFiles.isStillImage(item.url)
                let opts = options(forStill: still)
                if !overwrite, InputFiles.isUpToDate(out, input: item.url, settings: opts, models: models.hashes) {
                    report.skipped(item.relative)
                    continue
                }
                do {
                    if trackers[opts] == nil { trackers[opts] = try HandTracker(models: models, options: opts, threads: engineThreads) }
                    let file = try KeypointExtraction.extract(item.url, sourcePath: item.relative, tracker: trackers[opts]!, tool: tool) { _ in
                        report.frameDone()
                    }
                    try file.write(to: out)
                    report.done(item.relative, frames: file.frames.count, hands: file.frames.reduce(0) { $0 + $1.hands.count })
                } catch {
                    report.failed(item.relative, "\(error)")
                }
            }
        }
        report.finish(seconds: Date().timeIntervalSince(start), output: output)
        if report.failures > 0 { throw ExitCode(1) }
    }
}

/// Finding inputs and deciding which are already done.
enum InputFiles {
    static let videoExtensions: Set<String> = ["mp4", "mov", "m4v", "mkv", "webm", "avi", "gif", "mpg", "mpeg", "wmv", "flv", "3gp", "ts"]
    static let imageExtensions: Set<String> = ["jpg", "jpeg", "png", "bmp", "webp", "tif", "tiff"]

    static func isStillImage(_ url: URL) -> Bool { imageExtensions.contains(url.pathExtension.lowercased()) }

    /// Every clip and image named or inside a named folder, with its path relative to that folder.
    static func collect(_ inputs: [String], recursive: Bool) throws -> [(url: URL, relative: String)] {
        var out: [(URL, String)] = []
        let fm = FileManager.default
        for input in inputs {
            var isDir: ObjCBool = false
            guard fm.fileExists(atPath: input, isDirectory: &isDir) else { throw ValidationError("\(input): no such file or folder") }
            let url = URL(fileURLWithPath: input).standardizedFileURL
            if !isDir.boolValue { out.append((url, url.lastPathComponent)); continue }
            let names: [String]
            if recursive {
                names = (fm.enumerator(atPath: url.path)?.compactMap { $0 as? String } ?? [])
            } else {
                names = (try? fm.contentsOfDirectory(atPath: url.path)) ?? []
            }
            for name in names.sorted() {
                let ext = (name as NSString).pathExtension.lowercased()
                guard videoExtensions.contains(ext) || imageExtensions.contains(ext) else { continue }
                out.append((url.appendingPathComponent(name), name))
            }
        }
        return out
    }

    static func isUpToDate(_ output: URL, input: URL, settings: HandTrackerOptions, models: [String: String]) -> Bool {
        let fm = FileManager.default
        guard let outDate = (try? fm.attributesOfItem(atPath: output.path))?[.modificationDate] as? Date,
              let inDate = (try? fm.attributesOfItem(atPath: input.path))?[.modificationDate] as? Date,
              outDate >= inDate, let existing = try? KeypointFile.load(output) else { return false }
        return existing.settings == settings && existing.models == models
    }
}

/// A shared position in the list of work.
final class Counter: @unchecked Sendable {
    private var value = 0
    private let lock = NSLock()
    func take(below limit: Int) -> Int? {
        lock.lock(); defer { lock.unlock() }
        guard value < limit else { return nil }
        value += 1
        return value - 1
    }
}

/// Progress on a terminal (one redrawn line), plain log lines otherwise, and the closing summary.
final class Report: @unchecked Sendable {
    let total: Int
    let quiet: Bool
    let tty = isatty(STDERR_FILENO) != 0
    private let lock = NSLock()
    private(set) var failures = 0
    private var doneCount = 0, skippedCount = 0, frames = 0, hands = 0
    private var failed: [(String, String)] = []
    private let started = Date()
    private var lastDraw = Date.distantPast

    init(total: Int, quiet: Bool) { self.total = total; self.quiet = quiet }

    private func emit(_ line: String) { FileHandle.standardError.write(Data((line + "\n").utf8)) }

    private func draw(force: Bool = false) {
        guard tty, !quiet, force || Date().timeIntervalSince(lastDraw) > 0.2 else { return }
        lastDraw = Date()
        let finished = doneCount + skippedCount + failures
        let elapsed = Date().timeIntervalSince(started)
        let rate = Double(frames) / max(elapsed, 1e-3)
        let eta = finished > 0 ? elapsed / Double(finished) * Double(total - finished) : 0
        let width = 24, filled = total == 0 ? width : width * finished / total
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        FileHandle.standardError.write(Data(String(format: "\r[%@] %d/%d files  %d frames  %.1f frames/s  ETA %.0fs ",
                                                   bar, finished, total, frames, rate, eta).utf8))
    }

    func frameDone() { lock.lock(); frames += 1; draw(); lock.unlock() }

    func done(_ name: String, frames f: Int, hands h: Int) {
        lock.lock(); defer { lock.unlock() }
        doneCount += 1; hands += h
        if !quiet && !tty { emit("done \(name): \(f) frames, \(h) hands") }
        draw()
    }

    func skipped(_ name: String) {
        lock.lock(); defer { lock.unlock() }
        skippedCount += 1
        if !quiet && !tty { emit("skip \(name): up to date") }
        draw()
    }

    func failed(_ name: String, _ reason: String) {
        lock.lock(); defer { lock.unlock() }
        failures += 1
        failed.append((name, reason))
        if tty && !quiet { FileHandle.standardError.write(Data("\r".utf8)) }
        emit("error: \(reason)")
        draw()
    }

    func finish(seconds: Double, output: String) {
        lock.lock(); defer { lock.unlock() }
        draw(force: true)
        if tty && !quiet { FileHandle.standardError.write(Data("\n".utf8)) }
        print(String(format: "%d files: %d done, %d skipped, %d failed; %d frames, %d hands, %.1f frames/s; keypoints in %@",
                     total, doneCount, skippedCount, failures, frames, hands, Double(frames) / max(seconds, 1e-3), output))
        for (name, reason) in failed { print("  failed \(name): \(reason)") }
    }
}
