import Foundation
@testable import Inference
import Synchronization
import XCTest

/// The cores a process may use: its affinity, capped by a cgroup v2 quota.
final class UsableCoresTests: XCTestCase {
    func testAQuotaIsReadInWholeCoresRoundedUp() {
        XCTAssertEqual(UsableCores.cores(cpuMax: "200000 100000\n"), 2)
        XCTAssertEqual(UsableCores.cores(cpuMax: "150000 100000"), 2)
        XCTAssertEqual(UsableCores.cores(cpuMax: "50000 100000"), 1)
        XCTAssertEqual(UsableCores.cores(cpuMax: "\(Int.max) 100000"), Int.max / 100000 + 1, "no overflow on a number from outside")
        for none in ["max 100000\n", "", "100000", "x 100000", "0 100000", "100000 0", "-5 100000", "-1 100000"] {
            XCTAssertNil(UsableCores.cores(cpuMax: none), none)
        }
    }

    /// A thread allowed one CPU counts one core; the process's own count is at least 1 and at most the machine's.
    func testTheAffinityMaskIsCounted() throws {
        let all = UsableCores.count
        XCTAssertGreaterThanOrEqual(all, 1)
        XCTAssertLessThanOrEqual(all, sysconf(Int32(_SC_NPROCESSORS_ONLN)), "at most the machine's online CPUs")
        let seen = Mutex<Int?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            // The first CPU this thread may run on, alone.
            var mask = [UInt8](repeating: 0, count: 1 << 13)
            guard mask.withUnsafeMutableBytes({ getAffinity(0, $0.count, $0.baseAddress!) }) == 0,
                  let byte = mask.firstIndex(where: { $0 != 0 }) else { done.signal(); return }
            let bit = mask[byte].trailingZeroBitCount
            mask = [UInt8](repeating: 0, count: mask.count)
            mask[byte] = 1 << bit
            if mask.withUnsafeBytes({ setAffinity(0, $0.count, $0.baseAddress!) }) == 0 { seen.withLock { $0 = UsableCores.count } }
            done.signal()
        }
        thread.start()
        done.wait()
        let one = try XCTUnwrap(seen.withLock { $0 }, "sched_setaffinity refused one CPU of this thread's own")
        XCTAssertEqual(one, 1)
    }
}
