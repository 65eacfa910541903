import Datasets
import Foundation
import Keypoints
import Synthesis
import VideoIO
import XCTest

/// The command-line tool end to end: exit codes, resumable extraction, broken inputs, rendering.
final class CommandTests: XCTestCase {
    static let root = ToolRunner.root
    var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("cmd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    func handpose(_ arguments: [String], environment: [String: String] = [:]) throws -> (Int32, String) {
        try ToolRunner.run(arguments, environment: environment)
    }

    func models() throws -> String { try ToolRunner.models() }

    func testExtractReportsBrokenFilesResumesAndOverwrites() throws {
        let models = try models()
        let clips = dir.appendingPathComponent("clips")
        var s = SynthSettings()
        s.perClass = 1; s.seconds = 0.5; s.montages = 0; s.posesPerClass = 0
        try SyntheticDataset.generate(s, to: clips, tool: .init(name: "handpose", version: "test"))
        try Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }).write(to: clips.appendingPathComponent("actions/broken.mp4"))
        let out = dir.appendingPathComponent("out").path
        let (code, text) = try handpose(["extract", clips.appendingPathComponent("actions").path, "-o", out, "--models", models, "--jobs", "2"])
        XCTAssertEqual(code, 1, text)
        XCTAssertTrue(text.contains("broken.mp4"), text)
        XCTAssertTrue(text.contains("7 done, 0 skipped, 0 incomplete, 1 failed"), text)
        let written = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
        XCTAssertEqual(written.count, 8, "\(written)")
        // No keypoints for the broken file, only the record of why (for `status`); no temporary file.
        XCTAssertEqual(written.filter { $0.contains("broken") }, ["broken.mp4.failed.json"])
        XCTAssertFalse(written.contains { $0.contains("partial") || $0.hasPrefix(".") })
        let file = try KeypointFile.load(URL(fileURLWithPath: out).appendingPathComponent("wave_0.mp4.hands.json"))
        XCTAssertEqual(file.frames.count, try VideoReader(url: clips.appendingPathComponent("actions/wave_0.mp4")).info.frameCount)
        XCTAssertEqual(file.models?.count, 2)
        // Second run: everything up to date is skipped; --overwrite redoes it.
        let (_, again) = try handpose(["extract", clips.appendingPathComponent("actions").path, "-o", out, "--models", models])
        XCTAssertTrue(again.contains("0 done, 7 skipped, 0 incomplete, 1 failed"), again)
        let (_, forced) = try handpose(["extract", clips.appendingPathComponent("actions/wave_0.mp4").path, "-o", out, "--models", models, "--overwrite"])
        XCTAssertTrue(forced.contains("1 done, 0 skipped, 0 incomplete, 0 failed"), forced)
    }

    func testRenderSheetGridAndMismatchRefusal() throws {
        let models = try models()
        var s = SynthSettings()
        s.perClass = 1; s.seconds = 0.5; s.montages = 0; s.posesPerClass = 0; s.width = 160; s.height = 120
        try SyntheticDataset.generate(s, to: dir, tool: .init(name: "handpose", version: "test"))
        let clip = dir.appendingPathComponent("actions/wave_0.mp4").path
        let truth = clip + ".truth.hands.json"
        let sheet = dir.appendingPathComponent("sheet.png").path
        let (code, text) = try handpose(["render", clip, "--keypoints", truth, "--sheet", "--sheet-frames", "6", "-o", sheet])
        XCTAssertEqual(code, 0, text)
        let info = try VideoReader(url: URL(fileURLWithPath: sheet)).info
        // 6 tiles: 3 columns x 2 rows of 320 x 240 with 4-pixel gutters.
        XCTAssertEqual(info.width, 3 * 320 + 4 * 4)
        XCTAssertEqual(info.height, 2 * 240 + 3 * 4)
        _ = models
        let other = dir.appendingPathComponent("actions/grab_0.mp4").path + ".truth.hands.json"
        var shifted = try KeypointFile.load(URL(fileURLWithPath: other))
        shifted.frames.removeLast()
        let bad = dir.appendingPathComponent("short.hands.json")
        try shifted.write(to: bad)
        let (badCode, badText) = try handpose(["render", clip, "--keypoints", bad.path, "-o", dir.appendingPathComponent("x.mp4").path])
        XCTAssertNotEqual(badCode, 0)
        XCTAssertTrue(badText.contains("keypoints of another clip?"), badText)
    }

    func testValidateExitCodes() throws {
        let (clean, _) = try handpose(["validate", "Annotations/times.csv", "--root", "Samples"])
        XCTAssertEqual(clean, 0)
        let broken = dir.appendingPathComponent("b.csv")
        try Data("video,label,start,end\nmissing.mp4,wave,2,1\n".utf8).write(to: broken)
        let (code, text) = try handpose(["validate", broken.path])
        XCTAssertEqual(code, 2)
        XCTAssertTrue(text.contains("b.csv:2:4: error: start 2.000s is not before end 1.000s"), text)
        let warn = dir.appendingPathComponent("w.csv")
        try FileManager.default.copyItem(at: Self.root.appendingPathComponent("Samples/actions/wave_0.mp4"), to: dir.appendingPathComponent("wave.mp4"))
        try Data("video,label\nwave.mp4,wave\n".utf8).write(to: warn)
        XCTAssertEqual(try handpose(["validate", warn.path]).0, 0)
        XCTAssertEqual(try handpose(["validate", warn.path, "--strict"]).0, 1)
    }

    /// Enumerated options list their values in --help, path options complete as files or folders, and
    /// the top-level help names every exit code.
    func testHelpListsValuesAndPathsCompleteAsPaths() throws {
        let (code, wrapped) = try handpose(["export", "actions", "--help"])
        XCTAssertEqual(code, 0, wrapped)
        let help = wrapped.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for values in ["(values: pad, drop", "(values: drop, pad", "(values: full, lite", "(values: video, image",
                       "(values: right, left, any, both, track", "(values: npy, npz, csv"] {
            XCTAssertTrue(help.contains(values), values + "\n" + help)
        }
        let (_, top) = try handpose(["--help"])
        XCTAssertTrue(top.contains("Exit codes: 0 done; 1 finished, but some inputs failed"), top)
        let (_, bash) = try handpose(["--generate-completion-script", "bash"])
        // extract's -o and --models complete as folders, its inputs as files.
        guard let extract = bash.range(of: "_handpose_extract()") else { return XCTFail("no extract completion:\n" + bash) }
        let body = String(bash[extract.lowerBound...].prefix(3000))
        XCTAssertTrue(body.contains("'--output'|'-o')\n        __handpose_add_completions -d"), body)
        XCTAssertTrue(body.contains("'--models')\n        __handpose_add_completions -d"), body)
    }
}
