import ArgumentParser
import Datasets
import Foundation
import HandLandmarks

/// One file of work for an extraction worker, and what became of it: JSON lines over the worker's
/// standard input and output.
struct ExtractJob: Codable {
    var input: String
    var output: String
    var relative: String
    var options: HandTrackerOptions
}

/// A worker's messages: `frames` while it works, then exactly one of the others per job.
struct ExtractEvent: Codable {
    enum Kind: String, Codable { case frames, done, incomplete, failed }
    var kind: Kind
    var frames = 0
    var hands = 0
    var reason: String?
}

/// `handpose extract-worker`: the process `extract` runs its files in, so that a file which crashes the
/// decoder or the engine costs that file only (the supervisor starts a new worker and goes on).
/// Not for people: it reads jobs from standard input, one JSON object a line.
struct ExtractWorker: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "extract-worker", shouldDisplay: false)

    @Option var models: String
    @Option var complexity: HandTrackerOptions.Complexity
    @Option var threads: Int = 1

    /// Test hook: a worker given an input whose file name equals this value dies of SIGSEGV, so the
    /// supervisor's crash handling can be tested on a real dying process.
    static let crashHookVariable = "HANDPOSE_TEST_CRASH_ON"

    func run() throws {
        let crashOn = ProcessInfo.processInfo.environment[Self.crashHookVariable]
        let loaded = try HandModels(directory: URL(fileURLWithPath: models), complexity: complexity)
        let tool = KeypointFile.Tool(name: "handpose", version: Handpose.version)
        var trackers: [HandTrackerOptions: HandTracker] = [:]
        let decoder = JSONDecoder()
        while let line = readLine(strippingNewline: true) {
            let job = try decoder.decode(ExtractJob.self, from: Data(line.utf8))
            if let crashOn, URL(fileURLWithPath: job.input).lastPathComponent == crashOn { raise(SIGSEGV) }
            var sent = Date()
            do {
                if trackers[job.options] == nil {
                    trackers[job.options] = try HandTracker(models: loaded, options: job.options, threads: threads)
                }
                var reported = 0
                let file = try KeypointExtraction.extract(URL(fileURLWithPath: job.input), sourcePath: job.relative,
                                                          tracker: trackers[job.options]!, tool: tool) { n in
                    if Date().timeIntervalSince(sent) > 0.2 {
                        send(ExtractEvent(kind: .frames, frames: n - reported))
                        reported = n
                        sent = Date()
                    }
                }
                try file.write(to: URL(fileURLWithPath: job.output))
                send(ExtractEvent(kind: .frames, frames: file.frames.count - reported))
                let hands = file.frames.reduce(0) { $0 + $1.hands.count }
                send(ExtractEvent(kind: file.incomplete == nil ? .done : .incomplete, frames: file.frames.count,
                                  hands: hands, reason: file.incomplete?.error))
            } catch {
                send(ExtractEvent(kind: .failed, reason: "\(error)"))
            }
        }
    }

    private func send(_ event: ExtractEvent) {
        var data = try! JSONEncoder().encode(event)
        data.append(0x0A)
        FileHandle.standardOutput.write(data)
    }
}

extension HandTrackerOptions.Complexity: ExpressibleByArgument {}
