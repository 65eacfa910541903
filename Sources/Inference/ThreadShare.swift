import Synchronization

/// The engine threads each plan of this process may run on at a time, at most the plan's own `threads`:
/// an extract worker's share of the cores, which its supervisor raises when other workers have no files
/// left and their cores would idle (`ExtractionPipeline`). Unset, every plan runs on its own `threads`.
///
/// A plan reads the share as each run begins. The values never depend on it: a part's range and scratch
/// slot are its index's, and every value is formed the same way whichever split computes it, so a share
/// raised in the middle of a clip changes no value (`ThreadShareTests`).
public enum ThreadShare {
    private static let value = Atomic<Int>(.max)

    /// The threads a plan may use now (`Int.max`: unset).
    public static var current: Int { value.load(ordering: .relaxed) }

    /// Sets the share (at least 1), from the next run of each plan on.
    public static func set(_ threads: Int) { value.store(max(1, threads), ordering: .relaxed) }

    /// Back to unset: every plan on its own `threads`.
    public static func reset() { value.store(.max, ordering: .relaxed) }

    private static let fewest = Atomic<Int>(.max), most = Atomic<Int>(0)

    /// The fewest and most threads the plans of this process ran on since `resetUsage` (nil: no run since),
    /// what an extract worker reports for each file.
    public static var usage: ClosedRange<Int>? {
        let low = fewest.load(ordering: .relaxed), high = most.load(ordering: .relaxed)
        return high == 0 ? nil : min(low, high)...high
    }

    /// Forgets the runs so far (an extract worker, as each file begins).
    public static func resetUsage() {
        fewest.store(.max, ordering: .relaxed)
        most.store(0, ordering: .relaxed)
    }

    /// At most this many threads for each plan run on the calling thread while `capped` runs: for a caller
    /// that runs two parts of its work at once, each part's plans on its own share (`HolisticTracker`).
    @TaskLocal static var cap = Int.max

    /// Runs `body` with each plan it runs on this thread on at most `threads` threads (at least 1), below the
    /// process's share. Values do not depend on it, as they do not on the share.
    /// A cap inside another keeps the smaller.
    public static func capped<R>(_ threads: Int, _ body: () throws -> R) rethrows -> R {
        try $cap.withValue(min(cap, max(1, threads)), operation: body)
    }

    /// The threads a plan run on this thread may use now: the share, under the caller's cap.
    public static var forThisThread: Int { min(current, cap) }

    /// A plan ran on `threads` threads, or a caller ran plans on that many at once (`capped`). The figures
    /// seldom change, so a run usually costs two loads.
    public static func noteRun(_ threads: Int) {
        var low = fewest.load(ordering: .relaxed)
        while threads < low {
            let (done, now) = fewest.compareExchange(expected: low, desired: threads, ordering: .relaxed)
            if done { break }
            low = now
        }
        var high = most.load(ordering: .relaxed)
        while threads > high {
            let (done, now) = most.compareExchange(expected: high, desired: threads, ordering: .relaxed)
            if done { break }
            high = now
        }
    }
}
