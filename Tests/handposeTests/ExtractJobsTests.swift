import Foundation
import Inference
import Keypoints
import TestSupport
import XCTest

/// `extract --jobs N` runs N worker processes at once, also when N is above the number of cores (the
/// supervisor once ran its loops in `concurrentPerform`, which stops at a thread per core).
final class ExtractJobsTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("jobs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    /// The `extract-worker` children of `parent` alive now, read from /proc.
    static func workers(of parent: Int32) -> Set<Int32> {
        var found: Set<Int32> = []
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(name),
                  let stat = try? String(contentsOfFile: "/proc/\(name)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { continue }
            // Fields after the command name in parentheses: state, then the parent's pid.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 2, Int32(fields[1]) == parent,
                  let cmdline = FileManager.default.contents(atPath: "/proc/\(name)/cmdline"),
                  String(decoding: cmdline, as: UTF8.self).contains("extract-worker") else { continue }
            found.insert(pid)
        }
        return found
    }

    func testJobsAboveTheCoreCountRunThatManyWorkers() throws {
        guard FileManager.default.fileExists(atPath: "/proc/self/stat") else {
            throw XCTSkip("no /proc here to see the worker processes in")
        }
        let models = try ToolRunner.models()
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("handpose")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else { throw Prerequisite.missing("handpose binary not found beside the tests") }
        let jobs = ProcessInfo.processInfo.activeProcessorCount + 2
        // As many clips as jobs, so that every supervisor takes one (one clip of Samples/, copied).
        let clip = ToolRunner.root.appendingPathComponent("Samples/actions/wave_0.mp4")
        let inputs = dir.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: inputs, withIntermediateDirectories: true)
        for i in 0..<jobs { try FileManager.default.copyItem(at: clip, to: inputs.appendingPathComponent("wave_\(i).mp4")) }

        let p = Process()
        p.executableURL = binary
        p.arguments = ["extract", inputs.path, "-o", dir.appendingPathComponent("out").path, "--models", models,
                       "--jobs", "\(jobs)", "--quiet"]
        p.environment = ProcessInfo.processInfo.environment.merging(["HANDPOSE_CACHE": ""]) { $1 }
        let log = dir.appendingPathComponent("log.txt")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        p.standardOutput = handle
        p.standardError = handle
        try p.run()
        var seen: Set<Int32> = [], mostAtOnce = 0
        while p.isRunning {
            let now = Self.workers(of: p.processIdentifier)
            seen.formUnion(now)
            mostAtOnce = max(mostAtOnce, now.count)
            usleep(2_000)
        }
        p.waitUntilExit()
        try handle.close()
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        XCTAssertEqual(p.terminationStatus, 0, text)
        XCTAssertTrue(text.contains("\(jobs) files: \(jobs) done"), text)
        XCTAssertEqual(seen.count, jobs, "distinct worker processes over the run")
        XCTAssertEqual(mostAtOnce, jobs, "worker processes alive at once")
    }

    /// The cores of a job that has no file left go to the jobs still working, mid-file: with two jobs, a still
    /// and a clip, the still's job ends first and the clip goes on on every core. Its keypoints are the same
    /// bit for bit as a one-job run's (every core from its first frame), and each file's log line names the
    /// engine threads its model runs used. Assumes the clip (90 frames with --body, over a second on one core)
    /// outlasts the still (one frame): so it ends on every core; it begins on its half, or on every core if
    /// its worker started after the still's had finished.
    func testAJobWithNoFileLeftLendsItsCoresToTheOthers() throws {
        let cores = UsableCores.count
        guard cores >= 2 else {
            print("SKIP: this machine has one CPU core; there is no core to lend")
            throw XCTSkip("this machine has one CPU core")
        }
        let models = try ToolRunner.models()
        let inputs = ["Samples/montage_0.mp4", "Samples/poses/peace/peace_0.png"]
        let two = dir.appendingPathComponent("two"), one = dir.appendingPathComponent("one")
        // --body: a longer clip's work (90 frames), so the still's job has ended long before it.
        let (code, text) = try ToolRunner.run(["extract"] + inputs + ["-o", two.path, "--models", models, "--body", "--jobs", "2"])
        XCTAssertEqual(code, 0, text)
        let halves = [cores / 2, cores - cores / 2]
        func threads(_ name: String) -> [Int]? {
            guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("done \(name):") }),
                  let range = line.range(of: "engine threads ") else { return nil }
            return line[range.upperBound...].split(separator: "-").compactMap { Int($0) }
        }
        let clip = threads("montage_0.mp4"), still = threads("peace_0.png")
        XCTAssertEqual(clip?.count, clip?.first == cores ? 1 : 2, text)
        XCTAssertTrue((halves + [cores]).contains(clip?.first ?? 0), "the clip begins on its half of the cores, or all: \(text)")
        XCTAssertEqual(clip?.last, cores, "and ends on every core: \(text)")
        XCTAssertEqual(still?.count, 1, text)
        XCTAssertTrue(halves.contains(still?.first ?? 0), text)

        let (oneCode, oneText) = try ToolRunner.run(["extract"] + inputs + ["-o", one.path, "--models", models, "--body", "--jobs", "1", "--quiet"])
        XCTAssertEqual(oneCode, 0, oneText)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        for name in ["montage_0.mp4", "peace_0.png"] {
            let a = try KeypointFile.load(two.appendingPathComponent(name + ".hands.json"))
            let b = try KeypointFile.load(one.appendingPathComponent(name + ".hands.json"))
            XCTAssertFalse(a.frames.isEmpty, name)
            XCTAssertEqual(try encoder.encode(a.frames), try encoder.encode(b.frames), name)
        }
    }

    /// The cores are those the process may run on, not the machine's: under `taskset` to one CPU, one engine
    /// thread (Foundation's count, which ignores the affinity mask, had planned every core of the machine).
    func testTheCoresAreThoseTheProcessMayRunOn() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/taskset") else {
            print("SKIP: no /usr/bin/taskset (util-linux)")
            throw Prerequisite.missing("taskset (util-linux)")
        }
        // The first CPU this process may run on (CPU 0 may not be among them: a cpuset, a Slurm step).
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let allowed = status.split(separator: "\n").first { $0.hasPrefix("Cpus_allowed_list:") }
        let cpu = try XCTUnwrap(allowed?.split(separator: ":").last?.trimmingCharacters(in: .whitespaces)
            .split(whereSeparator: { $0 == "," || $0 == "-" }).first.map(String.init), status)
        let models = try ToolRunner.models()
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("handpose").path
        let (code, text) = try ToolRunner.process("/usr/bin/taskset", ["-c", cpu, binary, "extract", "Samples/actions/grab_0.mp4",
                                                                       "-o", dir.appendingPathComponent("one-cpu").path, "--models", models])
        XCTAssertEqual(code, 0, text)
        XCTAssertTrue(text.contains("done grab_0.mp4: 30 frames"), text)
        XCTAssertTrue(text.contains("engine threads 1\n") || text.hasSuffix("engine threads 1"), "one CPU, one engine thread: \(text)")
    }

    /// SIGTERM, then SIGINT, to a running extract: each stops it (exit 130) with every finished file whole and
    /// the summary printed, and the next run does the rest. The signals reach the pipeline through its own
    /// listener thread, not Dispatch, whose pool monitor needs /proc (StopSignal).
    func testSIGTERMAndSIGINTStopTheRunAndARerunResumes() throws {
        let models = try ToolRunner.models()
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("handpose").path
        let input = dir.appendingPathComponent("in"), output = dir.appendingPathComponent("out")
        let clips = ToolRunner.root.appendingPathComponent("Samples/actions")
        for copy in 0..<4 {
            try FileManager.default.createDirectory(at: input.appendingPathComponent("c\(copy)"), withIntermediateDirectories: true)
            for name in try FileManager.default.contentsOfDirectory(atPath: clips.path) where name.hasSuffix(".mp4") {
                try FileManager.default.copyItem(at: clips.appendingPathComponent(name), to: input.appendingPathComponent("c\(copy)/\(name)"))
            }
        }
        let total = 4 * 14
        func done() -> Int { ((try? FileManager.default.subpathsOfDirectory(atPath: output.path)) ?? []).filter { $0.hasSuffix(".hands.json") }.count }
        for sig in [SIGTERM, SIGINT] {
            let log = dir.appendingPathComponent("log-\(sig)")
            let before = done()
            let pid = try ToolRunner.launch([binary, "extract", input.path, "-r", "-o", output.path, "--models", models, "--jobs", "2"], log: log)
            // Once a file more is written (a guard of two minutes, not a timing test).
            let deadline = Date().addingTimeInterval(120)
            while done() < before + 2, Date() < deadline { usleep(10_000) }
            kill(pid, sig)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            XCTAssertEqual((status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f), 130, "signal \(sig): \(text)")
            XCTAssertTrue(text.contains("\(total) files:") && text.contains("interrupted"), text)
            XCTAssertLessThan(done(), total, "stopped before the end")
            XCTAssertFalse(((try? FileManager.default.subpathsOfDirectory(atPath: output.path)) ?? []).contains { $0.hasSuffix(".partial") })
        }
        let (code, text) = try ToolRunner.run(["extract", input.path, "-r", "-o", output.path, "--models", models])
        XCTAssertEqual(code, 0, text)
        XCTAssertEqual(done(), total)
    }
}
