import Foundation

/// The cores of a run dealt among its workers' engines: an equal share each (the remainder one core each
/// to the first), and when a worker has no file left, its cores dealt among the workers still working, told
/// mid-file (`share N` on their input; `ThreadShare` in the worker). So a run with fewer files than cores,
/// or whose last files are long, keeps every core busy, where a job per core had left the cores of finished
/// jobs idle until the last file ended. A file's values do not depend on its share.
/// A share line is written under `lock`, so each worker hears its shares in order; it is a few bytes into a
/// pipe the worker's inbox thread always reads (`WorkerInbox`), so the write does not wait.
/// Unchecked: every field is read and written under `lock`.
final class CoreShares: @unchecked Sendable {
    let cores: Int
    private let lock = NSLock()
    /// Supervisors still taking files, by slot; the workers they hold and the share each was last told.
    private var working: Set<Int>
    private var workers: [Int: any ShareListener] = [:]
    private var told: [Int: Int] = [:]

    init(cores: Int, slots: Int) {
        self.cores = max(1, cores)
        working = Set(0..<slots)
    }

    /// `cores` dealt among `count` workers: equal shares, the remainder one each to the first, at least 1.
    static func deal(_ cores: Int, among count: Int) -> [Int] {
        guard count > 0 else { return [] }
        return (0..<count).map { max(1, cores / count + ($0 < cores % count ? 1 : 0)) }
    }

    /// The share of the worker in `slot` now.
    func share(_ slot: Int) -> Int {
        lock.withLock { shareLocked(slot) }
    }

    private func shareLocked(_ slot: Int) -> Int {
        let order = working.sorted()
        guard let rank = order.firstIndex(of: slot) else { return 1 }
        return Self.deal(cores, among: order.count)[rank]
    }

    /// `worker` now serves `slot`, started with `share`; told the share now if a worker has left since.
    func attach(_ worker: any ShareListener, to slot: Int, share: Int) {
        lock.withLock {
            workers[slot] = worker
            told[slot] = share
            let now = shareLocked(slot)
            if now != share {
                told[slot] = now
                worker.tell(share: now)
            }
        }
    }

    /// The worker of `slot` is gone (it died, or its supervisor is done).
    func detach(_ slot: Int) {
        lock.withLock { workers[slot] = nil; told[slot] = nil }
    }

    /// The supervisor of `slot` takes no more files: its cores go to the workers still working, each told
    /// its new share.
    func leave(_ slot: Int) {
        lock.withLock {
            working.remove(slot)
            workers[slot] = nil
            told[slot] = nil
            for (s, worker) in workers {
                let share = shareLocked(s)
                if told[s] != share {
                    told[s] = share
                    worker.tell(share: share)
                }
            }
        }
    }
}

/// What hears its share of the cores: a worker process (`WorkerProcess.tell`).
protocol ShareListener: AnyObject {
    func tell(share: Int)
}

extension WorkerProcess: ShareListener {}
