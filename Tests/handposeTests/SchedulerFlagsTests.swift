import Foundation
import TestSupport
import XCTest

/// What the Slurm and Kubernetes recipes lean on: `--failed-inputs-ok` turns "finished, some inputs
/// failed" into 0 and nothing else; a machine that cannot start a worker stops the run (exit 3) without
/// blaming the inputs; `--list-inputs` names what a run would extract, after --shard and the files done.
final class SchedulerFlagsTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("scheduler-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("in/sub"), withIntermediateDirectories: true)
        for (name, to) in [("Samples/actions/wave_0.mp4", "in/wave_0.mp4"), ("Samples/actions/grab_0.mp4", "in/sub/grab_0.mp4"),
                           ("Samples/poses/fist/fist_0.png", "in/sub/fist_0.png")] {
            try FileManager.default.copyItem(at: ToolRunner.root.appendingPathComponent(name), to: dir.appendingPathComponent(to))
        }
        try Data((0..<4000).map { UInt8(truncatingIfNeeded: $0 &* 2654435761 >> 9) }).write(to: dir.appendingPathComponent("in/bad.mp4"))
    }

    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    func testFailedInputsOkExitsZeroAndStillNamesTheFailures() throws {
        let models = try ToolRunner.models()
        let input = dir.appendingPathComponent("in").path, out = dir.appendingPathComponent("out").path
        let (plain, plainText) = try ToolRunner.run(["extract", input, "-r", "-o", out, "--models", models])
        XCTAssertEqual(plain, 1, plainText)
        let (ok, okText) = try ToolRunner.run(["extract", input, "-r", "-o", out, "--models", models, "--failed-inputs-ok"])
        XCTAssertEqual(ok, 0, okText)
        XCTAssertTrue(okText.contains("failed bad.mp4"), "the failure is still named: \(okText)")
        XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/bad.mp4.failed.json"))
        // A wrong command line keeps its code.
        let (usage, usageText) = try ToolRunner.run(["extract", input, "-o", out, "--failed-inputs-ok", "--jobs", "0"])
        XCTAssertEqual(usage, 64, usageText)
    }

    /// Too few file descriptors to start a worker (prlimit, util-linux; 6: the three standard ones and too few
    /// for a worker's pipes, with room below it, since how many the tool holds open before it starts a
    /// worker varies by a few with what ran before; 10 once let the worker start): exit 3 even with
    /// --failed-inputs-ok, one sentence, and no input recorded as failed.
    func testAWorkerThatCannotStartStopsTheRunWithoutBlamingInputs() throws {
        let models = try ToolRunner.models()
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit") else { print("SKIP: prlimit absent (util-linux)"); throw Prerequisite.missing("prlimit absent") }
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("handpose").path
        let out = dir.appendingPathComponent("out")
        let (code, text) = try ToolRunner.process("/usr/bin/prlimit", ["--nofile=6:6", binary, "extract", dir.appendingPathComponent("in").path, "-r",
                                                                       "-o", out.path, "--models", models, "--jobs", "1", "--failed-inputs-ok"])
        XCTAssertEqual(code, 3, text)
        XCTAssertTrue(text.contains("cannot start a worker process") && text.contains("Too many open files"), text)
        XCTAssertFalse(text.contains("USAGE"), text)
        let written = (try? FileManager.default.contentsOfDirectory(atPath: out.path)) ?? []
        XCTAssertFalse(written.contains { $0.hasSuffix(".failed.json") }, "no input is blamed: \(written)")
    }

    func testListInputsNamesWhatARunWouldExtract() throws {
        let models = try ToolRunner.models()
        let input = dir.appendingPathComponent("in").path, out = dir.appendingPathComponent("out").path
        func list(_ extra: [String] = []) throws -> [String] {
            let (code, text) = try ToolRunner.process(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("handpose").path,
                                                      ["extract", input, "-r", "-o", out, "--models", models, "--quiet", "--list-inputs"] + extra)
            XCTAssertEqual(code, 0, text)
            XCTAssertTrue(text.isEmpty || text.hasSuffix("\0"), "NUL-terminated: \(text.debugDescription)")
            return text.split(separator: "\0").map(String.init).sorted()
        }
        let all = ["bad.mp4", "sub/fist_0.png", "sub/grab_0.mp4", "wave_0.mp4"]
        XCTAssertEqual(try list(), all)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/wave_0.mp4.hands.json"), "a list extracts nothing")
        // The shards' lists partition the inputs.
        var union: [String] = []
        for i in 0..<3 { union += try list(["--shard", "\(i)/3"]) }
        XCTAssertEqual(union.sorted(), all)
        // After a run only what extract would redo is left: the failed file.
        _ = try ToolRunner.run(["extract", input, "-r", "-o", out, "--models", models])
        XCTAssertEqual(try list(), ["bad.mp4"])
        XCTAssertEqual(try list(["--overwrite"]), all)
    }
}
