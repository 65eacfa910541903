import Dispatch

/// Splits a kernel's work over a fixed number of threads. Each part gets a contiguous range and
/// a slot number (0..<threads) that indexes per-thread scratch memory.
struct Parallel {
    let threads: Int
    /// Persistent workers (`threads - 1` of them); without it, work goes to Foundation's pool.
    var pool: WorkerPool? = nil

    /// Runs `body` over `0..<count` in up to `threads` parts; `cost` (multiply-adds or bytes) below
    /// about 100k runs on the calling thread, where handing work to another core costs more than it saves.
    func split(_ count: Int, cost: Int, _ body: (Range<Int>, Int) -> Void) {
        let parts = min(threads, count)
        if parts <= 1 || cost < 100_000 {
            body(0..<count, 0)
            return
        }
        if let pool, parts == pool.workers + 1 {
            pool.run { p in body((count * p / parts)..<(count * (p + 1) / parts), p) }
            return
        }
        withoutActuallyEscaping(body) { body in
            let work = PartitionedWork(body: body)
            DispatchQueue.concurrentPerform(iterations: parts) { p in
                work.body((count * p / parts)..<(count * (p + 1) / parts), p)
            }
        }
    }
}

/// A kernel's body run by several threads at once: each part writes only its own range and its own slot's
/// scratch, a partition the compiler cannot see, hence unchecked (concurrentPerform returns before `split`).
private struct PartitionedWork: @unchecked Sendable {
    let body: (Range<Int>, Int) -> Void
}
