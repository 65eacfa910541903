import ArgumentParser
import Extraction
import FileSystem
import Foundation
import KeypointFormats
import Keypoints
import KeypointStore
import VideoIO

/// `handpose status`: what an output folder holds for a list of inputs, for runs spread over machines.
struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Say which inputs have keypoints in OUT, which are missing, failed (and why) or were made otherwise; write OUT/index.jsonl.",
        discussion: """
        Exit code 0 only when every input is done (keypoints present, complete, newer than the input, made with \
        the settings and models the extraction flags ask for). With --shards N the counts are given per shard of \
        `extract --shard I/N`, so a cluster user knows which array tasks to resubmit. OUT/index.jsonl gets one \
        line per input (path, state, frames, hands, frames with a hand, settings, models) for training code to \
        read instead of walking the folder.
        """
    )

    @Argument(help: "The output folder of `handpose extract`.", completion: .directory)
    var output: String

    @Option(parsing: .upToNextOption, help: "The clips, images or folders given to extract.", completion: .file())
    var inputs: [String]

    @Flag(name: .shortAndLong, help: "Descend into sub-folders (as extract -r).")
    var recursive = false

    @Option(help: "The number of shards the run was split into (extract --shard I/N): counts per shard. Default: the count the sharded runs recorded in OUT.")
    var shards: Int?

    @Flag(help: "Print JSON instead of text.")
    var json = false

    @Option(help: "The files extract was asked to write beside each keypoint file (as extract --format): an input missing one is not done.")
    var format = "json"

    @OptionGroup(title: "Extraction (what the keypoints must have been made with)")
    var extraction: ExtractionFlags

    func validate() throws {
        guard !inputs.isEmpty else { throw ValidationError("give the inputs extract was given: --inputs INPUT...") }
        if let shards, !(1...Shard.maxCount).contains(shards) { throw ValidationError("--shards must be from 1 to \(Shard.maxCount)") }
        do { _ = try OutputFormat.parse(format) } catch { throw ValidationError("\(error)") }
    }

    func run() throws {
        let found: InputFiles.Found
        do { found = try InputFiles.collect(inputs, recursive: recursive) } catch let e as InputFiles.Problem { throw RuntimeFailure("\(e)") }
        let root = URL(fileURLWithPath: output)
        if let problem = RegularFile.folderProblem(root.path) { throw RuntimeFailure("\(output): \(problem)") }
        // The models asked for, when they can be found here (a login node may not have them).
        var notes: [String] = []
        let models = try? extraction.modelIdentity()
        if models == nil { notes.append("models not found here: which models made the files is not checked") }
        let indexURL = root.appendingPathComponent("index.jsonl")
        let flags = extraction
        let formats = (try? OutputFormat.parse(format)) ?? [.json]
        let status = ExtractionStatus.check(found.items, root: root,
                                            asked: { KeypointRequest(settings: KeypointFile.Settings(flags.settings(forStill: $0)), models: models, formats: formats) },
                                            shards: try shards ?? Shard.recordedCount(in: root), previous: ExtractionStatus.loadIndex(indexURL))
        // The report is printed either way. An index that needs writing and cannot be (a full disk, a read-only
        // mount) is exit 3: the index.jsonl there, if any, no longer says what is on disk. One that already says it
        // is left alone (`writeIndex`), so a finished dataset on a read-only share is checked with exit 0.
        var indexWritten = true
        do { try status.writeIndex(to: indexURL) } catch {
            indexWritten = false
            notes.append("index.jsonl is out of date and cannot be rewritten: \(error)")
        }
        if json { try printJSON(status, skipped: found.skipped.map { "\($0.path): \($0.reason)" }, notes: notes, indexWritten: indexWritten) } else {
            printText(status, skipped: found.skipped.map { "\($0.path): \($0.reason)" }, notes: notes, indexWritten: indexWritten)
        }
        if !indexWritten { throw ExitCode(ToolExit.couldNotRun) }
        if !status.complete || found.skipped.contains(where: \.lost) { throw ExitCode(ToolExit.someInputsFailed) }
    }

    func printText(_ status: ExtractionStatus, skipped: [String], notes: [String], indexWritten: Bool) {
        let states = ExtractionStatus.State.allCases
        func line(_ name: String, _ shard: Int?) -> String {
            let total = status.entries.filter { shard == nil || $0.shard == shard }.count
            let parts = states.compactMap { s -> String? in
                let n = status.count(s, shard: shard)
                return n == 0 && s != .done ? nil : "\(n) \(s.rawValue)"
            }
            return "\(name): \(total) inputs: " + parts.joined(separator: ", ")
        }
        if let n = status.shards {
            for k in 0..<n {
                let text = line("shard \(k)/\(n)", k)
                let open = status.entries.contains { $0.shard == k && ExtractionStatus.fixedByRerun.contains($0.state) }
                print(text + (open ? "  <- resubmit" : ""))
            }
        }
        print(line("overall", nil))
        for e in status.entries where e.state != .done {
            let reason = e.differences.map { ExtractionFlags.describe($0) } ?? e.reason
            print("  \(e.state.rawValue): \(e.path)" + (e.shard.map { " (shard \($0))" } ?? "") + (reason.map { ": \($0)" } ?? ""))
        }
        if status.count(.incomplete) > 0 {
            print("note: incomplete files are kept by later runs; extract them with --overwrite to try again")
        }
        for s in skipped { print("  passed over: \(s)") }
        for n in notes { print("note: \(n)") }
        print(indexWritten ? "index: \(URL(fileURLWithPath: output).appendingPathComponent("index.jsonl").path)" : "index: not written")
        if status.complete { print("complete") }
    }

    func printJSON(_ status: ExtractionStatus, skipped: [String], notes: [String], indexWritten: Bool) throws {
        struct Counts: Encodable { var shard: Int?; var inputs: Int; var counts: [String: Int] }
        struct Out: Encodable {
            var complete: Bool; var overall: Counts; var shards: [Counts]?
            var open: [ExtractionStatus.Entry]; var skipped: [String]; var notes: [String]; var index: String; var indexWritten: Bool
        }
        func counts(_ shard: Int?) -> Counts {
            let states = ExtractionStatus.State.allCases
            return Counts(shard: shard, inputs: status.entries.filter { shard == nil || $0.shard == shard }.count,
                          counts: Dictionary(uniqueKeysWithValues: states.map { ($0.rawValue, status.count($0, shard: shard)) }))
        }
        let out = Out(complete: status.complete, overall: counts(nil), shards: status.shards.map { n in (0..<n).map { counts($0) } },
                      open: status.entries.filter { $0.state != .done }, skipped: skipped, notes: notes,
                      index: URL(fileURLWithPath: output).appendingPathComponent("index.jsonl").path, indexWritten: indexWritten)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        print(String(decoding: try encoder.encode(out), as: UTF8.self))
    }
}

extension Shard {
    /// The shard count sharded runs recorded in `root` (`Shard.recorded`); a damaged record is a failure of the
    /// run naming the file (exit 3), for `extract --shard auto` and `status` alike.
    static func recordedCount(in root: URL) throws -> Int? {
        do { return try recorded(in: root) } catch { throw RuntimeFailure("\(error)") }
    }
}
