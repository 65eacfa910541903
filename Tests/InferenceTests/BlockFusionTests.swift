import Foundation
import XCTest
import Inference

/// Blocks run over bands of rows (`BlockStep`) give exactly the unfused plan's outputs: every value is
/// formed by the same kernel arithmetic, only the memory it passes through differs.
final class BlockFusionTests: XCTestCase {
    func testFusedBlocksEqualTheUnfusedPlanBitForBit() throws {
        for (n, name) in Fixtures.modelNames.enumerated() {
            let model = try TFLiteModel(path: try Fixtures.modelPath(name))
            let inputs = SameBits.inputs(model, seed: UInt64(40 + n))
            for kernels in TestedKernels.all {
                let isa = TestedKernels.label(kernels)
                let unfused = try TestedKernels.plan(model, threads: 1, kernels: kernels, fusingBlocks: false)
                let expected = try inputs.map { try SameBits.outputs(unfused, $0) }
                // Three threads split the rows unevenly (56 / 3), so bands start mid-way and threads
                // expand the rows they share.
                for threads in [1, 2, 3] {
                    let fused = try TestedKernels.plan(model, threads: threads, kernels: kernels)
                    XCTAssertLessThan(fused.stepCount, unfused.stepCount, "\(name): no block was fused")
                    // The fused intermediates leave the arena (hand_landmark_lite's peak is elsewhere).
                    XCTAssertLessThanOrEqual(fused.arenaBytes, unfused.arenaBytes, name)
                    if name.hasSuffix("full") { XCTAssertLessThan(fused.arenaBytes, unfused.arenaBytes, name) }
                    // Each input twice: a run must not depend on what an earlier run left in the scratch.
                    for (i, input) in (inputs + inputs).enumerated() {
                        for (o, ours) in try SameBits.outputs(fused, input).enumerated() {
                            let differing = SameBits.differing(ours, expected[i % inputs.count][o]).count
                            XCTAssertEqual(differing, 0, "\(name) [\(isa)] \(threads) threads, input \(i), output \(o): \(differing) of \(ours.count) differ")
                        }
                    }
                }
            }
        }
    }

    /// What is not fused, on the models' own layers: an expansion another step also reads (hand_landmark_lite's
    /// 112x112x64, read by a max pool too) stays a step of its own, as do blocks whose tensors are below
    /// the size gate (28x28x144); the same expansion in hand_landmark_full, read by its block alone, is fused.
    func testSharedOrSmallIntermediatesStayUnfused() throws {
        func steps(_ name: String) throws -> [String] {
            let model = try TFLiteModel(path: try Fixtures.modelPath(name))
            let plan = try ExecutionPlan(model: model, threads: 1)
            return try plan.profile([Float](repeating: 0.5, count: plan.inputs[0].count)).map(\.step)
        }
        let lite = try steps("hand_landmark_lite"), full = try steps("hand_landmark_full")
        let sharedExpansion = "conv 1x1/1 112x112x16 -> 112x112x64"
        XCTAssertTrue(lite.contains { $0.hasPrefix(sharedExpansion) }, lite.joined(separator: "\n"))
        XCTAssertFalse(lite.contains { $0.hasPrefix("block") && $0.contains(sharedExpansion) }, lite.joined(separator: "\n"))
        XCTAssertTrue(lite.contains { $0.hasPrefix("depthwise 5x5/1 28x28x144") }, lite.joined(separator: "\n"))
        XCTAssertTrue(full.contains { $0.hasPrefix("block \(sharedExpansion)") }, full.joined(separator: "\n"))
    }
}
