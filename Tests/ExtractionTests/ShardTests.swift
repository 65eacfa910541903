import Extraction
import Foundation
import XCTest

/// Shards: parsed from flags and from Slurm's and Kubernetes' variables; every input in exactly one
/// shard, the same one wherever the split is computed, balanced by bytes.
final class ShardTests: XCTestCase {
    func testParsing() throws {
        XCTAssertEqual(try Shard.parse("2/4", environment: [:]), Shard(index: 2, count: 4))
        let slurm = ["SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "3", "SLURM_ARRAY_TASK_COUNT": "4"]
        XCTAssertEqual(try Shard.parse("auto", environment: slurm), Shard(index: 2, count: 4))
        // Task 2 resubmitted alone (--array=2): its array has one task; the count comes from the earlier run.
        let alone = ["SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_MIN": "2", "SLURM_ARRAY_TASK_MAX": "2", "SLURM_ARRAY_TASK_COUNT": "1"]
        XCTAssertEqual(try Shard.parse("auto", recorded: 4, environment: alone), Shard(index: 2, count: 4))
        XCTAssertThrowsError(try Shard.parse("auto", environment: alone)) { XCTAssertTrue("\($0)".contains("give auto/N"), "\($0)") }
        // Tasks 0-1 of 4 resubmitted as --array=0-1 look like a whole array of 2: refused, not split anew.
        let two = ["SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "1", "SLURM_ARRAY_TASK_COUNT": "2"]
        XCTAssertThrowsError(try Shard.parse("auto", recorded: 4, environment: two)) { XCTAssertTrue("\($0)".contains("give auto/4"), "\($0)") }
        XCTAssertEqual(try Shard.parse("auto/4", recorded: 4, environment: two), Shard(index: 1, count: 4))
        XCTAssertEqual(try Shard.parse("auto/10", environment: ["JOB_COMPLETION_INDEX": "9"]), Shard(index: 9, count: 10))
        for (text, env, needle) in [("4/4", [String: String](), "not one of 0 to 3"), ("1/0", [:], "at least 1"), ("x", [:], "expected I/N"),
                                    ("auto", [:], "SLURM_ARRAY_TASK_ID"), ("auto", ["JOB_COMPLETION_INDEX": "1"], "give auto/N"),
                                    ("auto/3", ["JOB_COMPLETION_INDEX": "3"], "not one of 0 to 2")] {
            XCTAssertThrowsError(try Shard.parse(text, environment: env), text) { XCTAssertTrue("\($0)".contains(needle), "\($0)") }
        }
    }

    func testEveryInputInOneShardTheSameWhereverComputedAndBalanced() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("shard-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var rng = SystemRandomNumberGenerator()
        var items: [InputFiles.Item] = []
        for i in 0..<40 {
            let url = dir.appendingPathComponent("clip\(i).mp4")
            try Data(count: Int.random(in: 1...200_000, using: &rng)).write(to: url)
            items.append(InputFiles.Item(url: url, relative: "sub/clip\(i).mp4"))
        }
        let shards = (0..<4).map { Shard(index: $0, count: 4).select(items) }
        XCTAssertEqual(shards.flatMap { $0.map(\.relative) }.sorted(), items.map(\.relative).sorted(), "each input once")
        // Another listing order (another machine's walk) gives the same split.
        let again = (0..<4).map { Shard(index: $0, count: 4).select(items.reversed()).map(\.relative).sorted() }
        XCTAssertEqual(again, shards.map { $0.map(\.relative).sorted() })
        // Greedy by size: no shard exceeds another by more than the largest file.
        func bytes(_ s: [InputFiles.Item]) -> Int { s.reduce(0) { $0 + ((try? Data(contentsOf: $1.url).count) ?? 0) } }
        let loads = shards.map(bytes)
        XCTAssertLessThanOrEqual(loads.max()! - loads.min()!, 200_000, "\(loads)")
        XCTAssertEqual(Shard(index: 0, count: 1).select(items).count, 40)
    }
}
