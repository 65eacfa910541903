import Foundation
import TestSupport
import XCTest

/// `bench extract` measures a real extraction from outside, the way it measures MediaPipe: the whole
/// process tree (handpose's supervisor and its worker) for CPU time and memory, and splits the time by stage.
final class BenchCommandTests: XCTestCase {
    func testBenchExtractMeasuresTheWholeProcessTreeAndSplitsTheTime() throws {
        let models = try ToolRunner.models()
        let (code, text) = try ToolRunner.run(["bench", "extract", "Samples/actions/grab_0.mp4", "--jobs", "1", "--rounds", "1",
                                               "--profile", "--json", "--models", models])
        XCTAssertEqual(code, 0, text)
        guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
              let runs = object["runs"] as? [[String: Any]], let run = runs.first,
              let profile = object["profile"] as? [String: Any], let stages = profile["stages"] as? [[String: Any]] else {
            return XCTFail("no runs and profile in the output: \(text.suffix(2000))")
        }
        XCTAssertEqual(runs.count, 1, "one handpose run, no MediaPipe without --reference")
        XCTAssertTrue((run["run"] as? String ?? "").hasPrefix("handpose, 1 job"), "\(run)")
        XCTAssertEqual(run["frames"] as? Int, 30)
        func ms(_ stage: String) -> Double { stages.first { $0["stage"] as? String == stage }?["ms_per_frame"] as? Double ?? -1 }
        let models_ms = ms("palm model") + ms("landmark model")
        XCTAssertGreaterThan(ms("palm model"), 0)
        XCTAssertGreaterThan(ms("landmark model"), 0)
        XCTAssertGreaterThan(ms("decode (FFmpeg, own thread)"), 0)
        let counts = profile["runs_per_frame"] as? [[String: Any]] ?? []
        func perFrame(_ what: String) -> Double {
            let row = counts.first { $0["what"] as? String == what }
            return row?["per_frame"] as? Double ?? -1
        }
        XCTAssertEqual(perFrame("palm model"), 1, accuracy: 0.5, "one hand tracked, one allowed more: palm detection nearly every frame")
        XCTAssertGreaterThanOrEqual(perFrame("landmark model"), 1)
        // The models run in the worker, a grandchild of bench: its CPU time must be in the run's (the
        // supervisor alone uses a few milliseconds a frame), and its memory in the peak: the supervisor's
        // own share is about 25 MiB, a worker's (libraries, both models packed, arenas) several times that.
        let cpu = run["cpu_ms_per_frame"] as? Double ?? 0
        XCTAssertGreaterThan(cpu, 0.5 * models_ms, "the worker's CPU time is counted")
        XCTAssertGreaterThan(run["peak_mib"] as? Double ?? 0, 60, "the worker's memory is counted")
        XCTAssertGreaterThan(run["largest_process_mib"] as? Double ?? 0, 30)
        XCTAssertGreaterThan(run["fps"] as? Double ?? 0, 0)
    }
}

/// `bench models` times every model beside the official interpreter, their runs alternating in turns (one
/// reference process for the whole measurement); a turn shorter than the others is timed too.
final class BenchModelsCommandTests: XCTestCase {
    func testEveryModelIsTimedBesideXNNPACK() throws {
        let models = try ToolRunner.models()
        let python = ToolRunner.root.appendingPathComponent(".venv/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            print("SKIP: \(python) is absent; run `make setup` for the TFLite reference interpreter")
            throw Prerequisite.missing("no reference interpreter at \(python)")
        }
        let (code, text) = try ToolRunner.run(["bench", "models", "--runs", "7", "--rounds", "2", "--threads", "1", "--models", models,
                                               "--reference", python, "--json"])
        XCTAssertEqual(code, 0, text)
        XCTAssertFalse(text.contains("reference interpreter not run"), text)
        guard let start = text.firstIndex(of: "["),
              let rows = try JSONSerialization.jsonObject(with: Data(text[start...].utf8)) as? [[String: Any]] else {
            return XCTFail("no JSON rows: \(text.suffix(2000))")
        }
        XCTAssertEqual(rows.map { $0["model"] as? String ?? "" }, ["palm_detection_full", "hand_landmark_full", "palm_detection_lite",
                                                                   "hand_landmark_lite", "pose_detection", "pose_landmark_full",
                                                                   "hand_recrop", "face_detection_short_range", "face_landmark"])
        for row in rows {
            let ours = row["median_ms"] as? Double ?? 0, theirs = row["xnnpack_median_ms"] as? Double ?? 0
            XCTAssertGreaterThan(ours, 0, "\(row)")
            XCTAssertGreaterThan(theirs, 0, "\(row)")
            XCTAssertEqual(row["ratio"] as? Double ?? 0, ours / theirs, accuracy: 1e-9, "\(row)")
            let p10 = row["xnnpack_round_p10_ms"] as? Double ?? 0, p90 = row["xnnpack_round_p90_ms"] as? Double ?? 0
            XCTAssertGreaterThan(p10, 0, "\(row)")
            XCTAssertLessThanOrEqual(p10, p90, "\(row)")
            XCTAssertGreaterThanOrEqual(row["worst_round_ratio"] as? Double ?? 0, (row["round_p10_ms"] as? Double ?? 0) / p90 * 0.999, "\(row)")
        }
    }

    /// A reference that fails, at its start or on one model, fails the run (no table with a side missing or
    /// from fewer rounds), quoting what it said; a line other than an answer on its output is refused too.
    func testAFailingReferenceFailsTheRunAndIsQuoted() throws {
        let models = try ToolRunner.models()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bench-reference-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        func stub(_ name: String, _ body: String) throws -> String {
            let url = dir.appendingPathComponent(name)
            try ("#!/bin/sh\n" + body).write(to: url, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
            return url.path
        }
        let cases = [
            (try stub("traceback", "echo 'Traceback (most recent call last): ModuleNotFoundError: ai_edge_litert' >&2\nexit 1\n"),
             "; it said: Traceback (most recent call last): ModuleNotFoundError: ai_edge_litert"),
            (try stub("refuses", "read line\necho '{\"error\": \"ValueError: no such op\"}'\nsleep 1\n"),
             "it could not time "),
            (try stub("chatty", "read line\necho 'loading...'\nsleep 1\n"), "is not a timing: loading..."),
        ]
        for (python, expected) in cases {
            let (code, text) = try ToolRunner.run(["bench", "models", "--runs", "1", "--rounds", "1", "--threads", "1", "--models", models,
                                                   "--reference", python])
            XCTAssertEqual(code, 3, "\(python): \(text)")
            XCTAssertTrue(text.contains("--reference \(python) cannot be run ("), text)
            XCTAssertTrue(text.contains(expected), "\(python): \(text)")
            XCTAssertFalse(text.contains("palm_detection_full  "), "no table: \(text)")
        }
    }
}

/// `bench` finds its reference scripts beside an installed binary (where `make install` copies them),
/// not only in the folder it is run from, and names every place looked when they are in neither.
final class BenchScriptsCommandTests: XCTestCase {
    func testScriptsAreFoundBesideAnInstalledBinary() throws {
        let models = try ToolRunner.models()
        let built = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("handpose")
        guard FileManager.default.isExecutableFile(atPath: built.path) else { throw Prerequisite.missing("handpose binary not found beside the tests") }
        let fm = FileManager.default
        let dir = fm.temporaryDirectory.appendingPathComponent("bench-scripts-\(UUID().uuidString)")
        defer { try? fm.removeItem(at: dir) }
        let prefix = dir.appendingPathComponent("prefix"), elsewhere = dir.appendingPathComponent("elsewhere")
        try fm.createDirectory(at: prefix.appendingPathComponent("bin"), withIntermediateDirectories: true)
        try fm.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        let binary = prefix.appendingPathComponent("bin/handpose")
        try fm.copyItem(at: built, to: binary)
        // The reference Python is never reached when the script is missing; when found, it is started with
        // the installed script, and a Python that fails (false) fails the run, naming both.
        let arguments = ["bench", "models", "--runs", "1", "--rounds", "1", "--threads", "1", "--models", models, "--reference", "/bin/false"]
        func run() throws -> (Int32, String) {
            let p = Process()
            p.executableURL = binary
            p.arguments = arguments
            p.currentDirectoryURL = elsewhere
            let pipe = Pipe()
            p.standardOutput = pipe
            p.standardError = pipe
            try p.run()
            let out = pipe.fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
            return (p.terminationStatus, String(decoding: out, as: UTF8.self))
        }
        var (code, text) = try run()
        XCTAssertEqual(code, 3, text)
        XCTAssertTrue(text.contains("cannot find the helper script tflite_reference.py"), text)
        XCTAssertTrue(text.contains(prefix.appendingPathComponent("share/handpose/scripts").path), text)
        XCTAssertTrue(text.contains(elsewhere.appendingPathComponent("scripts").path), text)
        XCTAssertFalse(text.contains("Usage:"), "a missing file is not a usage error: \(text)")

        let installed = prefix.appendingPathComponent("share/handpose/scripts")
        try fm.createDirectory(at: installed, withIntermediateDirectories: true)
        try fm.copyItem(at: ToolRunner.root.appendingPathComponent("scripts/tflite_reference.py"),
                        to: installed.appendingPathComponent("tflite_reference.py"))
        (code, text) = try run()
        XCTAssertEqual(code, 3, text)
        XCTAssertTrue(text.contains("--reference /bin/false cannot be run (\(installed.appendingPathComponent("tflite_reference.py").path) serve: it ended"), text)
    }
}

/// `bench profile` shows the fused blocks as steps and times a plan against its unfused self.
final class BenchProfileCommandTests: XCTestCase {
    func testProfileShowsBlocksAndComparesWithTheUnfusedPlan() throws {
        let model = try ToolRunner.models() + "/hand_landmark_full.tflite"
        var (code, text) = try ToolRunner.run(["bench", "profile", model, "--top", "100"])
        XCTAssertEqual(code, 0, text)
        XCTAssertTrue(text.contains("block conv 1x1/1 112x112x16 -> 112x112x64 relu6, depthwise 3x3/2"), text)
        (code, text) = try ToolRunner.run(["bench", "profile", model, "--top", "100", "--unfused"])
        XCTAssertEqual(code, 0, text)
        XCTAssertFalse(text.contains("block "), text)
        (code, text) = try ToolRunner.run(["bench", "profile", model, "--against-unfused", "--runs", "3", "--threads", "2"])
        XCTAssertEqual(code, 0, text)
        XCTAssertNotNil(text.range(of: #"2 thread\(s\), 3 runs each: fused median [0-9.]+ ms, p10 [0-9.]+ \(45 steps, arena 2\.01 MiB\); unfused median [0-9.]+ ms, p10 [0-9.]+ \(54 steps, arena 3\.83 MiB\)"#, options: .regularExpression), text)
        (code, text) = try ToolRunner.run(["bench", "profile", model, "--against-unfused", "--unfused"])
        XCTAssertNotEqual(code, 0, text)
        XCTAssertTrue(text.contains("exclude each other"), text)
    }
}

/// `bench kernels` and `probe --cpu`: the micro-kernels each variant lists are the ones timed, against a
/// peak the same machine measures, and the CPU they ran on is named.
final class KernelReportCommandTests: XCTestCase {
    func testBenchKernelsTimesEveryMicroKernelOfEveryVariant() throws {
        let (code, text) = try ToolRunner.run(["bench", "kernels", "--json"])
        XCTAssertEqual(code, 0, text)
        let rows = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]], text)
        let (probeCode, probeText) = try ToolRunner.run(["probe", "--cpu", "--json"])
        XCTAssertEqual(probeCode, 0, probeText)
        let cpu = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(probeText.utf8)) as? [String: Any], probeText)
        let best = try XCTUnwrap(cpu["kernels"] as? String)
        let listed = try XCTUnwrap(cpu["microKernels"] as? [String])
        XCTAssertEqual(rows.filter { $0["isa"] as? String == best }.compactMap { $0["kernel"] as? String }, listed,
                       "bench kernels times the micro-kernels probe --cpu lists for the kernels extraction runs")
        XCTAssertTrue(listed.contains("gemm6x16") && listed.contains("dot8"), "\(listed)")
        for row in rows {
            let gflops = try XCTUnwrap(row["gflops"] as? Double), peak = try XCTUnwrap(row["peak_gflops"] as? Double)
            XCTAssertGreaterThan(gflops, 0, "\(row)")
            XCTAssertGreaterThan(peak, 0, "\(row)")
            XCTAssertEqual(try XCTUnwrap(row["of_peak"] as? Double), gflops / peak, accuracy: 1e-9)
        }
        XCTAssertGreaterThan(try XCTUnwrap(cpu["peakGflops"] as? Double), 0)
        XCTAssertFalse(try XCTUnwrap(cpu["vendor"] as? String).isEmpty)
        let (tableCode, table) = try ToolRunner.run(["probe", "--cpu"])
        XCTAssertEqual(tableCode, 0, table)
        XCTAssertTrue(table.contains("multiply-add peak") && table.contains("caches"), table)
    }

    func testProbeWithoutFilesOrCPUIsAUsageError() throws {
        let (code, text) = try ToolRunner.run(["probe"])
        XCTAssertEqual(code, 64, text)
        XCTAssertTrue(text.contains("--cpu"), text)
        let (both, bothText) = try ToolRunner.run(["probe", "--cpu", "Samples/actions/wave_0.mp4"])
        XCTAssertEqual(both, 64, bothText)
    }
}
