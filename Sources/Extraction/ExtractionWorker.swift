import BodyLandmarks
import FileSystem
import Foundation
import HandLandmarks
import HolisticLandmarks
import Landmarking
import Inference
import KeypointFormats
import Keypoints

/// One file of work for an extraction worker: JSON lines over the worker's standard input.
struct ExtractionJob: Codable {
    var input: String
    /// The output folder: each format's file is `OutputFormat.url(for: relative, in: root)`.
    var root: String
    var relative: String
    var options: ExtractionSettings
    var formats: [OutputFormat]
}

/// A worker's messages over its standard output: `frames` while it works, then exactly one of the
/// others per job.
struct ExtractionEvent: Codable {
    /// `unwritable`: an output could not be written (a full disk, a read-only folder): not the input's fault.
    enum Kind: String, Codable { case frames, done, incomplete, failed, unwritable }
    var kind: Kind
    var frames = 0
    var hands = 0
    var reason: String?
    /// The fewest and most engine threads the file's model runs used (more once other workers had no file
    /// left: `CoreShares`); nil when no model ran.
    var threads: ClosedRange<Int>?
}

/// The worker side of `ExtractionPipeline`: the process files are extracted in, so that a file which
/// crashes the decoder or the engine costs that file only.
public enum ExtractionWorker {
    /// Whether `error` says an output could not be written, rather than anything about the input.
    static func isOutputProblem(_ error: Error) -> Bool {
        if case KeypointError.unwritable = error { return true }
        if case ExtractionError.output = error { return true }
        return error is AtomicFile.WriteError
    }

    /// Test hook: a worker given an input whose file name equals this variable's value dies of SIGSEGV,
    /// so the supervisor's crash handling is tested on a real dying process.
    public static let crashHookVariable = "HANDPOSE_TEST_CRASH_ON"

    /// The line that tells a worker its share of the cores: this prefix and a number (`CoreShares`).
    static let sharePrefix = "share "

    /// Reads lines with `readLine` until it returns nil, on a thread of its own: jobs, extracted one after
    /// another, each event line handed to `send`; and shares (`share N`), the engine threads the plans may use
    /// from their next run on, mid-file too (`ThreadShare`), up to `threads`, which the plans are made for.
    /// `share`: the share to begin with (nil: `threads`).
    public static func serve(models directory: URL, complexity: HandTrackerOptions.Complexity, threads: Int, share: Int? = nil,
                             decodeThreads: Int = 0, sharing: SharedConstants? = nil, hashes: [String: String]? = nil,
                             readLine: @escaping @Sendable () -> String?, send: (Data) -> Void) throws {
        if let share { ThreadShare.set(min(share, threads)) }
        let inbox = WorkerInbox(readLine: readLine, threads: threads)
        inbox.start()
        // The supervisor catches SIGINT and SIGTERM while it runs (exec gives this process their default action);
        // a parent that ignores them would pass that on: their default action, so the supervisor's SIGTERM stops this worker.
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
        let crashOn = ProcessInfo.processInfo.environment[crashHookVariable]
        let tool = KeypointFile.Tool.handpose
        // One tracker for every job: its plans hold the weights, so stills and clips (different settings)
        // share them rather than each settings' tracker holding a copy. Planned at the first job that runs it:
        // Holistic without --hand-fallback finds no palms, and planning the palm and hand models would cost each
        // worker about 50 ms of its start and their weights' memory.
        var tracker: HandTracker?
        // The body pipeline, planned at the first job that asks for it (`--body`).
        var body: BodyTracker?
        // Holistic, planned at the first job that asks for it (`--holistic`).
        var holistic: HolisticTracker?
        func emit(_ event: ExtractionEvent) {
            var data = try! JSONEncoder().encode(event)
            data.append(0x0A)
            send(data)
        }
        while let line = inbox.next() {
            let job = try JSONDecoder().decode(ExtractionJob.self, from: Data(line.utf8))
            ThreadShare.resetUsage()
            if let crashOn, URL(fileURLWithPath: job.input).lastPathComponent == crashOn { raise(SIGSEGV) }
            var sent = Date()
            do {
                guard job.options.hands.model == complexity else {
                    throw ExtractionError.input(path: job.input, reason: "the worker runs the \(complexity.rawValue) models, the job asks for \(job.options.hands.model.rawValue)")
                }
                if job.options.runsHandTracker {
                    if let tracker { tracker.options = job.options.hands } else {
                        let models = try HandModels(directory: directory, complexity: complexity, sharing: sharing,
                                                    hashes: ModelFiles.known(hashes, names: HandModels.fileNames(complexity)))
                        tracker = try HandTracker(models: models, options: job.options.hands, threads: threads)
                    }
                }
                if let bodyOptions = job.options.bodyOptions, body == nil {
                    let bodyModels = try BodyModels(directory: directory, sharing: sharing, hashes: ModelFiles.known(hashes, names: BodyModels.fileNames))
                    body = try BodyTracker(models: bodyModels, options: bodyOptions, threads: threads)
                }
                if let options = job.options.holistic, holistic?.refinesFace != options.refineFace {
                    holistic = try HolisticTracker(models: try HolisticModels(directory: directory, refineFace: options.refineFace, sharing: sharing,
                                                                              hashes: hashes), threads: threads)
                }
                var reported = 0
                let outcome = try KeypointExtraction.extract(URL(fileURLWithPath: job.input), sourcePath: job.relative,
                                                             tracker: tracker, body: job.options.body == nil ? nil : body,
                                                             holistic: job.options.holistic == nil ? nil : holistic, settings: job.options, tool: tool, formats: job.formats,
                                                             root: URL(fileURLWithPath: job.root), decodeThreads: decodeThreads) { n in
                    if Date().timeIntervalSince(sent) > 0.2 {
                        emit(ExtractionEvent(kind: .frames, frames: n - reported))
                        reported = n
                        sent = Date()
                    }
                }
                emit(ExtractionEvent(kind: .frames, frames: outcome.frames - reported))
                emit(ExtractionEvent(kind: outcome.incomplete == nil ? .done : .incomplete, frames: outcome.frames,
                                     hands: outcome.hands, reason: outcome.incomplete?.error, threads: ThreadShare.usage))
            } catch {
                emit(ExtractionEvent(kind: Self.isOutputProblem(error) ? .unwritable : .failed, reason: "\(error)"))
            }
        }
    }
}
