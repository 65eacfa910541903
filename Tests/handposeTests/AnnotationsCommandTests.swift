import Foundation
import XCTest

/// `annotations convert` between the four formats (round trips give the same segments), and ELAN and
/// Label Studio files through `validate` and `export actions` as a user runs them on Samples/.
final class AnnotationsCommandTests: XCTestCase {
    var dir: URL!
    static let samples = ToolRunner.root.appendingPathComponent("Samples")

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("annotations-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    /// The segments of a Create ML CSV, as a set of (clip, label, start, end) with times in milliseconds.
    func segments(_ csv: URL) throws -> Set<[String]> {
        let lines = try String(contentsOf: csv, encoding: .utf8).split(separator: "\n").dropFirst()
        return Set(lines.map { line in
            let f = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            return [f[0], f[1]] + f[2...3].map { Double($0).map { String(Int(($0 * 1000).rounded())) } ?? "" }
        })
    }

    func handpose(_ arguments: [String]) throws -> String {
        let (code, text) = try ToolRunner.run(arguments)
        XCTAssertEqual(code, 0, "handpose \(arguments.joined(separator: " ")): \(text)")
        return text
    }

    func testRoundTripsThroughEveryFormatGiveTheSameSegments() throws {
        let csv = Self.samples.appendingPathComponent("annotations.csv")
        let want = try segments(csv)
        XCTAssertEqual(want.count, 17)
        let root = Self.samples.path
        // ELAN: one .eaf per clip, read back as a corpus folder.
        _ = try handpose(["annotations", "convert", csv.path, "-o", dir.appendingPathComponent("eaf").path])
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir.appendingPathComponent("eaf/actions/wave_0.mp4.eaf").path))
        _ = try handpose(["annotations", "convert", dir.appendingPathComponent("eaf").path, "--root", root, "-o", dir.appendingPathComponent("from-eaf.csv").path])
        XCTAssertEqual(try segments(dir.appendingPathComponent("from-eaf.csv")), want)
        // Label Studio at the clips' 15 fps, read back with the labeling config written beside it.
        let ls = dir.appendingPathComponent("tasks.json")
        let lsText = try handpose(["annotations", "convert", csv.path, "-o", ls.path, "--to", "label-studio", "--frame-rate", "15"])
        XCTAssertTrue(lsText.contains("tasks.label-config.xml"), lsText)
        _ = try handpose(["annotations", "convert", ls.path, "--root", root, "--label-config", dir.appendingPathComponent("tasks.label-config.xml").path,
                          "-o", dir.appendingPathComponent("from-ls.csv").path])
        XCTAssertEqual(try segments(dir.appendingPathComponent("from-ls.csv")), want)
        // Create ML JSON.
        _ = try handpose(["annotations", "convert", csv.path, "-o", dir.appendingPathComponent("a.json").path])
        _ = try handpose(["annotations", "convert", dir.appendingPathComponent("a.json").path, "--root", root, "-o", dir.appendingPathComponent("from-json.csv").path])
        XCTAssertEqual(try segments(dir.appendingPathComponent("from-json.csv")), want)
        // Label Studio without a frame rate is refused as a usage error; an existing output is kept.
        let (code, text) = try ToolRunner.run(["annotations", "convert", csv.path, "-o", ls.path, "--to", "label-studio"])
        XCTAssertEqual(code, 64, text)
        let (exists, existsText) = try ToolRunner.run(["annotations", "convert", csv.path, "-o", ls.path, "--to", "label-studio", "--frame-rate", "15"])
        XCTAssertEqual(exists, 3, existsText)
    }

    /// Export from ELAN files gives the windows export from the CSV gives (the same examples; the order
    /// of clips may differ, so they are compared by their manifest records).
    func testExportFromELANGivesTheCSVsWindows() throws {
        let models = try ToolRunner.models()
        let csv = Self.samples.appendingPathComponent("annotations.csv")
        let keypoints = dir.appendingPathComponent("kp").path
        _ = try handpose(["extract", Self.samples.path, "-r", "-o", keypoints, "--models", models, "--quiet"])
        _ = try handpose(["annotations", "convert", csv.path, "-o", dir.appendingPathComponent("eaf").path])
        var examples: [[String: Data]] = []
        for source in [csv.path, dir.appendingPathComponent("eaf").path] {
            let out = dir.appendingPathComponent("export-\(examples.count)")
            _ = try handpose(["export", "actions", source, "--root", Self.samples.path, "--keypoints", keypoints, "-o", out.path,
                              "--fps", "15", "--window", "15", "--models", models])
            // Each example's X row by what it is: clip, segment, window, label.
            let x = try Data(contentsOf: out.appendingPathComponent("X.npy")), manifest = try String(contentsOf: out.appendingPathComponent("manifest.jsonl"), encoding: .utf8)
            let records = manifest.split(separator: "\n").map { try! JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
            let rowBytes = 15 * 3 * 21 * 4, header = x.count - records.count * rowBytes
            var byKey: [String: Data] = [:]
            for (k, r) in records.enumerated() {
                let key = "\(r["source"]!) \(r["segment"]!) \(r["window"]!) \(r["label"]!)"
                byKey[key] = x.subdata(in: header + k * rowBytes ..< header + (k + 1) * rowBytes)
            }
            XCTAssertEqual(byKey.count, records.count)
            examples.append(byKey)
        }
        XCTAssertGreaterThan(examples[0].count, 20)
        XCTAssertEqual(examples[0], examples[1], "the same windows, value for value")
    }

    /// validate on ELAN files: a segment past the clip's end named with its file, XML line, tier and
    /// annotation id; several tiers and no --tier: exit 2 and every tier listed.
    func testValidateNamesTierAnnotationAndLine() throws {
        let clip = dir.appendingPathComponent("wave_0.mp4")
        try FileManager.default.copyItem(at: Self.samples.appendingPathComponent("actions/wave_0.mp4"), to: clip)
        let eaf = dir.appendingPathComponent("wave.eaf")
        try """
        <?xml version="1.0" encoding="UTF-8"?>
        <ANNOTATION_DOCUMENT AUTHOR="" DATE="2026-01-01T00:00:00+00:00" FORMAT="3.0" VERSION="3.0">
            <HEADER MEDIA_FILE="" TIME_UNITS="milliseconds">
                <MEDIA_DESCRIPTOR MEDIA_URL="file:///home/annotator/wave_0.mp4" MIME_TYPE="video/mp4" RELATIVE_MEDIA_URL="./wave_0.mp4"/>
            </HEADER>
            <TIME_ORDER>
                <TIME_SLOT TIME_SLOT_ID="ts1" TIME_VALUE="0"/>
                <TIME_SLOT TIME_SLOT_ID="ts2" TIME_VALUE="1000"/>
                <TIME_SLOT TIME_SLOT_ID="ts3" TIME_VALUE="5000"/>
            </TIME_ORDER>
            <TIER LINGUISTIC_TYPE_REF="default-lt" TIER_ID="RH">
                <ANNOTATION><ALIGNABLE_ANNOTATION ANNOTATION_ID="a1" TIME_SLOT_REF1="ts1" TIME_SLOT_REF2="ts2"><ANNOTATION_VALUE>wave</ANNOTATION_VALUE></ALIGNABLE_ANNOTATION></ANNOTATION>
                <ANNOTATION><ALIGNABLE_ANNOTATION ANNOTATION_ID="a2" TIME_SLOT_REF1="ts2" TIME_SLOT_REF2="ts3"><ANNOTATION_VALUE>wave</ANNOTATION_VALUE></ALIGNABLE_ANNOTATION></ANNOTATION>
            </TIER>
            <TIER LINGUISTIC_TYPE_REF="default-lt" TIER_ID="LH">
                <ANNOTATION><ALIGNABLE_ANNOTATION ANNOTATION_ID="a3" TIME_SLOT_REF1="ts1" TIME_SLOT_REF2="ts2"><ANNOTATION_VALUE>rest</ANNOTATION_VALUE></ALIGNABLE_ANNOTATION></ANNOTATION>
            </TIER>
            <LINGUISTIC_TYPE LINGUISTIC_TYPE_ID="default-lt" TIME_ALIGNABLE="true"/>
        </ANNOTATION_DOCUMENT>
        """.write(to: eaf, atomically: true, encoding: .utf8)
        let (both, bothText) = try ToolRunner.run(["validate", eaf.path])
        XCTAssertEqual(both, 2, bothText)
        XCTAssertTrue(bothText.contains("2 tiers hold annotations") && bothText.contains("'RH' (2 annotations, type 'default-lt')") && bothText.contains("'LH' (1 annotations"), bothText)
        let (code, text) = try ToolRunner.run(["validate", eaf.path, "--tier", "RH"])
        XCTAssertEqual(code, 2, text)
        XCTAssertTrue(text.contains("\(eaf.path):13: error: tier 'RH', annotation a2: end 5.000s is beyond the clip's duration"), text)
        let (ok, okText) = try ToolRunner.run(["validate", eaf.path, "--tier", "LH", "--label-map", "rest=Background"])
        XCTAssertEqual(ok, 0, okText)
        XCTAssertTrue(okText.contains("Background"), okText)
    }
}
