/// Splits a kernel's work into a fixed number of parts, one per thread. Each part gets a contiguous range
/// and a slot number (0..<threads, its index) that indexes scratch memory; whichever thread claims a part
/// (`WorkerPool`), its range and slot, and so its results, are the same.
struct Parallel {
    let threads: Int
    /// Persistent workers (`threads - 1` of them), which every plan of more than one thread has.
    var pool: WorkerPool? = nil

    /// Runs `body` over `0..<count` in up to `threads` parts; `cost` (multiply-adds or bytes) below
    /// about 100k runs on the calling thread, where handing work to another core costs more than it saves.
    /// Only the plan's own threads run it, never Dispatch's pool: Dispatch's pool monitor reads /proc and
    /// stops the process where there is none (StopSignal in Extraction says more); with fewer parts than
    /// threads, the parts numbered from `parts` on are empty, whoever claims them.
    func split(_ count: Int, cost: Int, _ body: (Range<Int>, Int) -> Void) {
        let parts = min(threads, count)
        guard parts > 1, cost >= 100_000, let pool else {
            body(0..<count, 0)
            return
        }
        withoutActuallyEscaping(body) { body in
            let work = PartitionedWork(body: body)
            pool.run { p in
                if p < parts { work.body((count * p / parts)..<(count * (p + 1) / parts), p) }
            }
        }
    }
}

/// A kernel's body run by several threads at once: each part writes only its own range and its own slot's
/// scratch, a partition the compiler cannot see, hence unchecked (the pool's run returns before `split`).
private struct PartitionedWork: @unchecked Sendable {
    let body: (Range<Int>, Int) -> Void
}
