import ArgumentParser
import FileSystem
import Foundation
import Review

/// `handpose review`: a local web page to look at clips with their hands drawn over them and fix the
/// annotation segments.
struct ReviewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "review",
        abstract: "Look at clips with their keypoints in the browser, and fix annotation segments.",
        discussion: """
        Starts a web server and prints the address to open (with a random token, which every request must carry: \
        the server writes the annotation file). It listens on 127.0.0.1 unless --host says otherwise, and reads \
        nothing outside ROOT and KEYPOINTS. The list shows every clip under ROOT with its class, frames, detection \
        rate and longest gap, worst first; a clip's page plays it with the hands drawn in step with the video, a \
        timeline of hands and segments, and keys to mark, move, relabel and delete segments. Saving writes the \
        annotation file atomically in its own format (Create ML CSV or JSON; in an ELAN file, the --tier read is \
        rewritten in place and the rest kept; Label Studio exports are shown, not saved), keeps \
        the previous version as FILE.bak, runs validate and refuses to overwrite a file changed on disk since the \
        page loaded it. Clips a browser cannot play are converted once to H.264 MP4 in KEYPOINTS/.review-cache. \
        Stop it with Ctrl-C.
        """
    )

    @Argument(help: "The folder of clips and images (as given to extract).", completion: .directory)
    var root: String

    @Option(name: .long, help: "The keypoint folder extract wrote for ROOT.", completion: .directory)
    var keypoints: String

    @Option(help: "An annotation file naming clips under ROOT (Create ML CSV or JSON, ELAN, Label Studio).", completion: .file())
    var annotations: String?

    @OptionGroup(title: "ELAN and Label Studio") var formatFlags: AnnotationFlags

    @Option(help: "Address to listen on. Anything but 127.0.0.1 or ::1 lets other machines reach the page (with the token).")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on, 1 to 65535 (0: any free port, the one taken printed).")
    var port = 8765

    func validate() throws {
        // 0 is kept: it asks the system for a free port, and the address printed names the one taken.
        guard (0...65535).contains(port) else {
            throw ValidationError("--port \(port) is no port: give one from 1 to 65535, or 0 for any free one")
        }
    }

    func run() throws {
        for (name, path) in [("ROOT", root), ("--keypoints", keypoints)] {
            if let problem = RegularFile.folderProblem(path) { throw RuntimeFailure("\(name) \(path): \(problem)") }
        }
        if let annotations, let why = RegularFile.problem(annotations) {
            throw RuntimeFailure("--annotations \(annotations): \(why == "no such file" ? why : why + "; give the annotation file itself")")
        }
        var server: ReviewServer
        do {
            server = try ReviewServer(root: URL(fileURLWithPath: root), keypoints: URL(fileURLWithPath: keypoints),
                                      annotations: annotations.map { URL(fileURLWithPath: $0) }, options: formatFlags.options)
        } catch { throw RuntimeFailure("\(error)") }
        server.host = host
        server.port = port
        if !["127.0.0.1", "::1", "localhost"].contains(host) {
            Console.warning("listening on \(host): other machines can reach this page; the token is all that keeps them out")
        }
        // The server is asynchronous; the command waits for it to stop (Ctrl-C or SIGTERM).
        let finished = DispatchSemaphore(value: 0)
        let outcome = Outcome()
        let serving = server
        Task {
            do {
                try await serving.run { address in
                    print("handpose review: open \(address.absoluteString)")
                    print("(Ctrl-C stops the server)")
                    fflush(nil)   // every C stream: stdout is shared mutable state to Swift 6
                }
            } catch { outcome.error = error }
            finished.signal()
        }
        finished.wait()
        if let error = outcome.error { throw RuntimeFailure("review: \(error)") }
    }

    /// Unchecked: written by the server's task before it signals `finished`, read only after the wait.
    final class Outcome: @unchecked Sendable { var error: Error? }
}
