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
}
