import Foundation
import XCTest

/// The deployment recipes are well formed: the Kubernetes Job against Kubernetes' schema
/// (kubernetes-validate in .venv, schemas bundled), the Slurm script through `bash -n`.
final class DeployTests: XCTestCase {
    func testKubernetesJobMatchesTheSchema() throws {
        let validator = ToolRunner.root.appendingPathComponent(".venv/bin/kubernetes-validate").path
        guard FileManager.default.isExecutableFile(atPath: validator) else {
            print("SKIP: \(validator) is absent; run `make setup`")
            throw XCTSkip("kubernetes-validate absent")
        }
        let (code, text) = try ToolRunner.process(validator, ["-k", "1.30.0", "--strict", "deploy/kubernetes/extract-job.yaml"])
        XCTAssertEqual(code, 0, text)
        XCTAssertTrue(text.contains("passed"), text)
        let manifest = try String(contentsOf: ToolRunner.root.appendingPathComponent("deploy/kubernetes/extract-job.yaml"), encoding: .utf8)
        XCTAssertTrue(manifest.contains("completions: 8") && manifest.contains("--shard\", \"auto/8\""), "shard count and completions agree")
    }

    func testSlurmScriptParses() throws {
        let (code, text) = try ToolRunner.process("/bin/bash", ["-n", "deploy/slurm/extract.sbatch"])
        XCTAssertEqual(code, 0, text)
    }
}
