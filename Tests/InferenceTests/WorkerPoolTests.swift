import Foundation
@testable import Inference
import Synchronization
import XCTest

/// `WorkerPool.run` returns only when every part has run, whether its wait ended while spinning,
/// yielding or sleeping.
final class WorkerPoolTests: XCTestCase {
    func testEveryPartRunsOnceAndRunWaitsForTheSlowest() {
        // More threads than this machine's cores (2 on the test machines), so workers are descheduled.
        let pool = WorkerPool(workers: 5)
        defer { pool.stop() }
        let counts = Mutex([Int](repeating: 0, count: 6))
        for _ in 0..<2_000 {
            pool.run { part in counts.withLock { $0[part] += 1 } }
        }
        XCTAssertEqual(counts.withLock { $0 }, Array(repeating: 2_000, count: 6))

        // One part far slower than the spin and the yields: `run` must reach its sleeping steps and
        // still see that part finish before it returns.
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
}
