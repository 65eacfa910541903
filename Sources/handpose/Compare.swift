import Analysis
import ArgumentParser
import FileSystem
import Foundation
import Keypoints

/// `handpose compare`: agreement between two keypoint files or folders of them.
struct Compare: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Compare keypoint files: hand count and chirality agreement, landmark deviation in palm sizes.",
        discussion: "A and B are files or folders; in folders, files are paired by their path in the folder (*.hands.json; B may hold *.truth.hands.json); a reference file in B without its counterpart in A is named and makes the exit code 1 (files of A without a reference are noted), and frames only one file holds are counted ('frames only A', 'frames only B'), not compared. B is the reference: palm size is measured on its hands. 'jitter' is how far A's deviation from B moves from one frame to the next, following A's tracks while B's matched hand stays the same (against ground truth: the estimate's own frame-to-frame noise, which --smooth lowers). 'twice A' and 'twice B' count frames in which that side reports one hand twice (MediaPipe Tasks' duplicate rule), as MediaPipe's legacy solution sometimes does; the summary also gives the count agreement over the other frames."
    )

    @Argument(help: "Keypoint file or folder (ours).", completion: .file()) var a: String
    @Argument(help: "Keypoint file or folder (the reference).", completion: .file()) var b: String
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let (pairs, onlyA, onlyB, unlisted) = try pairFiles()
        var total = KeypointComparison()
        var rows: [(String, KeypointComparison)] = []
        // A folder that cannot be listed or a name that is not UTF-8, on either side, may hide files to pair.
        var errors: [String] = unlisted
        for (name, fa, fb) in pairs {
            do {
                let c = try KeypointComparison.compare(try KeypointFile.load(fa), try KeypointFile.load(fb), path: fa.path)
                rows.append((name, c))
                total.merge(c)
            } catch {
                errors.append("\(error)")
            }
        }
        if json {
            struct Out: Encodable {
                var files: [String: KeypointComparison.Summary]; var overall: KeypointComparison.Summary; var errors: [String]
                var only_in_a: [String]; var only_in_b: [String]
            }
            let out = Out(files: Dictionary(rows.map { ($0.0, KeypointComparison.Summary($0.1)) }) { _, last in last }, overall: .init(total), errors: errors,
                          only_in_a: onlyA, only_in_b: onlyB)
            print(try JSONText.pretty(out))
        } else {
            var table = [["file", "frames", "count agree", "hands", "chirality agree", "mean dev (palms)", "p95 dev", "jitter"]
                         + KeypointComparison.pckThresholds.map { "PCK@\($0)" } + ["only A", "only B", "twice A", "twice B", "frames only A", "frames only B"]]
            func line(_ n: String, _ c: KeypointComparison) -> [String] {
                [n, "\(c.frames)", String(format: "%.1f%%", 100 * c.countAgreement), "\(c.matchedHands)",
                 String(format: "%.1f%%", 100 * c.chiralityAgreement), String(format: "%.4f", c.meanDeviation),
                 String(format: "%.4f", c.p95Deviation), c.meanJitter.map { String(format: "%.4f", $0) } ?? "-"]
                    + (c.pck?.map { String(format: "%.1f%%", 100 * $0) } ?? KeypointComparison.pckThresholds.map { _ in "-" }) + ["\(c.handsOnlyInA)", "\(c.handsOnlyInB)",
                 "\(c.framesWithHandTwiceInA)", "\(c.framesWithHandTwiceInB)", "\(c.framesOnlyInA)", "\(c.framesOnlyInB)"]
            }
            for (n, c) in rows { table.append(line(n, c)) }
            table.append(line("overall", total))
            print(Table.render(table))
            if total.jointsCompared > 0 {
                // Per joint over every matched hand: where the two sides disagree most.
                var joints = [["joint", "mean dev (palms)"]]
                for (name, d) in zip(Joint.names, total.jointDeviations) { joints.append([name, String(format: "%.4f", d)]) }
                print("\nper joint, overall:\n" + Table.render(joints))
            }
            if total.framesWithHandTwiceInA + total.framesWithHandTwiceInB > 0 {
                print(String(format: "count agreement over the %d frames in which neither side reports a hand twice: %.1f%%",
                             total.framesWithoutTwice, 100 * total.countAgreementWithoutTwice))
            }
            if total.framesOnlyInA + total.framesOnlyInB > 0 {
                print("not compared: \(total.framesOnlyInA) frames only A holds, \(total.framesOnlyInB) only B holds (figures are over the \(total.frames) both hold)")
            }
            for e in errors { print("error: \(e)") }
            func listed(_ names: [String]) -> String { names.prefix(10).joined(separator: ", ") + (names.count > 10 ? ", ..." : "") }
            if !onlyA.isEmpty { print("note: \(onlyA.count) keypoint files of \(a) have no reference in \(b), not compared: \(listed(onlyA))") }
            if !onlyB.isEmpty { print("error: \(onlyB.count) reference files of \(b) have no counterpart in \(a), not compared: \(listed(onlyB))") }
        }
        // A reference without its counterpart is work not done (a clip not extracted); a file of A without a
        // reference is common (truth for a few clips) and only noted.
        if !errors.isEmpty || !onlyB.isEmpty { throw ExitCode(ToolExit.someInputsFailed) }
    }

    /// Files paired by path (B's may be `*.truth.hands.json`), the stems found on one side only, and what
    /// could not be listed on either side (`FolderListing`).
    func pairFiles() throws -> (pairs: [(String, URL, URL)], onlyA: [String], onlyB: [String], unlisted: [String]) {
        let fm = FileManager.default
        var isDirA: ObjCBool = false, isDirB: ObjCBool = false
        guard fm.fileExists(atPath: a, isDirectory: &isDirA) else { throw RuntimeFailure("\(a): no such file or folder") }
        guard fm.fileExists(atPath: b, isDirectory: &isDirB) else { throw RuntimeFailure("\(b): no such file or folder") }
        if !isDirA.boolValue && !isDirB.boolValue {
            return ([((a as NSString).lastPathComponent, URL(fileURLWithPath: a), URL(fileURLWithPath: b))], [], [], [])
        }
        guard isDirA.boolValue && isDirB.boolValue else { throw ValidationError("compare two files or two folders") }
        let keypointFile = { (name: String) in name.hasSuffix(".hands.json") }
        let inA = FolderListing.files(under: URL(fileURLWithPath: a), wanted: keypointFile)
        let inB = FolderListing.files(under: URL(fileURLWithPath: b), wanted: keypointFile)
        let names = inA.files.filter { $0.hasSuffix(".hands.json") && !$0.hasSuffix(".truth.hands.json") }
        /// A keypoint file's name without `.truth.hands.json` or `.hands.json`: the input it is of.
        func stem(_ name: String) -> String {
            String(name.dropLast((name.hasSuffix(".truth.hands.json") ? ".truth.hands.json" : ".hands.json").count))
        }
        var pairs: [(String, URL, URL)] = [], onlyA: [String] = []
        for n in names {
            let stem = stem(n)
            let candidates = [n, stem + ".truth.hands.json"].map { URL(fileURLWithPath: b).appendingPathComponent($0) }
            if let match = candidates.first(where: { fm.fileExists(atPath: $0.path) }) {
                pairs.append((stem, URL(fileURLWithPath: a).appendingPathComponent(n), match))
            } else {
                onlyA.append(n)
            }
        }
        guard !pairs.isEmpty else {
            let unlisted = (inA.problems + inB.problems).map { "\n  " + $0 }.joined()
            throw RuntimeFailure("no keypoint files of \(a) have a counterpart in \(b)" + unlisted, code: ToolExit.dataErrors)
        }
        let paired = Set(pairs.map { PathKey($0.0) })
        // B's own file names (a .truth.hands.json or a .hands.json), of the inputs no pair is of.
        let onlyB = inB.files.filter { $0.hasSuffix(".hands.json") && !paired.contains(PathKey(stem($0))) }
        return (pairs, onlyA, onlyB, inA.problems + inB.problems)
    }
}
