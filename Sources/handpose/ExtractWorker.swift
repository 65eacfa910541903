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
    @Option var decodeThreads: Int = 0
    @Option var sharedConstants: String?

    func run() throws {
        try ExtractionWorker.serve(models: URL(fileURLWithPath: models), complexity: complexity, threads: threads,
                                   decodeThreads: decodeThreads,
                                   sharing: sharedConstants.map { SharedConstants(directory: URL(fileURLWithPath: $0)) },
                                   readLine: { Swift.readLine(strippingNewline: true) },
                                   send: { FileHandle.standardOutput.write($0) })
    }
}

