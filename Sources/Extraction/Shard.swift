import FileSystem
import Foundation
import Keypoints
import Support
import VideoIO

/// One part of a run split across machines: shard `index` of `count` (from 0). Every input goes to
/// exactly one shard, decided from its own relative path alone (a 64-bit FNV-1a hash), so every task
/// computes the same split whenever it starts, and the union of all shards' outputs is the output of
/// one run. Not balanced by file size: such a split moves files between shards whenever any other file
/// appears, disappears or grows (a copy still running, a folder unreadable on one node), and tasks
/// started at different times would then do some files twice and others never. With many files per
/// shard, hashing balances bytes well enough.
public struct Shard: Equatable, Sendable, CustomStringConvertible {
    public var index: Int
    public var count: Int

    public init(index: Int, count: Int) { self.index = index; self.count = count }

    public var description: String { "\(index)/\(count)" }

    /// Parses `I/N`, `auto` or `auto/N`. With `auto` the index is the Slurm array task's
    /// SLURM_ARRAY_TASK_ID (submit arrays as --array=0-(N-1)) or Kubernetes' JOB_COMPLETION_INDEX. The
    /// count is N of `auto/N`; else `recorded`, the count an earlier sharded run into the same output
    /// folder used (so resubmitting only task 3, or tasks 0-1, still splits N ways); else, for a whole
    /// array from 0 (SLURM_ARRAY_TASK_MIN 0, SLURM_ARRAY_TASK_MAX = COUNT - 1), its size. An array whose
    /// tasks reach past the recorded count is refused rather than split another way.
    public static func parse(_ text: String, recorded: Int? = nil,
                             environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Shard {
        func fail(_ reason: String) -> ExtractionError { .input(path: "--shard \(text)", reason: reason) }
        func number(_ name: String) throws -> Int? {
            guard let v = environment[name] else { return nil }
            guard let n = Int(v.trimmingCharacters(in: .whitespaces)) else { throw fail("\(name)=\(v) is not a number") }
            // Slurm's task ids and counts are far below this (its MaxArraySize is at most 4000001).
            guard (0...Int(Int32.max)).contains(n) else { throw fail("\(name)=\(v) is out of range (0 to \(Int32.max))") }
            return n
        }
        let parts = text.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        var index: Int, count: Int
        if parts[0] == "auto" {
            if let task = try number("SLURM_ARRAY_TASK_ID") {
                index = task
            } else if let k8s = try number("JOB_COMPLETION_INDEX") {
                index = k8s
            } else {
                throw fail("neither SLURM_ARRAY_TASK_ID (a Slurm array task) nor JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) is set")
            }
            if parts.count == 2 {
                guard let n = Int(parts[1]) else { throw fail("expected auto/N with N a number") }
                count = n
            } else if parts.count == 1 {
                let min = try number("SLURM_ARRAY_TASK_MIN"), max = try number("SLURM_ARRAY_TASK_MAX")
                let size = try number("SLURM_ARRAY_TASK_COUNT")
                if let recorded {
                    // Tasks resubmitted (--array=3, --array=0-1) are shards of the recorded split; an array
                    // reaching past it would split anew, which must be asked for.
                    if let max, max >= recorded {
                        throw fail("the output folder was split \(recorded) ways by an earlier run, but this array runs task \(max); give auto/\(max + 1) (and resubmit every task) to split anew")
                    }
                    count = recorded
                } else if min == 0, let max, size == max + 1 {
                    count = size!
                } else {
                    throw fail("the shard count is unknown (this array does not run tasks 0 to N-1 and no earlier sharded run is recorded); give auto/N")
                }
            } else {
                throw fail("expected I/N, auto or auto/N")
            }
        } else {
            guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]) else { throw fail("expected I/N (e.g. 0/4), auto or auto/N") }
            index = i; count = n
        }
        guard count >= 1 else { throw fail("the shard count must be at least 1") }
        guard count <= maxCount else { throw fail("at most \(maxCount) shards") }
        guard (0..<count).contains(index) else { throw fail("shard \(index) is not one of 0 to \(count - 1)") }
        return Shard(index: index, count: count)
    }

    /// Where a sharded run records its shard count in the output folder.
    public static func recordURL(in root: URL) -> URL { root.appendingPathComponent(".handpose-shards") }

    /// The shard count recorded in `root`; nil when none is. A record that is there but unreadable, or
    /// not a count from 1 to `maxCount` (the file is in the user's folder and may have been edited), is an
    /// error naming it: it decides how every input is split.
    public static func recorded(in root: URL) throws -> Int? {
        let url = recordURL(in: root)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        func fail(_ reason: String) -> ExtractionError { .input(path: url.path, reason: reason) }
        let data: Data
        do { data = try RegularFile.read(url.path) } catch { throw fail("the recorded shard count cannot be read: \(error)") }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let n = Int(text), (1...maxCount).contains(n) else {
            throw fail("holds '\(text.prefix(40))', not a shard count from 1 to \(maxCount): delete the file, or give the count (extract --shard auto/N, status --shards N)")
        }
        return n
    }

    /// Records this shard count in `root` (a temporary name, then a rename: concurrent tasks write the same).
    public func record(in root: URL) {
        try? AtomicFile.write(Data("\(count)\n".utf8), to: Self.recordURL(in: root))
    }

    /// The largest shard count accepted: more shards than inputs is already pointless.
    public static let maxCount = 100_000

    /// The shard of an input with relative path `relative`, out of `count`.
    public static func shard(of relative: String, count: Int) -> Int {
        Int(StableHash.fnv1a(relative) % UInt64(count))
    }

    /// The shard of each item.
    public static func assignment(_ items: [InputFiles.Item], count: Int) -> [Int] {
        items.map { shard(of: $0.relative, count: count) }
    }

    /// The items of this shard, in their original order.
    public func select(_ items: [InputFiles.Item]) -> [InputFiles.Item] {
        let shards = Self.assignment(items, count: count)
        return items.indices.filter { shards[$0] == index }.map { items[$0] }
    }
}
