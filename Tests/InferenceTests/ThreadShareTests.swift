import Foundation
@testable import Inference
import Synchronization
import XCTest

/// A plan runs on the process's `ThreadShare` (at most its own threads), read at each run, so an extract
/// worker's share can be raised mid-clip: the values are the same bit for bit on every share, and the scratch
/// and workers grow only when a share first needs them.
final class ThreadShareTests: XCTestCase {
    override func tearDown() {
        ThreadShare.reset()
        ThreadShare.resetUsage()
    }

    func testEveryShareGivesTheSameBits() throws {
        var withScratch = 0
        for (n, name) in (Fixtures.modelNames + Fixtures.poseModelNames + Fixtures.holisticModelNames).enumerated() {
            let model = try TFLiteModel(path: try Fixtures.modelPath(name))
            let inputs = SameBits.inputs(model, seed: UInt64(90 + n))
            ThreadShare.reset()
            ThreadShare.resetUsage()
            let one = try ExecutionPlan(model: model, threads: 1)
            let expected = try inputs.map { try SameBits.outputs(one, $0) }
            ThreadShare.set(1)
            let plan = try ExecutionPlan(model: model, threads: 4)
            let scratchAtOne = plan.scratchBytes
            // Raised and lowered between runs, as a worker's supervisor does mid-clip.
            for share in [1, 2, 4, 3, 1, 4] {
                ThreadShare.set(share)
                for (i, input) in inputs.enumerated() {
                    let found = try zip(SameBits.outputs(plan, input), expected[i]).map(SameBits.differing)
                    XCTAssertEqual(found.reduce(0) { $0 + $1.count }, 0, "\(name), share \(share), input \(i)")
                }
            }
            XCTAssertEqual(plan.scratchBytes, scratchAtOne * 4, "\(name): scratch for four threads once a share of four ran")
            if scratchAtOne > 0 { withScratch += 1 }
            XCTAssertEqual(ThreadShare.usage, 1...4, "\(name): the plan's runs noted")
            ThreadShare.resetUsage()
        }
        XCTAssertGreaterThan(withScratch, 5, "most models have scratch, so its growth was seen")
    }

    /// A plan made while the share is 1 starts no worker thread until a share lets it use them.
    func testWorkersStartWhenTheShareFirstNeedsThem() throws {
        let model = try TFLiteModel(path: try Fixtures.modelPath("hand_landmark_full"))
        let input = SameBits.inputs(model, seed: 99)[0]
        ThreadShare.set(1)
        let plan = try ExecutionPlan(model: model, threads: 4)
        try plan.run(input)
        XCTAssertEqual(plan.startedWorkers, 0)
        ThreadShare.set(2)
        try plan.run(input)
        XCTAssertEqual(plan.startedWorkers, 1)
        ThreadShare.set(9)
        try plan.run(input)
        XCTAssertEqual(plan.startedWorkers, 3, "never more than the plan's threads")
    }
}

/// The cores a process may use: its affinity, capped by a cgroup v2 quota.
final class UsableCoresTests: XCTestCase {
    func testAQuotaIsReadInWholeCoresRoundedUp() {
        XCTAssertEqual(UsableCores.cores(cpuMax: "200000 100000\n"), 2)
        XCTAssertEqual(UsableCores.cores(cpuMax: "150000 100000"), 2)
        XCTAssertEqual(UsableCores.cores(cpuMax: "50000 100000"), 1)
        for none in ["max 100000\n", "", "100000", "x 100000", "0 100000", "100000 0", "-5 100000"] {
            XCTAssertNil(UsableCores.cores(cpuMax: none), none)
        }
    }

    /// A thread allowed one CPU counts one core; the process's own count is at least 1 and at most the machine's.
    func testTheAffinityMaskIsCounted() throws {
        let all = UsableCores.count
        XCTAssertGreaterThanOrEqual(all, 1)
        XCTAssertLessThanOrEqual(all, ProcessInfo.processInfo.activeProcessorCount)
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
