import Foundation
import XCTest
import Inference

/// Blocks run over bands of rows (`BlockStep`) give exactly the unfused plan's outputs: every value is
/// formed by the same kernel arithmetic, only the memory it passes through differs.
final class BlockFusionTests: XCTestCase {
    func testFusedBlocksEqualTheUnfusedPlanBitForBit() throws {
        for (n, name) in Fixtures.modelNames.enumerated() {
            let model = try TFLiteModel(path: try Fixtures.modelPath(name))
            var rng = SeededRandom(UInt64(40 + n))
            let inputs = [rng.floats(model.tensors[model.inputs[0]].count, in: 0...1),
                          rng.floats(model.tensors[model.inputs[0]].count, in: -1...1)]
            for kernels in TestedKernels.all {
                let isa = TestedKernels.label(kernels)
                let unfused = try ExecutionPlan(model: model, threads: 1, fusingBlocks: false, kernelSet: kernels)
                var expected: [[[Float]]] = []
                for input in inputs {
                    try unfused.run(input)
                    expected.append((0..<unfused.outputs.count).map { Array(unfused.output($0)) })
                }
                // Three threads split the rows unevenly (56 / 3), so bands start mid-way and threads
                // expand the rows they share.
                for threads in [1, 2, 3] {
                    let fused = try ExecutionPlan(model: model, threads: threads, kernelSet: kernels)
                    XCTAssertLessThan(fused.stepCount, unfused.stepCount, "\(name): no block was fused")
                    // The fused intermediates leave the arena (hand_landmark_lite's peak is elsewhere).
                    XCTAssertLessThanOrEqual(fused.arenaBytes, unfused.arenaBytes, name)
                    if name.hasSuffix("full") { XCTAssertLessThan(fused.arenaBytes, unfused.arenaBytes, name) }
                    // Each input twice: a run must not depend on what an earlier run left in the scratch.
                    for (i, input) in (inputs + inputs).enumerated() {
                        try fused.run(input)
                        for o in 0..<fused.outputs.count {
                            let ours = Array(fused.output(o)), theirs = expected[i % inputs.count][o]
                            let differing = zip(ours, theirs).filter { $0.bitPattern != $1.bitPattern }.count
                            XCTAssertEqual(differing, 0, "\(name) [\(isa)] \(threads) threads, input \(i), output \(o): \(differing) of \(ours.count) differ")
                        }
                    }
                }
            }
        }
    }
}
