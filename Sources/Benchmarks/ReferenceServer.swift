import Foundation

/// The official interpreter (`scripts/tflite_reference.py serve`) in a process of its own for the whole of
/// `bench models`: each model and thread count is loaded once, and a turn of its runs costs a line each way.
/// Any failure ends the measurement: a table with one side missing, or with that side's figures from fewer
/// rounds than ours, is not the comparison asked for. The error names what the server last wrote on its
/// standard error (a Python traceback, say), kept in a file unlinked as soon as the server has started.
final class ReferenceServer {
    /// Seconds one answer may take (the first of a model includes loading it); a server silent longer is ended.
    static let answerSeconds: Int32 = 300
    private let process = Process()
    private let python: String
    private let requests: FileHandle
    private let answers: FileHandle
    /// The server's standard error, read back from the start when something fails.
    private let log: FileHandle
    private var buffered = Data()

    /// Starts the server. A server that ends early must not end this process: SIGPIPE is ignored, and the
    /// request that finds it gone fails instead.
    init(python: String, script: URL) throws(BenchmarkError) {
        signal(SIGPIPE, SIG_IGN)
        self.python = python
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("handpose-reference-\(getpid())-\(UUID().uuidString).log").path
        guard FileManager.default.createFile(atPath: path, contents: nil),
              let errors = FileHandle(forWritingAtPath: path), let readBack = FileHandle(forReadingAtPath: path) else {
            throw .referenceNotRunnable(python: python, reason: "cannot make a log file at \(path)")
        }
        defer { unlink(path) }
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script.path, "serve"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        do { try process.run() } catch { throw .referenceNotRunnable(python: python, reason: error.localizedDescription) }
        try? errors.close()
        log = readBack
        requests = input.fileHandleForWriting
        answers = output.fileHandleForReading
    }

    /// The milliseconds of `runs` timed runs of `model` on `threads` threads (after one untimed run).
    func times(model: String, threads: Int, runs: Int) throws(BenchmarkError) -> [Double] {
        struct Request: Encodable { var model: String; var threads: Int; var runs: Int }
        struct Answer: Decodable { var timesMs: [Double]?; var error: String? }
        do {
            var line = try JSONEncoder().encode(Request(model: model, threads: threads, runs: runs))
            line.append(0x0A)
            try requests.write(contentsOf: line)
        } catch {
            throw failure("it ended before it took a request")
        }
        let answer = try readLine(for: model)
        guard let decoded = try? BenchJSON.decoder.decode(Answer.self, from: answer) else {
            throw failure("its answer for \(model) is not a timing: \(String(decoding: answer.prefix(200), as: UTF8.self))")
        }
        if let error = decoded.error { throw failure("it could not time \(model): \(error)") }
        guard let times = decoded.timesMs, times.count == runs else {
            throw failure("its answer for \(model) holds \(decoded.timesMs?.count ?? 0) times for \(runs) runs")
        }
        return times
    }

    /// Ends the server (its input closed, then terminated if still running) and waits for it.
    func close() {
        try? requests.close()
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        try? log.close()
    }

    private func failure(_ what: String) -> BenchmarkError {
        let written = (try? { () throws -> Data in try log.seek(toOffset: 0); return try log.readToEnd() ?? Data() }()) ?? Data()
        let lines = String(decoding: written, as: UTF8.self).split(separator: "\n").filter { !$0.hasPrefix("INFO:") }.suffix(3)
        return .referenceNotRunnable(python: python, reason: "\(process.arguments?.joined(separator: " ") ?? "the reference"): " + what
                                     + (lines.isEmpty ? "" : "; it said: " + lines.joined(separator: " / ")))
    }

    /// The next line of the answers; a server that ends, or says nothing for `answerSeconds`, fails.
    private func readLine(for model: String) throws(BenchmarkError) -> Data {
        while true {
            if let end = buffered.firstIndex(of: 0x0A) {
                let line = Data(buffered[buffered.startIndex..<end])
                buffered = Data(buffered[(end + 1)...])
                return line
            }
            var ready = pollfd(fd: answers.fileDescriptor, events: Int16(POLLIN), revents: 0)
            let polled = poll(&ready, 1, Self.answerSeconds * 1000)
            if polled == 0 {
                process.terminate()
                throw failure("it did not answer within \(Self.answerSeconds) s for \(model)")
            }
            if polled < 0 && errno == EINTR { continue }
            let chunk = answers.availableData
            if chunk.isEmpty { throw failure("it ended without timing \(model)") }
            buffered.append(chunk)
        }
    }
}
