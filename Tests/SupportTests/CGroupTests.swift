import FileSystem
import Foundation
import XCTest

/// `CGroup`: the smallest limit on the way from a group to the root, on a tree of folders made here as the
/// kernel lays groups out; and the memory limit, never above the machine's.
final class CGroupTests: XCTestCase {
    func testTheSmallestLimitAlongThePathToTheRootCounts() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("cgroup-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        // root: none; /slurm: 64 GiB; /slurm/job_7: 16 GiB; /slurm/job_7/step_0: none.
        let limits = ["": nil, "/slurm": "68719476736", "/slurm/job_7": "17179869184\n", "/slurm/job_7/step_0": "max"] as [String: String?]
        for (path, limit) in limits {
            let folder = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            if let limit { try Data(limit.utf8).write(to: folder.appendingPathComponent("memory.max")) }
        }
        func read(_ folder: String) -> Int? {
            (try? String(contentsOfFile: folder + "/memory.max", encoding: .utf8)).flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        }
        XCTAssertEqual(CGroup.smallest(along: "/slurm/job_7/step_0", under: [root.path], read: read), 17_179_869_184)
        XCTAssertEqual(CGroup.smallest(along: "/slurm", under: [root.path], read: read), 68_719_476_736)
        XCTAssertNil(CGroup.smallest(along: "/", under: [root.path], read: read))
        XCTAssertNil(CGroup.smallest(along: "/slurm/../slurm/job_7", under: [root.path], read: read), "a path leaving its root is not followed")
    }

    func testTheMemoryLimitIsNeverAboveTheMachines() {
        XCTAssertGreaterThan(CGroup.memoryLimit, 0)
        XCTAssertLessThanOrEqual(CGroup.memoryLimit, ProcessInfo.processInfo.physicalMemory)
    }
}
