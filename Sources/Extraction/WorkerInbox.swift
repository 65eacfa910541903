import Foundation
import Inference

/// A worker's input, read on a thread of its own so that a share of the cores reaches the engine mid-file:
/// job lines wait in order for `next`; share lines (`share N`, `CoreShares`) set `ThreadShare` as they arrive,
/// capped at `threads` (what the plans are made for). A share line that is not a whole number of at least 1 is
/// ignored: the engine keeps its share. Unchecked: `jobs` and `closed` are read and written under `condition`.
final class WorkerInbox: @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [String] = []
    private var closed = false
    private let threads: Int
    private let readLine: @Sendable () -> String?

    init(readLine: @escaping @Sendable () -> String?, threads: Int) {
        self.threads = max(1, threads)
        self.readLine = readLine
    }

    /// Starts reading, until the input ends.
    func start() {
        let reader = Thread { [self] in
            while let line = readLine() { take(line) }
            condition.withLock { closed = true; condition.broadcast() }
        }
        reader.stackSize = 1 << 20
        reader.start()
    }

    /// One line of input: a share, applied now, or a job, queued.
    func take(_ line: String) {
        if line.hasPrefix(ExtractionWorker.sharePrefix) {
            if let n = Int(line.dropFirst(ExtractionWorker.sharePrefix.count)), n >= 1 { ThreadShare.set(min(n, threads)) }
            return
        }
        condition.withLock { jobs.append(line); condition.signal() }
    }

    /// The next job's line, waiting for it; nil once the input has ended and every job was taken.
    func next() -> String? {
        condition.withLock {
            while jobs.isEmpty && !closed { condition.wait() }
            return jobs.isEmpty ? nil : jobs.removeFirst()
        }
    }
}
