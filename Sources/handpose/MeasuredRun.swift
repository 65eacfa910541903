import FileSystem
import Foundation

/// A command run to completion and measured from outside, the same way whatever it is (handpose, or
/// MediaPipe in Python with its worker processes): wall clock, CPU time of the whole process tree, and
/// memory sampled from /proc while it runs.
struct MeasuredRun {
    /// Wall-clock seconds from start to exit.
    var seconds: Double
    /// User + system seconds of the process and every descendant it waited for.
    var cpuSeconds: Double
    /// The highest sum, over the sampled moments, of the proportional set size (PSS) of every process
    /// in the tree: a page shared by n processes counts 1/n in each, so forked workers' shared pages
    /// and shared libraries count once.
    var peakBytes: Int
    /// The highest resident-set peak (VmHWM) of any single process of the tree.
    var largestProcessBytes: Int
    var status: Int32
    /// What the command wrote to standard output.
    var output: Data
    /// The last lines it wrote to standard error.
    var errorTail: String

    /// This executable, for running handpose itself.
    static var executablePath: String { Executable.url?.path ?? CommandLine.arguments[0] }

    /// Runs `executable` with `arguments`, sampling memory every `interval` seconds.
    init(executable: String, arguments: [String], interval: Double = 0.1) throws {
        var before = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &before)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let stdout = Pipe()
        let errorLog = FileManager.default.temporaryDirectory.appendingPathComponent("handpose-bench-\(getpid())-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: errorLog.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errorLog) }
        process.standardOutput = stdout
        process.standardError = try FileHandle(forWritingTo: errorLog)
        let start = DispatchTime.now().uptimeNanoseconds
        try process.run()
        let root = process.processIdentifier
        let sampler = MemorySampler(root: root, interval: interval)
        sampler.start()
        output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        sampler.stop()
        var after = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &after)
        func secs(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        cpuSeconds = secs(after.ru_utime) - secs(before.ru_utime) + secs(after.ru_stime) - secs(before.ru_stime)
        peakBytes = sampler.peakTotal
        largestProcessBytes = sampler.peakProcess
        status = process.terminationStatus
        let text = String(decoding: (try? Data(contentsOf: errorLog)) ?? Data(), as: UTF8.self)
        errorTail = text.split(separator: "\n").suffix(3).joined(separator: " / ")
    }
}

/// Samples the memory of a process and its descendants from /proc on a thread of its own.
/// Unchecked: `running`, `total` and `largest` are read and written under `lock`.
final class MemorySampler: @unchecked Sendable {
    private let root: pid_t
    private let interval: Double
    private let lock = NSLock()
    private var running = true
    private var total = 0
    private var largest = 0
    private let done = DispatchSemaphore(value: 0)

    init(root: pid_t, interval: Double) {
        self.root = root
        self.interval = interval
    }

    var peakTotal: Int { lock.lock(); defer { lock.unlock() }; return total }
    var peakProcess: Int { lock.lock(); defer { lock.unlock() }; return largest }

    func start() {
        let thread = Thread { [self] in
            while true {
                lock.lock(); let go = running; lock.unlock()
                guard go else { break }
                sample()
                Thread.sleep(forTimeInterval: interval)
            }
            done.signal()
        }
        thread.start()
    }

    func stop() {
        lock.lock(); running = false; lock.unlock()
        done.wait()
    }

    private func sample() {
        var sum = 0, biggest = 0
        for pid in Self.tree(of: root) {
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { continue }
            biggest = max(biggest, Self.kilobytes("VmHWM:", in: status))
            if let rollup = try? String(contentsOfFile: "/proc/\(pid)/smaps_rollup", encoding: .utf8) {
                sum += Self.kilobytes("Pss:", in: rollup)
            } else {
                sum += Self.kilobytes("VmRSS:", in: status)
            }
        }
        lock.lock()
        total = max(total, sum * 1024)
        largest = max(largest, biggest * 1024)
        lock.unlock()
    }

    /// The value of a `Name:   123 kB` line.
    static func kilobytes(_ field: String, in text: String) -> Int {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(field) }) else { return 0 }
        return Int(line.dropFirst(field.count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "") ?? 0
    }

    /// `root` and every live descendant, from the kernel's list of each thread's children
    /// (/proc/PID/task/TID/children), so a sample reads only the tree's own files.
    static func tree(of root: pid_t) -> [pid_t] {
        var out = [root], i = 0
        while i < out.count {
            let pid = out[i]
            for task in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? [] {
                let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? ""
                out += text.split(separator: " ").compactMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            }
            i += 1
        }
        return out
    }
}

extension MeasuredRun {
    /// User and system CPU seconds this process has used so far.
    static func cpuSecondsOfThisProcess() -> Double {
        var u = rusage()
        getrusage(RUSAGE_SELF.rawValue, &u)
        return Double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + Double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6
    }
}
