import Foundation
import Keypoints
import TestSupport
import XCTest

/// The deployment recipes and documents are well formed and agree with what they describe: the
/// Kubernetes Job against Kubernetes' schema (kubernetes-validate in .venv, schemas bundled), the Slurm
/// script through `bash -n` and its Apptainer branch, deploy/README's plan recomputed from README's
/// measured figures, and every file in deploy/ named by a test. (SlurmTests runs the Slurm script on a
/// real cluster; DistributionTests runs the Job's container and builds the image and tarball.)
final class DeployTests: XCTestCase {
    static let root = ToolRunner.root

    func text(_ path: String) throws -> String {
        try String(contentsOf: Self.root.appendingPathComponent(path), encoding: .utf8)
    }

    func testKubernetesJobMatchesTheSchema() throws {
        let validator = Self.root.appendingPathComponent(".venv/bin/kubernetes-validate").path
        guard FileManager.default.isExecutableFile(atPath: validator) else {
            print("SKIP: \(validator) is absent; run `make setup`")
            throw Prerequisite.missing("kubernetes-validate absent")
        }
        let (code, text) = try ToolRunner.process(validator, ["-k", "1.30.0", "--strict", "deploy/kubernetes/extract-job.yaml"])
        XCTAssertEqual(code, 0, text)
        XCTAssertTrue(text.contains("passed"), text)
        let manifest = try self.text("deploy/kubernetes/extract-job.yaml")
        XCTAssertTrue(manifest.contains("completions: 8") && manifest.contains("--shard\", \"auto/8\""), "shard count and completions agree")
        for needed in ["type: DisruptionTarget", "activeDeadlineSeconds:", "ttlSecondsAfterFinished:", "runAsNonRoot: true",
                       "name: HANDPOSE_CACHE", "emptyDir:", "\"--failed-inputs-ok\""] {
            XCTAssertTrue(manifest.contains(needed), "the Job has \(needed)")
        }
    }

    func testSlurmScriptParsesAndItsApptainerBranchSaysWhatIsMissing() throws {
        let (code, text) = try ToolRunner.process("/bin/bash", ["-n", "deploy/slurm/extract.sbatch"])
        XCTAssertEqual(code, 0, text)
        // HANDPOSE_IMAGE without apptainer on PATH: a clear message and "could not run", not a run of
        // whatever handpose is on PATH.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sbatch-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let (missing, missingText) = try ToolRunner.process("/bin/bash", ["deploy/slurm/extract.sbatch", "Samples", dir.path],
                                                            environment: ["HANDPOSE_IMAGE": "/nonexistent/handpose.sif", "PATH": "/usr/bin:/bin"])
        XCTAssertEqual(missing, 3, missingText)
        XCTAssertTrue(missingText.contains("apptainer is not on PATH"), missingText)
        // Every #SBATCH setting a site would change is explained in deploy/slurm/README.md.
        let script = try self.text("deploy/slurm/extract.sbatch"), readme = try self.text("deploy/slurm/README.md")
        for line in script.split(separator: "\n") where line.hasPrefix("#SBATCH --") {
            let setting = line.dropFirst("#SBATCH ".count)
            guard !["--job-name", "--output", "--cpus-per-task", "--mem-per-cpu"].contains(where: { setting.hasPrefix($0) }) else { continue }
            let flag = setting.split(separator: "=").first.map(String.init) ?? String(setting)
            XCTAssertTrue(readme.contains(flag), "deploy/slurm/README.md explains \(setting)")
        }
    }

    /// SIGTERM to the Slurm script (what `--signal=B:TERM@120` sends before the time limit) reaches
    /// handpose, which keeps what is done, prints its summary and exits 130, the script's own exit code;
    /// the staging copy on node-local disk is removed. Run as Slurm runs a batch script, with the array's
    /// variables set (SlurmTests runs the script under a real Slurm).
    func testSlurmScriptPassesSIGTERMOnAndKeepsWhatIsDone() throws {
        let models = try ToolRunner.models()
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("handpose").path
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sbatch-term-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in"), output = dir.appendingPathComponent("out"), stage = dir.appendingPathComponent("node-local")
        for copy in 0..<4 {
            try FileManager.default.createDirectory(at: input.appendingPathComponent("c\(copy)"), withIntermediateDirectories: true)
            for name in try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent("Samples/actions").path) where name.hasSuffix(".mp4") {
                try FileManager.default.copyItem(at: Self.root.appendingPathComponent("Samples/actions/\(name)"), to: input.appendingPathComponent("c\(copy)/\(name)"))
            }
        }
        try FileManager.default.createDirectory(at: stage, withIntermediateDirectories: true)
        let log = dir.appendingPathComponent("task.log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/bash")
        p.arguments = [Self.root.appendingPathComponent("deploy/slurm/extract.sbatch").path, input.path, output.path]
        p.environment = ProcessInfo.processInfo.environment.merging([
            "HANDPOSE": binary, "HANDPOSE_MODELS": models, "HANDPOSE_CACHE": ToolRunner.cache.path, "HANDPOSE_STAGE": "1", "HANDPOSE_STAGE_DIR": stage.path,
            "SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_COUNT": "1", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "0", "SLURM_CPUS_PER_TASK": "1",
        ]) { $1 }
        p.standardOutput = try FileHandle(forWritingTo: log)
        p.standardError = p.standardOutput
        try p.run()
        // SIGTERM once two keypoint files are in place (a guard of two minutes, not a timing test).
        let deadline = Date().addingTimeInterval(120)
        func done() -> [String] { ((try? FileManager.default.subpathsOfDirectory(atPath: output.path)) ?? []).filter { $0.hasSuffix(".hands.json") } }
        while done().count < 2, p.isRunning, Date() < deadline { usleep(10_000) }
        kill(p.processIdentifier, SIGTERM)
        p.waitUntilExit()
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        XCTAssertEqual(p.terminationStatus, 130, text)
        XCTAssertTrue(text.contains("interrupted; run again to resume"), "handpose printed its summary: \(text)")
        let kept = done()
        XCTAssertGreaterThanOrEqual(kept.count, 2)
        XCTAssertLessThan(kept.count, 4 * 14, "stopped before the end: \(text)")
        XCTAssertFalse(((try? FileManager.default.subpathsOfDirectory(atPath: output.path)) ?? []).contains { $0.hasSuffix(".partial") })
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: stage.path), [], "the staging copy is removed")
    }

    /// deploy/README's plan follows from the extraction rates README reports from `make bench`: per
    /// core, core-hours for 1,000 hours of 30 fps video, and wall time on 10, 100 and 1,000 cores.
    func testPlanFollowsREADMEsMeasuredRates() throws {
        let readme = try text("README.md"), plan = try text("deploy/README.md")
        func rate(_ pattern: String, in text: String) throws -> Double {
            let regex = try NSRegularExpression(pattern: pattern)
            guard let m = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
                  let r = Range(m.range(at: 1), in: text), let value = Double(text[r]) else {
                XCTFail("README has no match for \(pattern)"); return .nan
            }
            return value
        }
        // The AVX-512 machine's table row and the AVX2 machine's sentence, each for two jobs on two cores.
        let rates = [try rate(#"\| handpose, 2 jobs \| ([0-9.]+) \|"#, in: readme),
                     try rate(#"handpose 2 jobs ([0-9.]+) frames/s"#, in: readme)]
        let frames = 1_000.0 * 3_600 * 30
        for total in rates {
            let perCore = total / 2
            XCTAssertTrue(plan.contains(String(format: "%.1f frames/s with 2 jobs", total)) || plan.contains(String(format: "%.1f frames/s on the", total)),
                          "deploy/README quotes README's \(total) frames/s")
            XCTAssertTrue(plan.contains(String(format: "%.1f frames/s per core", (perCore * 10).rounded(.toNearestOrAwayFromZero) / 10)), "per core \(perCore)")
            let coreHours = frames / perCore / 3_600
            XCTAssertTrue(plan.contains(String(format: "%.0f core-hours", coreHours)), "\(coreHours) core-hours")
            XCTAssertTrue(plan.contains(String(format: "%.1f h", coreHours / 10)), "on 10 cores: \(coreHours / 10) h")
            XCTAssertTrue(plan.contains(String(format: "%.1f h", coreHours / 100)), "on 100 cores: \(coreHours / 100) h")
            XCTAssertTrue(plan.contains(String(format: "%.0f min", coreHours / 1_000 * 60)), "on 1,000 cores: \(coreHours * 0.06) min")
        }
        // What the code does, not what it once did: shards hash each relative path.
        XCTAssertFalse(plan.contains("balanced by bytes"), "shards are not balanced by bytes")
        XCTAssertTrue(plan.contains("hash of its relative path"))
    }

    /// README opens with `pip install` and the Python that loads keypoints into NumPy; its Requirements name
    /// the three things users run without building (each holding the self-contained binary) and what that
    /// binary needs of the system, and no longer send other distributions to build it themselves.
    func testRequirementsNameWhatRunsWithoutBuilding() throws {
        let readme = try text("README.md")
        let opening = readme.components(separatedBy: "\n## ").first ?? ""
        let wheel = "handpose-\(KeypointFile.Tool.handpose.version)-py3-none-manylinux_2_34_x86_64.whl"
        for line in ["pip install out/\(wheel)", "import handpose", "handpose.load(", "handpose.extract(", "handpose.load_export("] {
            XCTAssertTrue(opening.contains(line), "README's opening shows \(line)")
        }
        let requirements = readme.components(separatedBy: "## Requirements").dropFirst().first?.components(separatedBy: "\n## ").first ?? ""
        XCTAssertFalse(requirements.isEmpty, "README has a Requirements section")
        for needed in ["make wheel", "make image", "make dist", "apptainer build", "Swift 6", "glibc 2.34", "manylinux_2_34"] {
            XCTAssertTrue(requirements.contains(needed), needed)
        }
        XCTAssertFalse(readme.contains("build there"), "no distribution is told to build handpose itself")
        XCTAssertFalse(requirements.contains("libavformat59"), "the shipped binary needs no FFmpeg package")
    }

    /// No file in deploy/ that no test runs or checks: each is named in a test's source.
    func testEveryDeployFileIsCheckedByATest() throws {
        let deploy = Self.root.appendingPathComponent("deploy")
        let tests = Self.root.appendingPathComponent("Tests")
        var sources = ""
        for case let url as URL in FileManager.default.enumerator(at: tests, includingPropertiesForKeys: nil)! where url.pathExtension == "swift" {
            sources += try String(contentsOf: url, encoding: .utf8)
        }
        for case let url as URL in FileManager.default.enumerator(at: deploy, includingPropertiesForKeys: nil)! {
            guard (try url.resourceValues(forKeys: [.isRegularFileKey])).isRegularFile == true else { continue }
            let relative = "deploy/" + url.standardizedFileURL.path.dropFirst(deploy.standardizedFileURL.path.count + 1)
            XCTAssertTrue(sources.contains("\"\(relative)\""), "\(relative) is run or checked by no test")
        }
    }
}
