import ArgumentParser
import Datasets
import FileSystem
import Foundation
import Keypoints

@main
struct Handpose: ParsableCommand {
    static let version = KeypointFile.Tool.handpose.version
    static let configuration = CommandConfiguration(
        commandName: "handpose",
        abstract: "Turn folders of video clips and images into hand-pose training data.",
        discussion: ToolExit.summary,
        version: version,
        subcommands: [Extract.self, Status.self, Validate.self, AnnotationsCommand.self, ReviewCommand.self, Export.self, Synth.self, Render.self, Compare.self, ReportCommand.self, Probe.self, Bench.self, ExtractWorker.self]
    )

    /// Parses and runs a command. Usage errors print usage and exit 64 (ArgumentParser's way); a
    /// failure of the run prints one sentence and exits with its code (`ToolExit`); any other error is
    /// a failure to run (3), never 1, which means "finished, some inputs failed".
    static func main() {
        let arguments = ProcessArguments.all
        guard !arguments.isEmpty else {
            // Without its arguments the tool cannot know what it was asked: never help and exit 0.
            Console.error("handpose cannot read its command line (no /proc/self/cmdline and no argument vector); nothing done")
            Foundation.exit(ToolExit.couldNotRun)
        }
        do {
            var command = try parseAsRoot(Array(arguments.dropFirst()))
            try command.run()
        } catch let failure as RuntimeFailure {
            Console.error("\(failure.message)")
            Foundation.exit(failure.code)
        } catch {
            if error is ExitCode || error is CleanExit || exitCode(for: error) != ExitCode.failure {
                exit(withError: error)
            }
            Console.error("\(error)")
            Foundation.exit(ToolExit.couldNotRun)
        }
    }
}
