import FileSystem
import Foundation
import Keypoints

/// An `extract-worker` child process, seen from the supervisor: send a job, read its events until the
/// job's outcome, or learn that the worker died (and of what) while it held the job.
final class WorkerProcess {
    /// How a worker ended while it held a job.
    struct Died: Error {
        var signal: Int32?
        var status: Int32?
        /// The last lines the worker wrote to its standard error (a Swift runtime error, say).
        var lastWords: String

        var description: String {
            let how = signal.map { "crashed (signal \($0), \(signalName($0)))" } ?? "exited with status \(status ?? -1) mid-file"
            return lastWords.isEmpty ? how : "\(how): \(lastWords)"
        }
    }

    private let child: ChildProcess
    /// The worker's standard error goes to an anonymous in-memory file (memfd), which never fills up and
    /// blocks it as a pipe would, and needs no writable folder (a container's root may be read-only, its
    /// /tmp absent). Emptied before each job, so it holds what the current job wrote.
    private let errorLog: Int32
    private var buffer: [UInt8] = []
    /// Writes to the worker's input (jobs from the supervisor's thread, shares from whichever supervisor
    /// leaves: `CoreShares`) and its closing, one at a time; no write after the close.
    private let input = NSLock()
    private var inputClosed = false

    /// Starts this same executable as `handpose extract-worker ARGUMENTS` (the tool's hidden command
    /// that calls `ExtractionWorker.serve`).
    init(arguments: [String]) throws {
        guard let executable = Executable.url else {
            throw ChildProcess.SpawnError(path: "handpose", code: ENOENT)
        }
        // Swift's crash backtracer takes a second per crash and buries the runtime's one-line reason.
        var environment = ProcessInfo.processInfo.environment
        if environment["SWIFT_BACKTRACE"] == nil { environment["SWIFT_BACKTRACE"] = "enable=no" }
        errorLog = memfd_create("handpose-worker-stderr", memfdCloseOnExec)
        guard errorLog >= 0 else { throw ChildProcess.SpawnError(path: "memfd_create", code: errno) }
        do {
            child = try ChildProcess(executable: executable.path, arguments: [ExtractionPipeline.workerCommand] + arguments,
                                     environment: environment, standardError: errorLog)
        } catch {
            close(errorLog)
            throw error
        }
    }

    /// False once the worker has exited (it may die between jobs, e.g. killed for memory).
    var isRunning: Bool { child.isRunning }

    deinit { close(errorLog) }

    var pid: Int32 { child.pid }

    /// Runs `job`; `frames` gets the worker's progress. Returns the job's outcome event, or throws `Died`.
    func run(_ job: ExtractionJob, frames: (Int) -> Void) throws -> ExtractionEvent {
        // The worker waits for this job, so nothing writes to the log meanwhile; the child's descriptor
        // shares this one's offset, which goes back to 0 with it.
        _ = ftruncate(errorLog, 0)
        _ = lseek(errorLog, 0, SEEK_SET)
        var line = try JSONEncoder().encode(job)
        line.append(0x0A)
        guard send(line) else { throw died() }
        while let next = readLine() {
            guard let event = try? JSONDecoder().decode(ExtractionEvent.self, from: next) else { continue }
            if event.kind == .frames { frames(event.frames); continue }
            return event
        }
        throw died()
    }

    /// Tells the worker the engine threads it may use from now on, mid-file too (`ThreadShare`).
    func tell(share: Int) {
        _ = send(Data("\(ExtractionWorker.sharePrefix)\(share)\n".utf8))
    }

    private func send(_ data: Data) -> Bool {
        input.withLock { !inputClosed && child.write(data) }
    }

    private func closeInput() {
        input.withLock { inputClosed = true; child.closeInput() }
    }

    /// Closes the worker's input, so it finishes, and waits for it.
    func finish() {
        closeInput()
        child.wait()
    }

    /// Stops the worker now (the supervisor was interrupted).
    func terminate() { if child.isRunning { kill(pid, SIGTERM) } }

    private func readLine() -> Data? {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = Data(buffer[..<newline])
                buffer.removeSubrange(...newline)
                return line
            }
            let n = chunk.withUnsafeMutableBytes { read(child.output, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return nil }
            buffer.append(contentsOf: chunk[..<n])
        }
    }

    private func died() -> Died {
        closeInput()
        child.wait()
        // The last 64 KiB at most: the reason is in the last lines.
        let end = lseek(errorLog, 0, SEEK_END)
        let start = max(0, end - 65536)
        var bytes = [UInt8](repeating: 0, count: Int(end - start))
        let n = bytes.withUnsafeMutableBytes { pread(errorLog, $0.baseAddress, $0.count, start) }
        let text = String(decoding: bytes.prefix(max(0, n)), as: UTF8.self)
        let last = text.split(separator: "\n").suffix(2).joined(separator: " / ")
        let words = last.count > 300 ? String(last.prefix(300)) + "…" : last
        if let signal = child.terminationSignal {
            return Died(signal: signal, status: nil, lastWords: words)
        }
        return Died(signal: nil, status: child.exitStatus, lastWords: words)
    }
}

/// glibc's memfd_create (<sys/mman.h> with _GNU_SOURCE, which Swift's Glibc module does not export).
@_silgen_name("memfd_create") private func memfd_create(_ name: UnsafePointer<CChar>, _ flags: UInt32) -> Int32
/// MFD_CLOEXEC: the supervisor's descriptor is not inherited by other children.
private let memfdCloseOnExec: UInt32 = 1

/// SIGSEGV, SIGABRT, ...: the name a user can search for.
func signalName(_ signal: Int32) -> String {
    switch signal {
    case SIGSEGV: return "SIGSEGV"
    case SIGABRT: return "SIGABRT"
    case SIGBUS: return "SIGBUS"
    case SIGILL: return "SIGILL"
    case SIGFPE: return "SIGFPE"
    case SIGKILL: return "SIGKILL, perhaps out of memory"
    case SIGTERM: return "SIGTERM"
    case SIGINT: return "SIGINT"
    case SIGTRAP: return "SIGTRAP"
    default: return "signal \(signal)"
    }
}
