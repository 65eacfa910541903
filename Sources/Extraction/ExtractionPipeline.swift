import BodyLandmarks
import FileSystem
import Foundation
import HandLandmarks
import HolisticLandmarks
import Inference
import KeypointFormats
import Keypoints
import KeypointStore
import Landmarking
import Synchronization
import VideoIO

/// Turns clips and images into keypoint files: one pipeline for `extract`, `export`'s on-the-fly
/// extraction and `bench`. Each file runs in a worker process (`jobs` of them): a file that crashes
/// FFmpeg or the engine costs that file only, and a new worker takes the next. Outputs are named by
/// `outputURL`; an output newer than its input and made with the same settings and models is kept.
public struct ExtractionPipeline: Sendable {
    /// The hidden subcommand of the tool that runs `ExtractionWorker.serve`.
    public static let workerCommand = "extract-worker"

    /// What happened, for the caller to draw: progress in frames, then one outcome per file.
    public enum Event: Sendable {
        case frames(Int)
        /// `threads`: the fewest and most engine threads the file's model runs used (`CoreShares`; nil when
        /// no model ran).
        case done(String, frames: Int, hands: Int, threads: ClosedRange<Int>?)
        case skipped(String)
        /// Keypoints written for the frames before damage in the clip, and the hands found in them in this run
        /// (0 for one kept from an earlier run, whose frames this run's totals do not count either).
        case incomplete(String, frames: Int, hands: Int, reason: String)
        case failed(String, reason: String)
        /// Its outputs could not be written because the output's file system is full or read-only (`OutputSpace`):
        /// the output's fault, not the input's, so no failure is recorded against the input and no further file
        /// is started.
        case unwritable(String, reason: String)
        /// Its keypoint file could not be read (`reason`) and was moved to `keptAt` before extracting again.
        case setAside(String, keptAt: String, reason: String)
    }

    public var modelsDirectory: URL
    public var complexity: HandTrackerOptions.Complexity
    /// File name to SHA-256 of the models: computed once per run without planning them, compared by
    /// the verdicts and handed to the workers, which record it in every keypoint file.
    public var modelHashes: [String: String]
    /// Tracker settings for an input; `true` for still images.
    public var settings: @Sendable (Bool) -> ExtractionSettings
    public var jobs: Int
    public var overwrite: Bool
    /// The files written for each input (the keypoint file always among them).
    public var formats: [OutputFormat] = [.json]
    /// Where the workers share their packed weights (one copy however many workers run); nil: each
    /// worker keeps its own.
    public var sharing: SharedConstants?

    public init(modelsDirectory: URL, complexity: HandTrackerOptions.Complexity, jobs: Int, overwrite: Bool,
                settings: @escaping @Sendable (Bool) -> ExtractionSettings) throws {
        self.modelsDirectory = modelsDirectory
        self.complexity = complexity
        modelHashes = try Self.modelIdentity(directory: modelsDirectory, complexity: complexity, settings: settings(false))
        self.settings = settings
        self.jobs = jobs
        self.overwrite = overwrite
    }

    /// File name to SHA-256 of the models `settings` runs, read without planning them: the hand tracker's, with
    /// the pose models under `--body`; under `--holistic` Holistic's (and the hand tracker's too with
    /// `--hand-fallback`). What keypoint files record and verdicts compare, so a rerun resumes and `status`
    /// names what made each file; `status` asks this too.
    public static func modelIdentity(directory: URL, complexity: HandTrackerOptions.Complexity,
                                     settings: ExtractionSettings) throws -> [String: String] {
        var identity = try ModelFiles.identity(directory: directory, names: modelFileNames(complexity: complexity, settings: settings))
        if settings.body != nil && settings.holistic == nil {
            identity.merge(try ModelFiles.identity(directory: directory, names: BodyModels.fileNames)) { a, _ in a }
        }
        return identity
    }

    /// The model files that `settings` runs and that pick the models' folder: the hand tracker's when it runs
    /// (`ExtractionSettings.runsHandTracker`), Holistic's under `--holistic`. (`--body`'s pose models are looked
    /// for in that folder, so that a missing one is named.)
    public static func modelFileNames(complexity: HandTrackerOptions.Complexity, settings: ExtractionSettings) -> [String] {
        (settings.runsHandTracker ? HandModels.fileNames(complexity) : [])
            + (settings.holistic.map { HolisticModels.fileNames(refineFace: $0.refineFace) } ?? [])
    }

    /// What the keypoints of an input must have been made with for this pipeline to keep them.
    public func request(still: Bool) -> KeypointRequest {
        KeypointRequest(settings: KeypointFile.Settings(settings(still)), models: modelHashes, formats: formats)
    }

    /// The verdict on an input's keypoints in `folder` when `run` would keep them, nil when it would
    /// extract the input (always with `overwrite`).
    func kept(_ item: InputFiles.Item, in folder: KeypointFolder) -> Verdict? {
        guard let verdict = verdict(item, in: folder) else { return nil }
        return verdict.state.redoneByExtract ? nil : verdict
    }

    /// The verdict on an input's keypoints, nil with `overwrite` (not asked).
    func verdict(_ item: InputFiles.Item, in folder: KeypointFolder) -> Verdict? {
        guard !overwrite else { return nil }
        return folder.verdict(for: item.url, relative: item.relative, asked: request(still: InputFiles.isStillImage(item.url)))
    }

    /// The items `run` would extract into `root` (the others it keeps): what a staging script copies
    /// to node-local disk before the run.
    public func pending(_ items: [InputFiles.Item], in root: URL) -> [InputFiles.Item] {
        let folder = KeypointFolder(root)
        return items.filter { kept($0, in: folder) == nil }
    }

    /// `--model-hash` arguments (NAME=SHA256) back into the identity they were made from.
    public static func parseModelHashes(_ arguments: [String]) -> [String: String] {
        Dictionary(arguments.compactMap { a in a.firstIndex(of: "=").map { (String(a[..<$0]), String(a[a.index(after: $0)...])) } },
                   uniquingKeysWith: { a, _ in a })
    }

    /// Extracts every item into `root`; returns false when SIGINT or SIGTERM stopped it (the files not
    /// reached have no event). Throws `ExtractionError.workers` when a worker process cannot be started
    /// (the files not reached have no event either, and no failure is recorded against them).
    public func run(_ items: [InputFiles.Item], into root: URL, events: @escaping @Sendable (Event) -> Void) throws -> Bool {
        guard !items.isEmpty else { return true }
        let jobCount = min(jobs, items.count)
        // The cores dealt among the jobs' engines, and dealt again among those still working whenever a job
        // runs out of files: each worker's plans are made for every core and run on its share.
        let cores = UsableCores.count
        let shares = CoreShares(cores: cores, slots: jobCount)
        // FFmpeg's frame threads share the cores left per job (0: FFmpeg chooses, for a single job): with a
        // job per core each decodes on one thread, since more would only add a decoding context each (about
        // 50 MB for 1080p H.264) and compete with the other jobs.
        let decodeThreads = jobCount == 1 ? 0 : max(1, cores / jobCount)
        let workerArguments = ["--models", modelsDirectory.path, "--complexity", complexity.rawValue,
                               "--threads", "\(cores)", "--decode-threads", "\(decodeThreads)"]
            + (sharing.map { ["--shared-constants", $0.directory.path] } ?? [])
            + modelHashes.sorted { $0.key < $1.key }.flatMap { ["--model-hash", "\($0.key)=\($0.value)"] }
        let folder = KeypointFolder(root)
        // Temporaries of this machine's earlier runs killed outright (SIGKILL: no handler ran) go first.
        AtomicFile.removeStale(under: root)
        // A failure is recorded beside the outputs (for `status`) and reported.
        @Sendable func failed(_ item: InputFiles.Item, _ reason: String) {
            FailureRecord(input: item.relative, reason: reason).write(in: folder)
            events(.failed(item.relative, reason: reason))
        }
        let next = WorkQueue(count: items.count)
        let stop = StopSignal()
        defer { stop.release() }
        let cannotStart = FirstError()
        let outputGone = Flag()
        // Takes files from `next` until none is left or a stop is asked for, each in this thread's worker;
        // then its cores go to the other workers (`CoreShares`).
        @Sendable func supervise(_ slot: Int) {
            var worker: WorkerProcess?
            defer {
                shares.leave(slot)
                worker?.finish()
            }
            while !stop.requested, cannotStart.error == nil, !outputGone.value, let index = next.take() {
                let item = items[index]
                let opts = settings(InputFiles.isStillImage(item.url))
                let verdict = self.verdict(item, in: folder)
                if let verdict, verdict.state == .unreadable {
                    // Made again, but never over a file that is only unreadable: it is kept beside, named.
                    guard let aside = folder.setAside(item.relative) else {
                        failed(item, "its keypoint file cannot be read (\(verdict.reason ?? "")) and cannot be moved aside to make it again: move or delete it")
                        continue
                    }
                    events(.setAside(item.relative, keptAt: aside.path, reason: verdict.reason ?? ""))
                }
                if let verdict, !verdict.state.redoneByExtract {
                    // A good output stands; a failure recorded by a later --overwrite attempt no longer applies.
                    FailureRecord.remove(for: item.relative, in: folder)
                    if verdict.state == .incomplete {
                        events(.incomplete(item.relative, frames: verdict.summary?.frames ?? 0, hands: 0,
                                           reason: (verdict.reason ?? "") + " (kept from an earlier run; --overwrite redoes it)"))
                    } else {
                        events(.skipped(item.relative))
                    }
                    continue
                }
                // A worker that died between jobs is replaced before it is given the next file, so the
                // file is not blamed for it.
                if let w = worker, !w.isRunning { shares.detach(slot); stop.untrack(w); w.finish(); worker = nil }
                if worker == nil {
                    let share = shares.share(slot)
                    do { worker = try WorkerProcess(arguments: workerArguments + ["--share", "\(share)"]) } catch {
                        cannotStart.record("\(error)")
                        break
                    }
                    stop.track(worker!)
                    shares.attach(worker!, to: slot, share: share)
                }
                do {
                    let job = ExtractionJob(input: item.url.path, root: root.path, relative: item.relative, options: opts,
                                            formats: formats)
                    let event = try worker!.run(job) { events(.frames($0)) }
                    switch event.kind {
                    case .done:
                        FailureRecord.remove(for: item.relative, in: folder)
                        events(.done(item.relative, frames: event.frames, hands: event.hands, threads: event.threads))
                    case .incomplete:
                        FailureRecord.remove(for: item.relative, in: folder)
                        events(.incomplete(item.relative, frames: event.frames, hands: event.hands, reason: event.reason ?? ""))
                    case .unwritable:
                        // A full or read-only file system is the output's fault; a name too long or a folder in the
                        // way of this input's output is this input's failure, recorded as any other.
                        let reason = event.reason ?? "cannot be written"
                        if OutputSpace.exhausted(root.path) {
                            events(.unwritable(item.relative, reason: reason))
                            outputGone.set()
                        } else {
                            failed(item, reason)
                        }
                    case .failed, .frames:
                        failed(item, event.reason ?? "failed")
                    }
                } catch let died as WorkerProcess.Died {
                    // The worker's half-written outputs, if any, go with it.
                    for f in formats {
                        try? FileManager.default.removeItem(at: AtomicFile.temporaryURL(for: folder.url(for: item.relative, format: f),
                                                                                         pid: worker!.pid))
                    }
                    shares.detach(slot)
                    stop.untrack(worker!)
                    worker = nil
                    if stop.requested { break }
                    failed(item, "\(item.url.path): \(died.description); the other files go on")
                } catch {
                    failed(item, "\(item.url.path): \(error)")
                }
            }
        }
        // One supervisor thread per job, each holding one worker process. Not `concurrentPerform`: it runs
        // at most a thread per core, so `--jobs 8` on 2 cores ran 2 workers while the engine and decoder
        // threads above were sized for 8.
        let supervisors = DispatchGroup()
        for slot in 0..<jobCount {
            supervisors.enter()
            let thread = Thread {
                defer { supervisors.leave() }
                supervise(slot)
            }
            thread.start()
        }
        supervisors.wait()
        if let reason = cannotStart.error { throw ExtractionError.workers(reason: reason) }
        return !stop.requested
    }
}

/// The first of the supervisors' failures to start a worker, which stops the others.
final class FirstError: Sendable {
    private let first = Mutex<String?>(nil)
    var error: String? { first.withLock { $0 } }
    func record(_ e: String) { first.withLock { if $0 == nil { $0 = e } } }
}

/// A flag any supervisor may raise and every one reads.
final class Flag: Sendable {
    private let raised = Mutex(false)
    var value: Bool { raised.withLock { $0 } }
    func set() { raised.withLock { $0 = true } }
}

/// Whether the file system holding the output can take no more, asked of the file system itself after a write
/// failed: read-only, out of inodes, or under 1 MiB free (a keypoint file of a minute of video is larger). Not
/// from the failure's message, which names the file and so could be made to say "No space left on device". A
/// name too long, a folder in the way, or one large output that does not fit where smaller ones still do leaves
/// it usable: that input failed, and the run goes on. (A quota is not seen here: each input over it fails.)
enum OutputSpace {
    static func exhausted(_ path: String) -> Bool {
        var s = statvfs()
        guard statvfs(path, &s) == 0 else { return true }
        if s.f_flag & UInt(ST_RDONLY) != 0 || (s.f_files > 0 && s.f_favail == 0) { return true }
        return UInt64(s.f_bavail) * UInt64(s.f_frsize) < 1 << 20
    }
}

/// A shared position in the list of work.
final class WorkQueue: Sendable {
    private let value = Mutex(0)
    private let count: Int
    init(count: Int) { self.count = count }
    func take() -> Int? {
        value.withLock { value in
            guard value < count else { return nil }
            value += 1
            return value - 1
        }
    }
}

/// The write end of the pipe through which SIGINT and SIGTERM reach `StopSignals`' listener (-1: none yet).
/// Set once, before the handler is first installed, and never closed; the handler only reads it.
nonisolated(unsafe) private var stopSignalPipe: Int32 = -1

/// The handler of SIGINT and SIGTERM while a pipeline runs: async-signal-safe, it writes one byte (the write
/// end does not block: a full pipe already holds a stop) and leaves errno as it found it.
private func reportStopSignal(_ signal: Int32) {
    let saved = errno
    var byte = UInt8(truncatingIfNeeded: signal)
    _ = write(stopSignalPipe, &byte, 1)
    errno = saved
}

/// The process's one listener for SIGINT and SIGTERM (the self-pipe way: a handler writes a byte, a thread of
/// its own reads it), shared by every pipeline that runs, and the signals caught while at least one does. Not a
/// Dispatch source: a Dispatch source's events and cancellation run on Dispatch's global queues, and while those
/// hold work, Dispatch's thread-pool monitor reads /proc/<thread>/stat each second and stops the process
/// (SIGILL) where there is no /proc (a bare chroot: found by the wheel's test in a Debian root).
private final class StopSignals: @unchecked Sendable {
    static let shared = StopSignals()
    private let lock = NSLock()
    private var listeners: [ObjectIdentifier: StopSignal] = [:]
    private var started = false

    /// Whether `s` will hear the signals (false: no pipe could be made; they keep their default action).
    func add(_ s: StopSignal) -> Bool {
        lock.lock(); defer { lock.unlock() }
        if !started {
            var fds: [Int32] = [-1, -1]
            guard makePipe(&fds) == 0 else { return false }
            _ = fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL) | O_NONBLOCK)
            stopSignalPipe = fds[1]
            let reader = fds[0]
            let thread = Thread { [self] in
                var byte: UInt8 = 0
                while true {
                    let n = read(reader, &byte, 1)
                    if n == 1 { lock.lock(); let all = Array(listeners.values); lock.unlock(); all.forEach { $0.stop() } }
                    else if n < 0, errno != EINTR { return }
                }
            }
            thread.start()
            started = true
        }
        if listeners.isEmpty {
            signal(SIGINT, reportStopSignal)
            signal(SIGTERM, reportStopSignal)
        }
        listeners[ObjectIdentifier(s)] = s
        return true
    }

    /// `s` no longer hears them; with no pipeline left, SIGINT and SIGTERM get their usual meaning back.
    func remove(_ s: StopSignal) {
        lock.lock(); defer { lock.unlock() }
        listeners[ObjectIdentifier(s)] = nil
        if listeners.isEmpty {
            signal(SIGINT, SIG_DFL)
            signal(SIGTERM, SIG_DFL)
        }
    }
}

/// SIGINT and SIGTERM while a pipeline runs: take no new file and stop the workers, so the caller can
/// still report what was done. A worker that died must not take the supervisor with it: SIGPIPE is ignored.
/// Unchecked: its state is guarded by `lock`.
final class StopSignal: @unchecked Sendable {
    private let lock = NSLock()
    private var stopped = false
    private var workers: [ObjectIdentifier: WorkerProcess] = [:]

    init() {
        signal(SIGPIPE, SIG_IGN)
        _ = StopSignals.shared.add(self)
    }

    /// Stops listening; SIGINT and SIGTERM get their usual meaning back when no other pipeline runs.
    func release() { StopSignals.shared.remove(self) }

    var requested: Bool { lock.lock(); defer { lock.unlock() }; return stopped }

    func track(_ w: WorkerProcess) { lock.lock(); workers[ObjectIdentifier(w)] = w; lock.unlock() }
    func untrack(_ w: WorkerProcess) { lock.lock(); workers[ObjectIdentifier(w)] = nil; lock.unlock() }

    fileprivate func stop() {
        lock.lock(); stopped = true; let running = Array(workers.values); lock.unlock()
        for w in running { w.terminate() }
    }
}
