import ArgumentParser
import Extraction
import Foundation
import HandLandmarks
import Inference

/// `handpose extract-worker`: the process `extract` and `export` run their files in (see
/// `ExtractionWorker`). Not for people: it reads jobs from standard input, one JSON object a line.
struct ExtractWorker: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: ExtractionPipeline.workerCommand, shouldDisplay: false)

    @Option var models: String
    @Option var complexity: HandTrackerOptions.Complexity
    @Option var threads: Int = 1
    /// The engine threads to begin with, at most `threads` (the supervisor may raise it: `share N` lines).
    @Option var share: Int?
    @Option var decodeThreads: Int = 0
    @Option var sharedConstants: String?
    /// The models' identity computed once by the supervisor: NAME=SHA256, one per model.
    @Option var modelHash: [String] = []

    func validate() throws {
        guard threads >= 1, share.map({ $0 >= 1 }) ?? true else { throw ValidationError("--threads and --share must be at least 1") }
    }

    func run() throws {
        try ExtractionWorker.serve(models: URL(fileURLWithPath: models), complexity: complexity, threads: threads,
                                   share: share, decodeThreads: decodeThreads,
                                   sharing: sharedConstants.map { SharedConstants(directory: URL(fileURLWithPath: $0)) },
                                   hashes: modelHash.isEmpty ? nil : ExtractionPipeline.parseModelHashes(modelHash),
                                   readLine: { Swift.readLine(strippingNewline: true) },
                                   send: { FileHandle.standardOutput.write($0) })
    }
}

