import Foundation

/// One part of a run split across machines: shard `index` of `count` (from 0). Every input goes to
/// exactly one shard, decided from the inputs' relative paths and file sizes alone, so every machine
/// that sees the same inputs computes the same split, and the union of all shards' outputs is the
/// output of one run.
public struct Shard: Equatable, Sendable, CustomStringConvertible {
    public var index: Int
    public var count: Int

    public init(index: Int, count: Int) { self.index = index; self.count = count }

    public var description: String { "\(index)/\(count)" }

    /// Parses `I/N`, `auto` or `auto/N`. With `auto` the index is the Slurm array task's
    /// SLURM_ARRAY_TASK_ID (submit arrays as --array=0-(N-1)) or Kubernetes' JOB_COMPLETION_INDEX. The
    /// count is N of `auto/N`; else `recorded`, the count an earlier sharded run into the same output
    /// folder used (so resubmitting only task 3, whose array holds one task, still splits N ways); else,
    /// for a whole array from 0 (SLURM_ARRAY_TASK_MIN 0, SLURM_ARRAY_TASK_MAX = COUNT - 1), its size.
    /// An array that disagrees with the recorded count is refused rather than split another way.
    public static func parse(_ text: String, recorded: Int? = nil,
                             environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Shard {
        func fail(_ reason: String) -> ExtractionError { .input(path: "--shard \(text)", reason: reason) }
        func number(_ name: String) throws -> Int? {
            guard let v = environment[name] else { return nil }
            guard let n = Int(v.trimmingCharacters(in: .whitespaces)) else { throw fail("\(name)=\(v) is not a number") }
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
                let whole = min == 0 && max != nil && size == max! + 1 ? size : nil
                if let recorded {
                    if let whole, whole != recorded {
                        throw fail("the output folder was split \(recorded) ways by an earlier run, but this array has \(whole) tasks; give auto/\(recorded) to go on, or auto/\(whole) to split anew")
                    }
                    count = recorded
                } else if let whole {
                    count = whole
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
        guard (0..<count).contains(index) else { throw fail("shard \(index) is not one of 0 to \(count - 1)") }
        return Shard(index: index, count: count)
    }

    /// Where a sharded run records its shard count in the output folder.
    public static func recordURL(in root: URL) -> URL { root.appendingPathComponent(".handpose-shards") }

    /// The shard count recorded in `root`, if any.
    public static func recorded(in root: URL) -> Int? {
        (try? String(contentsOf: recordURL(in: root), encoding: .utf8)).flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    /// Records this shard count in `root` (a temporary name, then a rename: concurrent tasks write the same).
    public func record(in root: URL) {
        let url = Self.recordURL(in: root)
        let temporary = root.appendingPathComponent(".handpose-shards.\(getpid()).partial")
        if (try? Data("\(count)\n".utf8).write(to: temporary)) != nil, rename(temporary.path, url.path) != 0 {
            try? FileManager.default.removeItem(at: temporary)
        }
    }

    /// The shard of each item, balanced by bytes: largest files first (ties by relative path), each to
    /// the shard with the fewest bytes so far (ties to the lowest index).
    public static func assignment(_ items: [InputFiles.Item], count: Int) -> [Int] {
        let sizes = items.map { item -> UInt64 in
            var s = stat()
            return stat(item.url.path, &s) == 0 ? UInt64(s.st_size) : 0
        }
        let order = items.indices.sorted { a, b in
            sizes[a] != sizes[b] ? sizes[a] > sizes[b] : items[a].relative < items[b].relative
        }
        var load = [UInt64](repeating: 0, count: count)
        var shard = [Int](repeating: 0, count: items.count)
        for i in order {
            let target = load.indices.min { load[$0] != load[$1] ? load[$0] < load[$1] : $0 < $1 }!
            shard[i] = target
            load[target] += max(sizes[i], 1)
        }
        return shard
    }

    /// The items of this shard, in their original order.
    public func select(_ items: [InputFiles.Item]) -> [InputFiles.Item] {
        let shards = Self.assignment(items, count: count)
        return items.indices.filter { shards[$0] == index }.map { items[$0] }
    }
}
