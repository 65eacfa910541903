import ArgumentParser
import Extraction
import Foundation
import Inference
import KeypointFormats
import VideoIO

/// `handpose extract`: hand keypoints for every frame of every clip and image.
struct Extract: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Find hands and their 21 joints in every frame of clips and images; write one keypoint file per input.",
        discussion: """
        Writes OUT/<path relative to the input folder>.hands.json (schema handpose/keypoints@1), and beside it \
        each other --format asked for: .pose (pose-format), .csv (a row per hand per frame), .npz (NumPy arrays). \
        An output newer than its input and made with the same settings and models is skipped, so an interrupted run resumes; \
        --overwrite redoes it. Outputs are written under a temporary name and renamed. A file that cannot be read \
        is reported and the others still processed; the exit code is 1 when any failed.
        """
    )

    @Argument(help: "Clips, images, or folders of them.", completion: .file())
    var inputs: [String]

    @Option(name: .shortAndLong, help: "Output folder.", completion: .directory)
    var output: String

    @Flag(name: .shortAndLong, help: "Descend into sub-folders.")
    var recursive = false

    @OptionGroup var extraction: ExtractionFlags

    @Option(help: ArgumentHelp("Files to write per input, comma-separated: json, pose, csv, npz (e.g. json,pose,csv).",
                               discussion: "The keypoint file (json) is always written: it alone records the settings and models, and export, status, compare, render and resuming read it."))
    var format = "json"

    @Flag(help: "Redo inputs whose outputs are up to date.")
    var overwrite = false

    @Option(help: ArgumentHelp("Do only shard I of N (from 0), e.g. 2/8; auto reads a Slurm array task's SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT; auto/N takes the index from Slurm or Kubernetes' JOB_COMPLETION_INDEX.",
                               discussion: "Each input goes to the shard a hash of its relative path names, the same on every machine: N shard runs into one output folder write what one run would."))
    var shard: String?

    @Flag(name: .shortAndLong, help: "Print only errors and the summary.")
    var quiet = false

    @Flag(help: ArgumentHelp("Exit 0, not 1, when the run finished but some inputs failed.",
                             discussion: "The failures are still named in the summary, by status and in OUT/<path>.failed.json. For schedulers (Slurm, Kubernetes), which would otherwise retry the task and meet the same bad files again; interrupted (130) and could-not-run (3) keep their codes."))
    var failedInputsOk = false

    @Flag(help: ArgumentHelp("Print the path (relative to its input folder) of each input this run would extract, after --shard and without the inputs already done, each ended by a NUL byte as find -print0 does; then stop.",
                             discussion: "For copying a shard's inputs to node-local disk before the run (deploy/slurm/extract.sbatch with HANDPOSE_STAGE=1)."))
    var listInputs = false

    var formats: [OutputFormat] { (try? OutputFormat.parse(format)) ?? [.json] }

    func validate() throws {
        do { _ = try OutputFormat.parse(format) } catch { throw ValidationError("\(error)") }
        // A bad HANDPOSE_MAX_ISA or HANDPOSE_GEMM_TILING stops the run here, not in every worker, file by file.
        do { _ = try KernelSelection.best(); _ = try KernelSelection.gemmTiling() } catch { throw ValidationError("\(error)") }
    }

    func run() throws {
        let found: InputFiles.Found
        do {
            found = try InputFiles.collect(inputs, recursive: recursive)
            try OutputFolder.prepare(output)
            // Where the output's file system folds names (a share from macOS: `café` in NFC and NFD, or `A` and `a`,
            // are one file), inputs that only differ so would be written over each other: refused as any collision.
            try InputFiles.refuseFoldedCollisions(found.items, writtenIn: URL(fileURLWithPath: output))
        } catch let error as InputFiles.Problem {
            throw RuntimeFailure("\(error)")
        } catch let error as ExtractionError {
            throw RuntimeFailure("\(error)")
        }
        var items = found.items
        if let shard {
            // Every input is found and checked for collisions first, then this shard's share is taken.
            let part: Shard
            let root = URL(fileURLWithPath: output)
            // The count an earlier sharded run recorded, which only a bare `auto` reads; a damaged record names its file.
            let recorded = shard == "auto" ? try Shard.recordedCount(in: root) : nil
            do { part = try Shard.parse(shard, recorded: recorded) } catch { throw ValidationError("\(error)") }
            part.record(in: root)
            items = part.select(found.items)
            if !quiet {
                Console.line("shard \(part): \(items.count) of \(found.items.count) inputs")
            }
        }
        var pipeline = try extraction.pipeline(overwrite: overwrite)
        pipeline.formats = formats
        if listInputs {
            let paths = pipeline.pending(items, in: URL(fileURLWithPath: output)).map { $0.relative + "\0" }
            FileHandle.standardOutput.write(Data(paths.joined().utf8))
            return
        }
        let report = ExtractProgress(total: items.count, quiet: quiet)
        for s in found.skipped { report.note(s.path, s.reason, lost: s.lost) }
        if shard != nil && items.isEmpty && !found.items.isEmpty {
            report.finish(seconds: 0, output: output)
            if report.failures > 0 && !failedInputsOk { throw ExitCode(ToolExit.someInputsFailed) }
            return
        }
        guard !items.isEmpty else {
            report.finish(seconds: 0, output: output)
            var hint = "no clips or images found in \(inputs.joined(separator: ", "))"
            if found.subfoldersNotSearched > 0 { hint += "; \(found.subfoldersNotSearched) sub-folders were not searched: add -r" }
            if found.otherFiles > 0 {
                let known = MediaKind.knownExtensions.joined(separator: " ")
                hint += "; \(found.otherFiles) files are not clips or images (known extensions: \(known))"
            }
            Console.error("\(hint)")
            throw ExitCode(ToolExit.couldNotRun)
        }
        if found.subfoldersNotSearched > 0 && !quiet {
            Console.note("\(found.subfoldersNotSearched) sub-folders not searched; add -r to include them")
        }
        let start = Date()
        let finished: Bool
        do { finished = try pipeline.run(items, into: URL(fileURLWithPath: output)) { report.record($0) } } catch {
            report.finish(seconds: Date().timeIntervalSince(start), output: output, interrupted: true)
            throw RuntimeFailure("\(error)")
        }
        report.finish(seconds: Date().timeIntervalSince(start), output: output, interrupted: !finished)
        if !finished { throw ExitCode(ToolExit.interrupted) }
        // The output's fault, whatever --failed-inputs-ok says: the inputs are not to blame and a rerun resumes.
        if report.unwritableCount > 0 { throw ExitCode(ToolExit.couldNotRun) }
        if report.failures > 0 && !failedInputsOk { throw ExitCode(ToolExit.someInputsFailed) }
    }
}
