import Foundation
@testable import Inference
import Synchronization
import XCTest

/// `WorkerPool.run` runs every part once and returns only when every part has run, whether its wait ended
/// while spinning, yielding or sleeping; parts no worker has claimed the caller runs itself.
final class WorkerPoolTests: XCTestCase {
    func testEveryPartRunsOnceAndRunWaitsForTheSlowest() {
        // More threads than this machine's cores (2 on the test machines), so workers are descheduled.
        let pool = WorkerPool(workers: 5)
        defer { pool.stop() }
        let counts = Mutex([Int](repeating: 0, count: 6))
        // Parts 1-5 the calling thread ran itself (no worker had claimed them yet).
        let caller = pthread_self(), byCaller = Mutex(0)
        for _ in 0..<2_000 {
            pool.run { part in
                counts.withLock { $0[part] += 1 }
                if part > 0 && pthread_equal(pthread_self(), caller) != 0 { byCaller.withLock { $0 += 1 } }
            }
        }
        XCTAssertEqual(counts.withLock { $0 }, Array(repeating: 2_000, count: 6))
        // Five workers on this machine's two cores are often not running when a task is handed out: the
        // caller takes their parts rather than wait (on any machine, the first run's workers are still starting).
        XCTAssertGreaterThan(byCaller.withLock { $0 }, 0, "the caller ran no part but its own")

        // One part far slower than the spin and the yields: when a worker has claimed it, `run` reaches its
        // sleeping steps and must still see that part finish before it returns.
        let finished = Atomic<Int>(0)
        for slow in [0, 3] {
            finished.store(0, ordering: .relaxed)
            pool.run { part in
                if part == slow || part == 5 { usleep(30_000) }
                finished.add(1, ordering: .releasing)
            }
            XCTAssertEqual(finished.load(ordering: .acquiring), 6, "slow part \(slow)")
        }
    }

    /// Between model runs (`park`) the workers go to sleep; `wake` before a run, and the run itself, find every
    /// part run once; a pool stopped right after a `wake` ends.
    func testParkedWorkersSleepAndAWakeOrARunBringsThemBack() {
        let pool = WorkerPool(workers: 3)
        let counts = Mutex([Int](repeating: 0, count: 4))
        for round in 0..<50 {
            pool.park()
            usleep(round % 5 == 0 ? 10_000 : 100)   // long enough, every fifth round, for them to sleep
            if round % 2 == 0 { pool.wake() }
            pool.run { part in counts.withLock { $0[part] += 1 } }
        }
        XCTAssertEqual(counts.withLock { $0 }, Array(repeating: 50, count: 4))
        pool.park()
        usleep(10_000)
        pool.wake()
        pool.stop()
    }

    /// A share (`setActive`) lets that many workers take part from the next task on: each task's parts are
    /// 1...active, each run once; workers are started only when first let in.
    func testTheActiveWorkersTakePartAndTheOthersSleep() {
        let pool = WorkerPool(workers: 5, active: 0)
        defer { pool.stop() }
        XCTAssertEqual(pool.started, 0, "no worker started before one is let in")
        for active in [0, 2, 5, 1, 3, 0, 4] {
            pool.setActive(active)
            let counts = Mutex([Int](repeating: 0, count: 6))
            let threads = Mutex(Set<UInt>())
            for run in 0..<500 {
                pool.run { part in
                    counts.withLock { $0[part] += 1 }
                    threads.withLock { _ = $0.insert(UInt(pthread_self())) }
                }
            }
            XCTAssertEqual(counts.withLock { $0 }, (0...5).map { $0 <= active ? 500 : 0 }, "active \(active)")
            // With no worker let in, a task has no part but the caller's: no worker can run one, even one late
            // from an earlier task (a part's number and the task's count are claimed as one word). With some
            // let in, a worker left out may still take a part it was claiming when the share fell, so only
            // the count of parts is exact there.
            if active == 0 { XCTAssertEqual(threads.withLock { $0.count }, 1, "only the caller") }
        }
        XCTAssertEqual(pool.started, 5, "started once each, when first let in")
    }
}
