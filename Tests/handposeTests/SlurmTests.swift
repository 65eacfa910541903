import Foundation
import TestSupport
import XCTest

/// The Slurm recipe on a real one-node cluster (scripts/slurm-cluster.sh): a 4-task array over
/// Samples/ and the shared clips writes what one local run writes, byte for byte, and `status` says
/// complete; a task whose outputs are lost (a killed task leaves a temporary file behind) is named by
/// `status`, resubmitted alone with its inputs staged to node-local disk, and everything matches again. Skips, saying why, where Slurm cannot run.
final class SlurmTests: XCTestCase {
    func testArrayJobMatchesOneRunAndAResubmittedTaskResumes() throws {
        let models = try ToolRunner.models()
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("handpose").path
        guard FileManager.default.isExecutableFile(atPath: binary) else { throw Prerequisite.missing("handpose binary not found beside the tests") }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("slurm-\(UUID().uuidString)")
        let state = dir.appendingPathComponent("cluster")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let script = ToolRunner.root.appendingPathComponent("scripts/slurm-cluster.sh").path
        let (up, upText) = try ToolRunner.spawn([script, "up", state.path])
        if up == 3 { throw Prerequisite.missing(upText) }
        if up == 2 {
            _ = try? ToolRunner.spawn([script, "down", state.path])
            print("SKIP: Slurm cannot run here: \(upText)")
            throw XCTSkip("Slurm cannot run here")
        }
        defer { _ = try? ToolRunner.spawn([script, "down", state.path]) }
        XCTAssertEqual(up, 0, upText)
        guard up == 0 else { return }
        print(upText.trimmingCharacters(in: .whitespacesAndNewlines))

        // One input folder: Samples/ and, when present, the shared clips (symbolic links are followed).
        let input = dir.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: input.appendingPathComponent("samples"), withDestinationURL: ToolRunner.root.appendingPathComponent("Samples"))
        let clips = ToolRunner.root.appendingPathComponent("../shared/corpus/clips").standardizedFileURL
        if FileManager.default.fileExists(atPath: clips.path) {
            try FileManager.default.createSymbolicLink(at: input.appendingPathComponent("clips"), withDestinationURL: clips)
        } else {
            print("note: ../shared/corpus/clips is absent; the array job runs over Samples/ only")
        }
        let local = dir.appendingPathComponent("local").path, cluster = dir.appendingPathComponent("cluster-out").path
        let env = ["HANDPOSE_MODELS": models]
        let (localCode, localText) = try ToolRunner.run(["extract", input.path, "-r", "-o", local, "--quiet"], environment: env)
        XCTAssertEqual(localCode, 0, localText)

        let jobEnv = ["SLURM_CONF": state.appendingPathComponent("slurm.conf").path, "HANDPOSE": binary, "HANDPOSE_MODELS": models]
        let recipe = ToolRunner.root.appendingPathComponent("deploy/slurm/extract.sbatch").path
        let logs = dir.appendingPathComponent("logs/%x-%A_%a.out").path
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("logs"), withIntermediateDirectories: true)
        @discardableResult
        func submit(_ array: String, environment: [String: String] = [:]) throws -> String {
            let (code, text) = try ToolRunner.spawn(["sbatch", "--wait", "--array=\(array)", "--cpus-per-task=1", "--output=\(logs)", recipe, input.path, cluster],
                                         environment: jobEnv.merging(environment) { $1 })
            let taskLogs = (try? FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("logs").path)) ?? []
            let logText = try taskLogs.sorted().map { try String(contentsOf: dir.appendingPathComponent("logs/\($0)"), encoding: .utf8) }.joined()
            XCTAssertEqual(code, 0, text + logText)
            print("sbatch --array=\(array): " + text.trimmingCharacters(in: .whitespacesAndNewlines))
            return logText
        }
        func status() throws -> (Int32, String) {
            try ToolRunner.run(["status", cluster, "--inputs", input.path, "-r"], environment: env)
        }
        try submit("0-3")
        let expected = try ToolRunner.files(in: URL(fileURLWithPath: local))
        XCTAssertGreaterThan(expected.count, 20)
        var got = try ToolRunner.files(in: URL(fileURLWithPath: cluster))
        XCTAssertEqual(got.keys.sorted(), expected.keys.sorted())
        XCTAssertTrue(got == expected, "the 4 array tasks wrote what one run writes, byte for byte")
        var (code, text) = try status()
        XCTAssertEqual(code, 0, text)
        XCTAssertTrue(text.contains("shard 3/4") && text.hasSuffix("complete\n"), text)
        print(text)

        // Task 2 loses its work mid-way: two outputs gone, a temporary file left as a killed task leaves it.
        let index = try String(contentsOfFile: cluster + "/index.jsonl", encoding: .utf8).split(separator: "\n")
        let shard2 = index.compactMap { line -> String? in
            let entry = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return entry?["shard"] as? Int == 2 ? entry?["path"] as? String : nil
        }
        XCTAssertGreaterThanOrEqual(shard2.count, 2)
        for path in shard2.prefix(2) { try FileManager.default.removeItem(atPath: cluster + "/" + path + ".hands.json") }
        let partial = URL(fileURLWithPath: cluster + "/" + shard2[0] + ".hands.json")
        try Data("{\"frames\":[".utf8).write(to: partial.deletingLastPathComponent().appendingPathComponent(".\(partial.lastPathComponent).99999.partial"))
        (code, text) = try status()
        XCTAssertEqual(code, 1, text)
        XCTAssertTrue(text.contains("shard 2/4") && text.contains("2 missing  <- resubmit"), text)
        XCTAssertFalse(text.contains("shard 1/4: ") && text.components(separatedBy: "<- resubmit").count > 2, text)
        print(text)
        // Resubmitted with its inputs staged to node-local disk: only the two not done are copied (times
        // kept, paths under the input folder, through its symbolic links), and the staging folder goes.
        let stage = dir.appendingPathComponent("node-local")
        try FileManager.default.createDirectory(at: stage, withIntermediateDirectories: true)
        let log = try submit("2", environment: ["HANDPOSE_STAGE": "1", "HANDPOSE_STAGE_DIR": stage.path])
        XCTAssertTrue(log.contains("staged 2 inputs"), log)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: stage.path), [], "the staging folder is removed")
        (code, text) = try status()
        XCTAssertEqual(code, 0, text)
        got = try ToolRunner.files(in: URL(fileURLWithPath: cluster))
        got = got.filter { !$0.key.hasSuffix(".partial") }
        XCTAssertTrue(got == expected, "after the resubmitted task the outputs again equal one run's")
    }
}
