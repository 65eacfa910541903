import FileSystem
import Foundation

/// A command run to completion and measured from outside, the same way whatever it is (handpose, or
/// MediaPipe in Python with its worker processes): wall clock, CPU time of the whole process tree, and
/// memory sampled from /proc while it runs.
public struct MeasuredRun: Sendable {
    /// Wall-clock seconds from start to exit.
    public var seconds: Double
    /// User + system seconds of the process and every descendant it waited for.
    public var cpuSeconds: Double
    /// The highest sum, over the sampled moments, of the proportional set size (PSS) of every process
    /// in the tree: a page shared by n processes counts 1/n in each, so forked workers' shared pages
    /// and shared libraries count once.
    public var peakBytes: Int
    /// The highest resident-set peak (VmHWM) of any single process of the tree.
    public var largestProcessBytes: Int
    public var status: Int32
    /// What the command wrote to standard output.
    public var output: Data
    /// The last lines it wrote to standard error.
    public var errorTail: String

    /// This executable, for running handpose itself.
    public static var executablePath: String { Executable.url?.path ?? CommandLine.arguments[0] }

    /// Runs `executable` with `arguments`, sampling memory every `interval` seconds.
    public init(executable: String, arguments: [String], interval: Double = 0.1) throws(BenchmarkError) {
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
        let start: UInt64
        do {
            process.standardError = try FileHandle(forWritingTo: errorLog)
            start = DispatchTime.now().uptimeNanoseconds
            try process.run()
        } catch {
            throw .cannotStart(executable: executable, reason: describe(error))
        }
        let sampler = MemorySampler(root: process.processIdentifier, interval: interval)
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

    /// User and system CPU seconds this process has used so far.
    public static func cpuSecondsOfThisProcess() -> Double {
        var u = rusage()
        getrusage(RUSAGE_SELF.rawValue, &u)
        return Double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + Double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6
    }
}
