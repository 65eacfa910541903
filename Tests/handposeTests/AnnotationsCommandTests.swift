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

    /// The segments of a Create ML CSV as (clip, label, start, end), times in milliseconds, sorted (the
    /// order of clips may change; a segment lost or doubled may not).
    func segments(_ csv: URL) throws -> [[String]] {
        let lines = try String(contentsOf: csv, encoding: .utf8).split(separator: "\n").dropFirst()
        return lines.map { line in
            let f = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            return [f[0], f[1]] + f[2...3].map { Double($0).map { String(Int(($0 * 1000).rounded())) } ?? "" }
        }.sorted { $0.joined(separator: "\u{1}") < $1.joined(separator: "\u{1}") }
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
        let lsText = try handpose(["annotations", "convert", csv.path, "-o", ls.path, "--to", "label-studio", "--output-frame-rate", "15"])
        XCTAssertTrue(lsText.contains("tasks.label-config.xml"), lsText)
        _ = try handpose(["annotations", "convert", ls.path, "--root", root, "--label-config", dir.appendingPathComponent("tasks.label-config.xml").path,
                          "-o", dir.appendingPathComponent("from-ls.csv").path])
        XCTAssertEqual(try segments(dir.appendingPathComponent("from-ls.csv")), want)
        // Create ML JSON.
        _ = try handpose(["annotations", "convert", csv.path, "-o", dir.appendingPathComponent("a.json").path])
        _ = try handpose(["annotations", "convert", dir.appendingPathComponent("a.json").path, "--root", root, "-o", dir.appendingPathComponent("from-json.csv").path])
        XCTAssertEqual(try segments(dir.appendingPathComponent("from-json.csv")), want)
        // A replaced ELAN folder keeps no file of the earlier run.
        try Data().write(to: dir.appendingPathComponent("eaf/stale.eaf"))
        _ = try handpose(["annotations", "convert", csv.path, "-o", dir.appendingPathComponent("eaf").path, "--overwrite"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.appendingPathComponent("eaf/stale.eaf").path))
        // Label Studio without a frame rate is refused as a usage error; an existing output is kept.
        let (code, text) = try ToolRunner.run(["annotations", "convert", csv.path, "-o", ls.path, "--to", "label-studio"])
        XCTAssertEqual(code, 64, text)
        let (exists, existsText) = try ToolRunner.run(["annotations", "convert", csv.path, "-o", ls.path, "--to", "label-studio", "--output-frame-rate", "15"])
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

/// `annotations suggest` on Samples' keypoints: drafts ELAN and Label Studio read back.
final class SuggestCommandTests: XCTestCase {
    func testDraftsLoadInELANsAndLabelStudiosFormat() throws {
        let models = try ToolRunner.models()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("suggest-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let samples = AnnotationsCommandTests.samples.path, kp = dir.appendingPathComponent("kp").path
        let (x, xText) = try ToolRunner.run(["extract", samples, "-r", "-o", kp, "--models", models, "--quiet"])
        XCTAssertEqual(x, 0, xText)
        // One clip into one .eaf: the wave moves throughout, so a draft covers most of it.
        let eaf = dir.appendingPathComponent("wave_0.eaf").path
        let (s, sText) = try ToolRunner.run(["annotations", "suggest", kp + "/actions/wave_0.mp4.hands.json", "--root", samples, "-o", eaf, "--label", "todo"])
        XCTAssertEqual(s, 0, sText)
        let (v, vText) = try ToolRunner.run(["annotations", "convert", eaf, "--root", samples, "-o", dir.appendingPathComponent("wave.csv").path])
        XCTAssertEqual(v, 0, vText)
        let rows = try String(contentsOf: dir.appendingPathComponent("wave.csv"), encoding: .utf8).split(separator: "\n").dropFirst()
        XCTAssertGreaterThanOrEqual(rows.count, 1)
        let first = rows.first!.split(separator: ",")
        XCTAssertEqual(first[0], "actions/wave_0.mp4"); XCTAssertEqual(first[1], "todo")
        XCTAssertGreaterThan(Double(first[3])! - Double(first[2])!, 1.0)
        // Every clip into Label Studio tasks at the clips' own 15 fps; Background clips get no draft.
        let ls = dir.appendingPathComponent("drafts.json").path
        let (l, lText) = try ToolRunner.run(["annotations", "suggest", kp, "--root", samples, "-o", ls, "--to", "label-studio"])
        XCTAssertEqual(l, 0, lText)
        let config = dir.appendingPathComponent("drafts.label-config.xml").path
        XCTAssertTrue(try String(contentsOfFile: config, encoding: .utf8).contains("frameRate=\"15.0\""))
        let (b, bText) = try ToolRunner.run(["annotations", "convert", ls, "--root", samples, "--label-config", config, "-o", dir.appendingPathComponent("all.csv").path])
        XCTAssertEqual(b, 0, bText)
        let all = try String(contentsOf: dir.appendingPathComponent("all.csv"), encoding: .utf8)
        XCTAssertTrue(all.contains("actions/swipe_left_0.mp4,gesture,"), all)
        XCTAssertFalse(all.contains("Background"), all)
        // Many clips into one .eaf is refused (an ELAN file describes one clip).
        let (many, manyText) = try ToolRunner.run(["annotations", "suggest", kp, "--root", samples, "-o", dir.appendingPathComponent("all.eaf").path])
        XCTAssertEqual(many, 64, manyText)
    }
}
