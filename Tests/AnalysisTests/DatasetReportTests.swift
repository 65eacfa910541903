import Analysis
import Datasets
import Foundation
import Keypoints
import XCTest

/// `report` reads an export folder that may have been cut, edited or replaced since it was written: each
/// such folder is an error naming the file (and line), never a trap, a wait or a shorter dataset.
final class DatasetReportTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("dataset-report-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    /// Eight examples of two classes (hands at different places), written by the exporter as `format`.
    /// `swapped`: each example's class is the other one (the same hands, the labels traded). `classes`: the
    /// export's classes, the examples' two being the first two; `split`: its parts.
    private func export(_ name: String, format: TrainingSet.Format, frames: Int?, swapped: Bool = false, classes: [String] = ["a", "b"],
                        split: [SplitPart] = []) throws -> URL {
        var settings = ExportSettings()
        if let frames { settings.window = frames }
        settings.split = split
        var exporter = Exporter(settings: settings, tool: .init(name: "handpose", version: "test"), command: "test")
        exporter.format = format
        let examples = (0..<8).map { i -> Example in
            let x = Float(i % 2 == 0 ? 0.3 : 0.7) + Float(i) * 0.001
            var joints = (0..<21).map { SIMD3<Float>(x + Float($0) * 0.002, 0.5 - Float($0) * 0.003, 0) }
            joints[0] = SIMD3(x, 0.6, 0)
            let hand = HandSample(joints: joints, confidence: 1, chirality: .right)
            let clip = "c\(i).mp4"
            let label = swapped ? 1 - i % 2 : i % 2
            return Example(label: label, frames: Array(repeating: [hand], count: frames ?? 1),
                           manifest: ExampleRecord(source: clip, label: classes[label], hand: "any"), clip: clip,
                           frameSize: SIMD2(200, 100))
        }
        let out = dir.appendingPathComponent(name)
        _ = try exporter.write(examples, classes: classes, frames: frames, kind: frames == nil ? "poses" : "actions",
                               emptyHint: "", to: out, replace: false)
        return out
    }

    private func report(_ folder: URL) throws -> DatasetReport {
        try DatasetReport.dataset(at: folder) { _ in nil }
    }

    private func assertRefused(_ folder: URL, saying text: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try report(folder), file: file, line: line) { error in
            XCTAssertTrue("\(error)".contains(text), "\(error)", file: file, line: line)
        }
    }

    func testACutOrEditedKeypointCSVIsAnErrorNamingTheLine() throws {
        let folder = try export("kcsv", format: .keypointCSV, frames: nil)
        let csv = folder.appendingPathComponent("keypoint.csv")
        let original = try String(contentsOf: csv, encoding: .utf8)
        XCTAssertEqual(try report(folder).classes.map { $0.examples.values.reduce(0, +) }, [4, 4], "the export as written reads")
        var lines = original.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        XCTAssertEqual(lines.count, 9)
        // A whole row gone: fewer rows than the manifest's examples.
        try (lines.dropLast(2).joined(separator: "\n") + "\n").write(to: csv, atomically: true, encoding: .utf8)
        assertRefused(folder, saying: "7 rows for the manifest's 8 examples")
        // Cut inside the last number.
        try String(original.dropLast(3)).write(to: csv, atomically: true, encoding: .utf8)
        assertRefused(folder, saying: "cut short")
        // A value that is not a number, named by line and column.
        lines[2] = lines[2].replacingOccurrences(of: ",0.0,0.0,", with: ",0.0,oops,")
        try lines.joined(separator: "\n").write(to: csv, atomically: true, encoding: .utf8)
        assertRefused(folder, saying: "keypoint.csv:3:3")
        // A row short of values, and a row whose class is not its example's.
        lines = original.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines[4] = lines[4].split(separator: ",").dropLast().joined(separator: ",")
        try lines.joined(separator: "\n").write(to: csv, atomically: true, encoding: .utf8)
        assertRefused(folder, saying: "keypoint.csv:5")
        lines = original.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines[0] = "1" + lines[0].dropFirst()
        try lines.joined(separator: "\n").write(to: csv, atomically: true, encoding: .utf8)
        assertRefused(folder, saying: "where the manifest's example 1 is class 0")
    }

    func testAWindowTooLargeToCountIsRefusedNotMultiplied() throws {
        let folder = try export("npy", format: .npy, frames: 5)
        XCTAssertNoThrow(try report(folder))
        let json = folder.appendingPathComponent("dataset.json")
        let text = try String(contentsOf: json, encoding: .utf8)
        XCTAssertTrue(text.contains("\"window\" : 5"), text)
        for window in ["4611686018427387904", "0", "-3"] {
            try text.replacingOccurrences(of: "\"window\" : 5", with: "\"window\" : \(window)").write(to: json, atomically: true, encoding: .utf8)
            assertRefused(folder, saying: "a window of \(window) frames cannot be read")
        }
    }

    /// y is read and must be the manifest's classes: an export whose labels were edited or come from another
    /// export is an error naming the file and the first example that differs.
    func testLabelsThatAreNotTheManifestsAreRefused() throws {
        for (format, file) in [(TrainingSet.Format.npy, "y.npy"), (.npz, "data.npz"), (.csv, "keypoints.csv")] {
            let folder = try export("\(format)", format: format, frames: 4)
            let other = try export("\(format)-swapped", format: format, frames: 4, swapped: true)
            XCTAssertNoThrow(try report(folder))
            XCTAssertNoThrow(try report(other))
            let target = folder.appendingPathComponent(file)
            try FileManager.default.removeItem(at: target)
            try FileManager.default.copyItem(at: other.appendingPathComponent(file), to: target)
            let at = format == .csv ? "line 2" : "example 1"
            assertRefused(folder, saying: "\(at): class 1.0 where the manifest's example 1 is class 0")
        }
    }

    /// A value no export writes in X (NaN) is named, not averaged into a baseline at chance; a CSV saved with
    /// Windows line endings reads as the same export.
    func testANonFiniteValueIsNamedAndWindowsLineEndingsRead() throws {
        let folder = try export("csv-nan", format: .csv, frames: 4)
        let csv = folder.appendingPathComponent("keypoints.csv")
        let text = try String(contentsOf: csv, encoding: .utf8)
        let before = try report(folder)
        try text.replacingOccurrences(of: "\n", with: "\r\n").write(to: csv, atomically: true, encoding: .utf8)
        XCTAssertEqual(try report(folder).classes, before.classes, "CR LF line endings")
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var cells = lines[2].split(separator: ",").map(String.init)
        cells[3] = "nan"
        lines[2] = cells.joined(separator: ",")
        try lines.joined(separator: "\n").write(to: csv, atomically: true, encoding: .utf8)
        assertRefused(folder, saying: "X holds nan at value 3 of example 2")
    }

    /// keypoint.csv's rows are the baseline's features as they stand: a NaN or infinity in one is refused as
    /// in X, naming the file, line and column, not scored into a meaningless accuracy.
    func testANonFiniteValueInAKeypointCSVRowIsNamedByLineAndColumn() throws {
        let folder = try export("kcsv-nan", format: .keypointCSV, frames: nil)
        XCTAssertNoThrow(try report(folder))
        let csv = folder.appendingPathComponent("keypoint.csv")
        let original = try String(contentsOf: csv, encoding: .utf8)
        for value in ["nan", "inf", "-inf"] {
            var lines = original.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            var cells = lines[2].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            XCTAssertEqual(cells.count, 43)
            cells[4] = value
            lines[2] = cells.joined(separator: ",")
            try lines.joined(separator: "\n").write(to: csv, atomically: true, encoding: .utf8)
            assertRefused(folder, saying: "keypoint.csv:3:5: example 3 holds \(value), which no export writes")
        }
    }

    private let halves = [SplitPart(name: "train", fraction: 0.5), SplitPart(name: "val", fraction: 0.5)]

    /// The baseline's cost grows with classes times examples, and the classes come from dataset.json: past
    /// its budget the report has no baseline and says why, instead of training for hours.
    func testABaselinePastItsBudgetIsSkippedWithTheReason() throws {
        let two = try report(try export("two", format: .npy, frames: nil, split: halves))
        XCTAssertNotNil(two.baseline, two.baselineSkipped ?? "")
        XCTAssertNil(two.baselineSkipped)
        // The same eight examples among 60,000 classes: 300 steps of 4 examples x 60,000 classes x 130 weights
        // each, twice, is 2.1e10 multiply-adds.
        let vocabulary = ["a", "b"] + (2..<60_000).map { "sign\($0)" }
        let many = try report(try export("many", format: .npy, frames: nil, classes: vocabulary, split: halves))
        XCTAssertNil(many.baseline)
        let why = try XCTUnwrap(many.baselineSkipped)
        XCTAssertTrue(why.hasPrefix("too large for a quick baseline: 60000 classes, "), why)
        XCTAssertTrue(why.hasSuffix("over the 2e+10 it may take"), why)
        XCTAssertGreaterThan(BaselineClassifier.work(training: 4, scored: 4, features: 129, classes: 60_000), BaselineClassifier.workBudget)
        // An ordinary export keeps its baseline: 10 classes of 2,000 pose examples of both hands.
        XCTAssertLessThan(BaselineClassifier.work(training: 2000, scored: 500, features: 258, classes: 10), BaselineClassifier.workBudget)
    }

    /// The confusion matrix grows as the square of the classes: past its bound it is left out and the report
    /// says so, while accuracy and recall per class are still given, as the matrix would give them.
    func testNoConfusionMatrixPastItsBoundOfClasses() throws {
        let two = try XCTUnwrap(try report(try export("two", format: .keypointCSV, frames: nil, split: halves)).baseline?.score)
        XCTAssertEqual(two.confusion.count, 2)
        XCTAssertEqual(two.accuracy, Double(two.confusion[0][0] + two.confusion[1][1]) / Double(two.examples))
        for (c, row) in two.confusion.enumerated() {
            XCTAssertEqual(two.recall[c], Double(row[c]) / Double(row.reduce(0, +)))
        }
        let vocabulary = ["a", "b"] + (2..<300).map { "sign\($0)" }
        let many = try report(try export("many", format: .keypointCSV, frames: nil, classes: vocabulary, split: halves))
        let score = try XCTUnwrap(many.baseline?.score, many.baselineSkipped ?? "no baseline")
        XCTAssertGreaterThan(vocabulary.count, BaselineClassifier.confusionClassLimit)
        XCTAssertEqual(score.confusion, [])
        XCTAssertEqual(score.recall.count, 300)
        XCTAssertEqual(score.recall.compactMap { $0 }.count, 2, "the held-out part holds two of the classes")
        XCTAssertEqual(score.examples, 4)
        XCTAssertTrue(many.warnings.contains { $0.hasPrefix("the baseline's confusion matrix is left out: 300 classes") }, "\(many.warnings.suffix(3))")
    }

    func testAFIFOInPlaceOfTheArchiveIsRefusedNotWaitedOn() throws {
        let folder = try export("npz", format: .npz, frames: 5)
        XCTAssertNoThrow(try report(folder))
        let npz = folder.appendingPathComponent("data.npz")
        try FileManager.default.removeItem(at: npz)
        XCTAssertEqual(mkfifo(npz.path, 0o600), 0)
        assertRefused(folder, saying: "FIFO")
    }
}
