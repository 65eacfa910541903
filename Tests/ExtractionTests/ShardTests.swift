import Extraction
import Foundation
import VideoIO
import XCTest

/// Shards: parsed from flags and from Slurm's and Kubernetes' variables; every input in exactly one
/// shard, decided by its own path, so other files coming, going or growing never move it.
final class ShardTests: XCTestCase {
    func testParsing() throws {
        XCTAssertEqual(try Shard.parse("2/4", environment: [:]), Shard(index: 2, count: 4))
        let slurm = ["SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "3", "SLURM_ARRAY_TASK_COUNT": "4"]
        XCTAssertEqual(try Shard.parse("auto", environment: slurm), Shard(index: 2, count: 4))
        // Task 2 resubmitted alone (--array=2): its array has one task; the count comes from the earlier run.
        let alone = ["SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_MIN": "2", "SLURM_ARRAY_TASK_MAX": "2", "SLURM_ARRAY_TASK_COUNT": "1"]
        XCTAssertEqual(try Shard.parse("auto", recorded: 4, environment: alone), Shard(index: 2, count: 4))
        XCTAssertThrowsError(try Shard.parse("auto", environment: alone)) { XCTAssertTrue("\($0)".contains("give auto/N"), "\($0)") }
        // Tasks 0-1 of 4 resubmitted as --array=0-1 (or task 0 alone) keep the recorded split.
        let two = ["SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "1", "SLURM_ARRAY_TASK_COUNT": "2"]
        XCTAssertEqual(try Shard.parse("auto", recorded: 4, environment: two), Shard(index: 1, count: 4))
        let zero = ["SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "0", "SLURM_ARRAY_TASK_COUNT": "1"]
        XCTAssertEqual(try Shard.parse("auto", recorded: 4, environment: zero), Shard(index: 0, count: 4))
        // An array reaching past the recorded split is refused: a new split must be asked for.
        let eight = ["SLURM_ARRAY_TASK_ID": "6", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "7", "SLURM_ARRAY_TASK_COUNT": "8"]
        XCTAssertThrowsError(try Shard.parse("auto", recorded: 4, environment: eight)) { XCTAssertTrue("\($0)".contains("give auto/8"), "\($0)") }
        XCTAssertEqual(try Shard.parse("auto/8", recorded: 4, environment: eight), Shard(index: 6, count: 8))
        XCTAssertThrowsError(try Shard.parse("0/1000000", environment: [:]))
        // A number from the environment too large to count past is refused, not added to.
        let huge = ["SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "\(Int.max)", "SLURM_ARRAY_TASK_COUNT": "1"]
        XCTAssertThrowsError(try Shard.parse("auto", recorded: 4, environment: huge)) { XCTAssertTrue("\($0)".contains("SLURM_ARRAY_TASK_MAX=\(Int.max) is out of range"), "\($0)") }
        XCTAssertEqual(try Shard.parse("auto/10", environment: ["JOB_COMPLETION_INDEX": "9"]), Shard(index: 9, count: 10))
        for (text, env, needle) in [("4/4", [String: String](), "not one of 0 to 3"), ("1/0", [:], "at least 1"), ("x", [:], "expected I/N"),
                                    ("auto", [:], "SLURM_ARRAY_TASK_ID"), ("auto", ["JOB_COMPLETION_INDEX": "1"], "give auto/N"),
                                    ("auto/3", ["JOB_COMPLETION_INDEX": "3"], "not one of 0 to 2")] {
            XCTAssertThrowsError(try Shard.parse(text, environment: env), text) { XCTAssertTrue("\($0)".contains(needle), "\($0)") }
        }
    }

    /// The count a sharded run records in its output folder is read back only when it is a count
    /// `parse` accepts: an edited record is an error naming the file, never a trap (0 divided by), a
    /// negative count, or a count of a trillion that `status` would list shard by shard.
    func testARecordedShardCountOutOfRangeIsAnErrorNamingTheFile() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("shard-record-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        XCTAssertNil(try Shard.recorded(in: root))
        Shard(index: 1, count: 4).record(in: root)
        XCTAssertEqual(try Shard.recorded(in: root), 4)
        for text in ["0", "-3", "1000000000000", "99999999999999999999999", "four", "", "100001"] {
            try Data((text + "\n").utf8).write(to: Shard.recordURL(in: root))
            XCTAssertThrowsError(try Shard.recorded(in: root), text) {
                XCTAssertTrue("\($0)".contains(".handpose-shards") && "\($0)".contains("not a shard count from 1 to 100000"), "\($0)")
            }
        }
        try Data("100000\n".utf8).write(to: Shard.recordURL(in: root))
        XCTAssertEqual(try Shard.recorded(in: root), 100_000)
    }

    func testEveryInputInOneShardUnmovedByOtherFilesAndBalanced() throws {
        let items = (0..<4000).map { InputFiles.Item(url: URL(fileURLWithPath: "/nowhere/\($0).mp4"), relative: "set\($0 % 7)/clip\($0).mp4") }
        let shards = (0..<4).map { Shard(index: $0, count: 4).select(items) }
        XCTAssertEqual(shards.flatMap { $0.map(\.relative) }.sorted(), items.map(\.relative).sorted(), "each input once")
        // Another machine's listing, with other files added and some missing, puts every shared file in
        // the same shard.
        let other = items.dropFirst(500).reversed() + (0..<300).map { InputFiles.Item(url: URL(fileURLWithPath: "/x/\($0)"), relative: "new/\($0).mp4") }
        for k in 0..<4 {
            let here = Set(shards[k].map(\.relative)), there = Set(Shard(index: k, count: 4).select(Array(other)).map(\.relative))
            XCTAssertTrue(here.subtracting(items.prefix(500).map(\.relative)).isSubset(of: there), "shard \(k) moved")
            XCTAssertTrue(there.subtracting(other.map(\.relative).filter { $0.hasPrefix("new/") }).isSubset(of: here))
        }
        // Hashing spreads paths evenly: each of 4 shards within 10% of a quarter.
        for s in shards { XCTAssertEqual(Double(s.count), 1000, accuracy: 100, "\(shards.map(\.count))") }
        XCTAssertEqual(Shard(index: 0, count: 1).select(items).count, items.count)
    }
}
