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
        let found = try InputFiles.collect(inputs, recursive: recursive)
        try InputFiles.prepareOutputFolder(output)
        let work = found.items
        let outRoot = URL(fileURLWithPath: output)
        let models: HandModels
        do {
            models = try HandModels(directory: URL(fileURLWithPath: self.models), complexity: model == "lite" ? .lite : .full)
        } catch {
            throw ValidationError("\(error)")
        }
        let report = Report(total: work.count, quiet: quiet)
        for s in found.skipped { report.note(s.path, s.reason, lost: s.lost) }
        guard !work.isEmpty else {
            report.finish(seconds: 0, output: output)
            var hint = "no clips or images found in \(inputs.joined(separator: ", "))"
            if found.subfoldersNotSearched > 0 { hint += "; \(found.subfoldersNotSearched) sub-folders were not searched: add -r" }
            if found.otherFiles > 0 {
                let known = InputFiles.videoExtensions.union(InputFiles.imageExtensions).sorted().joined(separator: " ")
                hint += "; \(found.otherFiles) files are not clips or images (known extensions: \(known))"
            }
            FileHandle.standardError.write(Data("error: \(hint)\n".utf8))
            throw ExitCode(1)
        }
        if found.subfoldersNotSearched > 0 && !quiet {
            FileHandle.standardError.write(Data("note: \(found.subfoldersNotSearched) sub-folders not searched; add -r to include them\n".utf8))
        }
        let jobCount = min(jobs, work.count)
        // One core per job; a single job gets every core for its engine.
        let engineThreads = jobCount == 1 ? ProcessInfo.processInfo.activeProcessorCount : 1
        let workerArguments = ["--models", self.models, "--complexity", model, "--threads", "\(engineThreads)"]
        let next = Counter()
        let start = Date()
        let stop = StopSignal()
        DispatchQueue.concurrentPerform(iterations: jobCount) { _ in
            var worker: WorkerProcess?
            defer { worker?.finish() }
            while !stop.requested, let index = next.take(below: work.count) {
                let item = work[index]
                let out = outRoot.appendingPathComponent(item.relative + ".hands.json")
                let opts = options(forStill: InputFiles.isStillImage(item.url))
                if !overwrite, let existing = InputFiles.isUpToDate(out, input: item.url, settings: opts, models: models.hashes) {
                    if let incomplete = existing.incomplete {
                        report.incomplete(item.relative, frames: existing.frames.count,
                                          reason: incomplete.error + " (kept from an earlier run; --overwrite redoes it)")
                    } else {
                        report.skipped(item.relative)
                    }
                    continue
                }
                do {
                    if worker == nil {
                        worker = try WorkerProcess(arguments: workerArguments)
                        stop.track(worker!)
                    }
                    let job = ExtractJob(input: item.url.path, output: out.path, relative: item.relative, options: opts)
                    let event = try worker!.run(job) { report.framesDone($0) }
                    switch event.kind {
                    case .done: report.done(item.relative, frames: event.frames, hands: event.hands)
                    case .incomplete: report.incomplete(item.relative, frames: event.frames, reason: event.reason ?? "")
                    case .failed, .frames: report.failed(item.relative, event.reason ?? "failed")
                    }
                } catch let died as WorkerProcess.Died {
                    // The worker's half-written output, if any, goes with it.
                    try? FileManager.default.removeItem(at: KeypointFile.temporaryURL(for: out, pid: worker!.pid))
                    stop.untrack(worker!)
                    worker = nil
                    if stop.requested { break }
                    report.failed(item.relative, "\(item.url.path): \(died.description); the other files go on")
                } catch {
                    report.failed(item.relative, "\(item.url.path): cannot start a worker process (\(error))")
                }
            }
        }
        report.finish(seconds: Date().timeIntervalSince(start), output: output, interrupted: stop.requested)
        if stop.requested { throw ExitCode(130) }
        if report.failures > 0 { throw ExitCode(1) }
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
