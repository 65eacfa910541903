import ArgumentParser
import Datasets
import Keypoints

@main
struct Handpose: ParsableCommand {
    static let version = KeypointFile.Tool.handpose.version
    static let configuration = CommandConfiguration(
        commandName: "handpose",
        abstract: "Turn folders of video clips and images into hand-pose training data.",
        version: version,
        subcommands: [Extract.self, Status.self, Validate.self, Export.self, Synth.self, Render.self, Compare.self, ReportCommand.self, Probe.self, Bench.self, ExtractWorker.self]
    )
}
