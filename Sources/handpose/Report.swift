import Analysis
import ArgumentParser
import FileSystem
import Foundation
import Keypoints
import Rendering
import VideoIO

/// `handpose report`: is the dataset any good, before training on it?
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Report on an exported dataset (and its keypoint files): balance, detection, warnings and a baseline classifier.",
        discussion: """
        DATASET is a folder `handpose export` wrote (with dataset.json). Per class: clips, segments, seconds, examples \
        per split part and the share of frames with a hand; per clip (from the keypoint files under --keypoints): the \
        detection rate and the longest gap; warnings for a class under a tenth of the largest, a clip with hands in \
        under half its frames, a split part missing a class; and a baseline (logistic regression on wrist-normalised \
        x, y) trained on the training part and scored on the held-out one, with accuracy, recall per class and the \
        confusion matrix. Without DATASET, reports on the keypoint files under --keypoints alone. \
        A keypoint file of a damaged clip (incomplete) is among the warnings, with where its keypoints stop. \
        The exit code is 0 even with warnings; 3 when the dataset (or the --keypoints folder) cannot be read or \
        holds what no export writes (a file cut or edited, labels that are not the manifest's), naming the file; \
        2 when none of the keypoint files can be read.
        """
    )

    @Argument(help: "An export folder (with dataset.json).", completion: .directory)
    var dataset: String?

    @Option(help: "Folder of keypoint files (from extract) for the per-clip figures; a dataset's clips are looked up in it by their path.", completion: .directory)
    var keypoints: String?

    @Option(help: "Also draw the report as a PNG here (class balance, detection rate, confusion matrix). Default with a dataset: DATASET/report.png.", completion: .file(extensions: ["png"]))
    var png: String?

    @Flag(help: "Print JSON.")
    var json = false

    func validate() throws {
        guard dataset != nil || keypoints != nil else { throw ValidationError("give an export folder, --keypoints FOLDER, or both") }
        if let png, !png.lowercased().hasSuffix(".png") { throw ValidationError("--png must name a .png file") }
    }

    func run() throws {
        let root = keypoints.map { URL(fileURLWithPath: $0) }
        if let root {
            if let problem = RegularFile.folderProblem(root.path) { throw RuntimeFailure("--keypoints \(root.path): \(problem)") }
        }
        var report: DatasetReport
        var unreadable: [String] = []
        var incomplete: [String] = []
        func noted(_ file: KeypointFile) -> KeypointFile {
            if let note = file.incompleteNote { incomplete.append(note) }
            return file
        }
        if let dataset {
            let folder = URL(fileURLWithPath: dataset)
            do {
                report = try DatasetReport.dataset(at: folder) { source in
                    guard let root else { return nil }
                    let url = root.appendingPathComponent(source + ".hands.json")
                    guard FileManager.default.fileExists(atPath: url.path) else { return nil }
                    do { return noted(try KeypointFile.load(url)) } catch { unreadable.append("\(error)"); return nil }
                }
            } catch {
                Console.error("\(error)")
                throw ExitCode(ToolExit.couldNotRun)
            }
        } else {
            var files: [(String, KeypointFile)] = []
            // A sub-folder that cannot be listed or a name that is not UTF-8 may hide keypoint files: each is
            // named, and the report then exits as one over unreadable files does.
            let walk = FolderListing.files(under: root!) { $0.hasSuffix(".hands.json") }
            unreadable += walk.problems
            for rel in walk.files where rel.hasSuffix(".hands.json") && !rel.hasSuffix(".truth.hands.json") {
                let url = root!.appendingPathComponent(rel)
                do { files.append((String(rel.dropLast(".hands.json".count)), noted(try KeypointFile.load(url)))) } catch { unreadable.append("\(error)") }
            }
            guard !files.isEmpty || !unreadable.isEmpty else {
                Console.error("no keypoint files (*.hands.json) under \(root!.path)")
                throw ExitCode(ToolExit.couldNotRun)
            }
            report = DatasetReport.keypoints(files)
        }
        report.warnings += unreadable.map { "unreadable keypoint file: \($0)" }
        report.warnings += incomplete.map { "\($0): its figures cover only the frames before" }
        // A report of nothing read is no report: every keypoint file named or found was unreadable.
        if dataset == nil && report.clips.isEmpty && !unreadable.isEmpty {
            for u in unreadable { Console.error("\(u)") }
            Console.error("none of the \(unreadable.count) keypoint files under \(root!.path) could be read: no report")
            throw ExitCode(ToolExit.dataErrors)
        }

        let pngPath = png ?? dataset.map { URL(fileURLWithPath: $0).appendingPathComponent("report.png").path }
        if let pngPath {
            let chart = ReportChart.draw(.init(
                classes: report.classes.map { ($0.name, $0.examples.values.reduce(0, +)) },
                clips: report.clips.map { ($0.source, $0.detectionRate) },
                confusion: report.baseline?.score.confusion,
                title: dataset.map { "HANDPOSE REPORT: \(URL(fileURLWithPath: $0).lastPathComponent)" } ?? "HANDPOSE REPORT: KEYPOINTS"))
            let url = URL(fileURLWithPath: pngPath)
            // ImageWriter writes under a temporary name and renames (AtomicFile).
            do {
                try ImageWriter.writePNG(chart.frame(), to: url)
            } catch {
                Console.error("\(pngPath): cannot be written (\(describe(error)))")
                throw ExitCode(ToolExit.couldNotRun)
            }
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print(Self.text(report, png: pngPath))
        }
        // The report covers the files it read; those it could not (named above among the warnings) make
        // the exit say so, as `extract` does of inputs that failed.
        if !unreadable.isEmpty { throw ExitCode(ToolExit.someInputsFailed) }
    }

    static func text(_ r: DatasetReport, png: String?) -> String {
        var out: [String] = []
        func pct(_ v: Double?) -> String { v.map { String(format: "%.1f%%", 100 * $0) } ?? "-" }
        if let d = r.dataset { out.append("dataset \(d) (\(r.kind ?? "?"))") }
        if !r.classes.isEmpty {
            var table = [["class", "clips", "segments", "seconds"] + r.parts + ["augmented", "frames with a hand"]]
            for c in r.classes {
                table.append([c.name, "\(c.clips)", "\(c.segments)", c.seconds.map { String(format: "%.1f", $0) } ?? "-"]
                             + r.parts.map { "\(c.examples[$0] ?? 0)" } + ["\(c.augmented)", pct(c.handShare)])
            }
            out.append(Table.render(table))
        }
        if !r.clips.isEmpty {
            let rates = r.clips.map(\.detectionRate)
            let worst = r.clips.sorted { $0.detectionRate < $1.detectionRate }.prefix(10)
            out.append(String(format: "%d clips: detection rate mean %.1f%%, lowest %.1f%%", r.clips.count,
                              100 * rates.reduce(0, +) / Double(rates.count), 100 * (rates.min() ?? 0)))
            var table = [["clip (lowest detection first)", "frames", "with a hand", "rate", "longest gap"]]
            for c in worst {
                table.append([c.source, "\(c.frames)", "\(c.framesWithHand)", pct(c.detectionRate),
                              String(format: "%d frames (%.2fs)", c.longestGap, c.longestGapSeconds)])
            }
            out.append(Table.render(table))
        }
        if !r.clipsWithoutKeypoints.isEmpty {
            out.append("\(r.clipsWithoutKeypoints.count) clips have no keypoint file to report on (pass --keypoints FOLDER): "
                       + r.clipsWithoutKeypoints.prefix(5).joined(separator: ", ") + (r.clipsWithoutKeypoints.count > 5 ? ", ..." : ""))
        }
        if let b = r.baseline {
            let s = b.score
            out.append(String(format: "baseline: %@, trained on %@ (%d examples), scored on %@ (%d): accuracy %.1f%% (chance %.1f%%)",
                              "logistic regression on wrist-normalised hand shape and motion", b.trainedOn, b.trainingExamples, b.scoredOn, s.examples,
                              100 * s.accuracy, 100 * s.chance))
            let names = r.classes.map(\.name)
            if s.confusion.isEmpty {
                // Too many classes for a matrix (the warnings say so): recall by class alone.
                out.append(Table.render([["class", "recall"]] + zip(names, s.recall).map { [$0, pct($1)] }))
            } else {
                var table = [["true \\ predicted"] + names + ["recall"]]
                for (i, row) in s.confusion.enumerated() { table.append([names[i]] + row.map(String.init) + [pct(s.recall[i])]) }
                out.append(Table.render(table))
            }
        } else if let why = r.baselineSkipped {
            out.append("baseline: none (\(why))")
        }
        out.append(r.warnings.isEmpty ? "no warnings" : "warnings:\n" + r.warnings.map { "  - " + $0 }.joined(separator: "\n"))
        if let png { out.append("picture: \(png)") }
        return out.joined(separator: "\n\n")
    }
}
