import Foundation
import XCTest
import VideoIO

/// `handpose validate` end to end: capped reports with full totals, empty files, images and clips
/// that do not decode.
final class ValidateCommandTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL
    var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("validate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    /// Runs the built `handpose validate` with `arguments`; returns exit code and standard output + error.
    func validate(_ arguments: [String]) throws -> (Int32, String) { try ToolRunner.run(["validate"] + arguments) }

    func write(_ name: String, _ text: String) throws -> String {
        let url = dir.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    /// 200 rows naming missing clips and 100 with unreadable times.
    func manyErrors() throws -> String {
        var text = "video,label,start,end\n"
        for i in 0..<300 { text += i < 200 ? "gone\(i).mp4,wave,0,1\n" : "gone.mp4,wave,soon,1\n" }
        return try write("many.csv", text)
    }

    func testRepeatsAreCappedThenCountedAndTotalsCountAll() throws {
        let file = try manyErrors()
        let (code, text) = try validate([file, "--max-diagnostics", "3"])
        XCTAssertEqual(code, 2)
        XCTAssertEqual(text.components(separatedBy: "does not exist").count - 1, 3, text)
        XCTAssertEqual(text.components(separatedBy: "as a time").count - 1, 3, text)
        XCTAssertTrue(text.contains("... and 197 more 'no such file' errors"), text)
        XCTAssertTrue(text.contains("... and 97 more 'unreadable time' errors"), text)
        XCTAssertTrue(text.contains("300 errors, 1 warnings"), text)

        let (_, all) = try validate([file, "--max-diagnostics", "0"])
        XCTAssertEqual(all.components(separatedBy: "does not exist").count - 1, 200)
        XCTAssertFalse(all.contains("... and"), "nothing is left out with 0")
        XCTAssertTrue(all.contains("300 errors, 1 warnings"), all)
    }

    func testTheDefaultCapIsFiftyPerKind() throws {
        let (_, text) = try validate([try manyErrors()])
        XCTAssertEqual(text.components(separatedBy: "does not exist").count - 1, 50)
        XCTAssertTrue(text.contains("... and 150 more 'no such file' errors"), text)
    }

    func testJSONCarriesTheOmittedCounts() throws {
        let (code, text) = try validate([try manyErrors(), "--max-diagnostics", "2", "--json"])
        XCTAssertEqual(code, 2)
        let root = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], text)
        XCTAssertEqual((root["diagnostics"] as? [[String: Any]])?.filter { $0["severity"] as? String == "error" }.count, 4)
        let omitted = try XCTUnwrap(root["omitted"] as? [[String: Any]])
        XCTAssertEqual(omitted.map { $0["kind"] as? String }, ["unreadable time", "no such file"])
        XCTAssertEqual(omitted.map { $0["count"] as? Int }, [98, 198])
        let summary = try XCTUnwrap(root["summary"] as? [String: Any])
        XCTAssertEqual(summary["errors"] as? Int, 300)
        XCTAssertEqual(summary["warnings"] as? Int, 1)
    }

    func testHeaderOnlyFileIsAnError() throws {
        let (code, text) = try validate([try write("empty.csv", "video,label,start,end\n")])
        XCTAssertEqual(code, 2)
        XCTAssertTrue(text.contains("empty.csv:1: error: no segments: the file has a header but no rows"), text)
    }

    func testLongValueIsQuotedShort() throws {
        let long = String(repeating: "z", count: 60_000)
        let (code, text) = try validate([try write("long.csv", "video,label,start,end\nclip.mp4,wave,\(long),1\n")])
        XCTAssertEqual(code, 2)
        XCTAssertTrue(text.contains("cannot read '\(long.prefix(40))…' (60,000 characters) as a time"), String(text.prefix(2000)))
        XCTAssertLessThan(text.utf8.count, 2000, "the value is echoed back")
    }

    func testImageThatDoesNotDecodeFailsPoses() throws {
        let root = dir.appendingPathComponent("poses")
        for label in ["wave", "Background"] {
            try FileManager.default.createDirectory(at: root.appendingPathComponent(label), withIntermediateDirectories: true)
            var frame = VideoFrame(width: 16, height: 16)
            for i in frame.pixels.indices { frame.pixels[i] = UInt8(i % 199) }
            try ImageWriter.writePNG(frame, to: root.appendingPathComponent("\(label)/ok.png"))
        }
        let (clean, cleanText) = try validate([root.path, "--poses"])
        XCTAssertEqual(clean, 0, cleanText)
        let noise = root.appendingPathComponent("wave/photo.jpg")
        try Data((0..<4000).map { UInt8(truncatingIfNeeded: $0 &* 2654435761 >> 7) }).write(to: noise)
        let (code, text) = try validate([root.path, "--poses"])
        XCTAssertEqual(code, 2, text)
        XCTAssertTrue(text.contains("\(noise.path): error: image cannot be decoded: "), text)
    }

    func testTruncatedClipIsFoundAndDeepSaysWhere() throws {
        let whole = dir.appendingPathComponent("whole.avi")
        let writer = try VideoWriter(url: whole, width: 64, height: 64, frameRate: Rational(20, 1))
        var state: UInt32 = 7
        for _ in 0..<40 {
            var f = VideoFrame(width: 64, height: 64)
            for i in f.pixels.indices { state = state &* 1_664_525 &+ 1_013_904_223; f.pixels[i] = UInt8(truncatingIfNeeded: state >> 24) }
            try writer.append(f)
        }
        try writer.finish()
        let bytes = try Data(contentsOf: whole)
        // `head -c` at 30%: the header's frame count survives, most frames do not.
        try bytes.prefix(bytes.count * 3 / 10).write(to: dir.appendingPathComponent("cut.avi"))
        let csv = try write("a.csv", "video,label\nwhole.avi,wave\ncut.avi,Background\n")

        let (shallowCode, shallow) = try validate([csv])
        XCTAssertEqual(shallowCode, 2, shallow)
        XCTAssertTrue(shallow.contains("a.csv:3: error: video 'cut.avi' is truncated"), shallow)
        let (code, deep) = try validate([csv, "--deep"])
        XCTAssertEqual(code, 2, deep)
        XCTAssertTrue(deep.contains("a.csv:3: error: video 'cut.avi' is damaged: "), deep)
        XCTAssertFalse(deep.contains("a.csv:2:"), "the whole clip decodes: \(deep)")
    }

    func testTruncatedMP4IsFoundWithoutDecoding() throws {
        let whole = dir.appendingPathComponent("whole.mp4")
        let writer = try VideoWriter(url: whole, width: 64, height: 64, frameRate: Rational(20, 1))
        for i in 0..<40 { try writer.append(VideoFrame(index: i, time: 0, width: 64, height: 64, pixels: (0..<(64 * 64 * 3)).map { UInt8(truncatingIfNeeded: $0 &* (i + 7)) })) }
        try writer.finish()
        let bytes = try Data(contentsOf: whole)
        // mp4 keeps its index at the front (faststart): a cut copy's index points past its end.
        try bytes.prefix(bytes.count * 3 / 10).write(to: dir.appendingPathComponent("cut.mp4"))
        let csv = try write("a.csv", "video,label\nwhole.mp4,wave\ncut.mp4,Background\n")
        let (code, text) = try validate([csv])
        XCTAssertEqual(code, 2, text)
        XCTAssertTrue(text.contains("a.csv:3: error: video 'cut.mp4' is truncated: "), text)
        XCTAssertFalse(text.contains("a.csv:2:"), text)
    }
}
