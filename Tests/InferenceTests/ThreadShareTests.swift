import Foundation
@testable import Inference
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

    /// A twin reads the plan's packed constants with an arena of its own: the two run at once on two threads
    /// and each gives one plan's values, bit for bit, whatever the other is doing.
    func testATwinRunsBesideItsPlanWithTheSameBits() throws {
        for (n, name) in ["hand_landmark_full", "palm_detection_full"].enumerated() {
            let model = try TFLiteModel(path: try Fixtures.modelPath(name))
            let inputs = SameBits.inputs(model, seed: UInt64(120 + n))
            let plan = try ExecutionPlan(model: model, threads: 2)
            let expected = try inputs.map { try SameBits.outputs(plan, $0) }
            let twin = plan.twin(threads: 2)
            XCTAssertEqual(twin.arenaBytes, plan.arenaBytes)
            XCTAssertNotEqual(twin.output(0).baseAddress, plan.output(0).baseAddress, "\(name): an arena of its own")
            // Each runs a different input at the same time, many times over, on one thread each.
            let stage = StageThread<[[[Float]]]>()
            defer { stage.stop() }
            for round in 0..<4 {
                let (mine, theirs) = (inputs[round % inputs.count], inputs[(round + 1) % inputs.count])
                stage.start { try ThreadShare.capped(1) { try (0..<5).map { _ in try SameBits.outputs(twin, theirs) } } }
                let here = try ThreadShare.capped(1) { try (0..<5).map { _ in try SameBits.outputs(plan, mine) } }
                let there = try stage.wait().get()
                for out in here { XCTAssertEqual(out, expected[round % inputs.count], "\(name), round \(round): the plan") }
                for out in there { XCTAssertEqual(out, expected[(round + 1) % inputs.count], "\(name), round \(round): the twin") }
            }
        }
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

    /// A cap holds on the thread that set it, for that call only, below the share, and changes no value:
    /// two parts of a frame run at once, each on its half (`StageThread`).
    func testCapHoldsOnItsThreadOnly() throws {
        let model = try TFLiteModel(path: try Fixtures.modelPath("hand_landmark_full"))
        let input = SameBits.inputs(model, seed: 98)[0]
        let expected = try SameBits.outputs(try ExecutionPlan(model: model, threads: 1), input)
        // Made while the share is 1, so their workers start as runs first need them.
        ThreadShare.set(1)
        let plan = try ExecutionPlan(model: model, threads: 4), other = try ExecutionPlan(model: model, threads: 4)
        ThreadShare.set(4)
        ThreadShare.resetUsage()
        let capped = try ThreadShare.capped(1) { try SameBits.outputs(plan, input) }
        XCTAssertEqual(ThreadShare.usage, 1...1, "the capped run on one thread")
        XCTAssertEqual(plan.startedWorkers, 0)
        XCTAssertEqual(zip(capped, expected).map(SameBits.differing).reduce(0) { $0 + $1.count }, 0)
        // A second thread's plan, uncapped while the first thread holds its cap, takes the whole share.
        let stage = StageThread<[[Float]]>()
        defer { stage.stop() }
        let both = try ThreadShare.capped(2) { () throws -> [[Float]] in
            stage.start { try SameBits.outputs(other, input) }
            return try SameBits.outputs(plan, input)
        }
        XCTAssertEqual(plan.startedWorkers, 1, "capped at two: one worker beside the caller")
        XCTAssertEqual(zip(both, expected).map(SameBits.differing).reduce(0) { $0 + $1.count }, 0)
        let beside = try stage.wait().get()
        XCTAssertEqual(other.startedWorkers, 3, "the other thread's plan ran on the whole share")
        XCTAssertEqual(zip(beside, expected).map(SameBits.differing).reduce(0) { $0 + $1.count }, 0)
        // Past the call the cap is gone.
        _ = try SameBits.outputs(plan, input)
        XCTAssertEqual(plan.startedWorkers, 3)
    }
}
