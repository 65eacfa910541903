import Foundation
import XCTest
import Inference

/// Blocks run over bands of rows (`BlockStep`) give exactly the unfused plan's outputs: every value is
/// formed by the same kernel arithmetic, only the memory it passes through differs.
final class BlockFusionTests: XCTestCase {
    func testFusedBlocksEqualTheUnfusedPlanBitForBit() throws {
        for (n, name) in (Fixtures.modelNames + Fixtures.poseModelNames).enumerated() {
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
                    // The fused intermediates leave the arena, which held them at its peak in every hand
                    // model (the pose models peak elsewhere: in their decoders' upsampled maps).
                    if Fixtures.modelNames.contains(name) { XCTAssertLessThan(fused.arenaBytes, unfused.arenaBytes, name) }
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

    /// What is fused and what is not, on the models' own layers. hand_landmark_lite's 112x112x16 -> 64
    /// expansion is followed in the model by a max pool of the block's input (its residual), then by the
    /// block's depthwise convolution: the max pool, which reads nothing the expansion writes, runs first and
    /// the expansion joins its block, as the same expansion does in hand_landmark_full, where nothing lies
    /// between. Blocks whose tensors are below the size gate (28x28x144) stay unfused.
    func testBlocksFuseAcrossIndependentStepsAndNotBelowTheSizeGate() throws {
        func steps(_ name: String) throws -> [String] {
            let model = try TFLiteModel(path: try Fixtures.modelPath(name))
            let plan = try ExecutionPlan(model: model, threads: 1)
            return try plan.profile([Float](repeating: 0.5, count: plan.inputs[0].count)).map(\.step)
        }
        let lite = try steps("hand_landmark_lite"), full = try steps("hand_landmark_full")
        let expansion = "block conv 1x1/1 112x112x16 -> 112x112x64"
        let block = try XCTUnwrap(lite.firstIndex { $0.hasPrefix(expansion) }, lite.joined(separator: "\n"))
        XCTAssertEqual(lite[block - 1], "MaxPoolStep", lite.joined(separator: "\n"))
        XCTAssertFalse(lite.contains { $0.hasPrefix("conv 1x1/1 112x112x16 -> 112x112x64") }, lite.joined(separator: "\n"))
        XCTAssertTrue(lite.contains { $0.hasPrefix("depthwise 5x5/1 28x28x144") }, lite.joined(separator: "\n"))
        XCTAssertTrue(full.contains { $0.hasPrefix(expansion) }, full.joined(separator: "\n"))
    }

    /// The palm models' downsampling blocks: the model computes the block (depthwise 5x5/2, 1x1 to twice the
    /// channels), then its shortcut (a max pool of the block's input, padded with zero channels), then ADD
    /// and PRELU. The shortcut needs nothing of the block, so it runs first, and the ADD and PRELU join the
    /// projection's epilogue, which joins its block: no pass of their own over memory.
    func testShortcutsRunFirstSoAddAndPReLUJoinTheBlock() throws {
        for name in ["palm_detection_full", "palm_detection_lite"] {
            let model = try TFLiteModel(path: try Fixtures.modelPath(name))
            let plan = try ExecutionPlan(model: model, threads: 1)
            let steps = try plan.profile([Float](repeating: 0.5, count: plan.inputs[0].count)).map(\.step)
            let listing = steps.joined(separator: "\n")
            let block = try XCTUnwrap(steps.firstIndex { $0.hasPrefix("block depthwise 5x5/2 96x96x32 -> 48x48x32") }, listing)
            XCTAssertTrue(steps[block].hasSuffix("48x48x64 none +residual (bands of 32 rows)"), listing)
            XCTAssertEqual(Array(steps[(block - 2)...(block + 1)].map { $0.components(separatedBy: " ")[0] }),
                           ["MaxPoolStep", "PadStep", "block", "depthwise"], listing)
            // The other shortcuts (to 24x24x128 and 12x12x256, and to 6x6x256 without a pad) join their
            // convolutions, which the model's graph orders before them.
            for (depthwise, conv) in [("depthwise 5x5/2 48x48x64", "conv 1x1/1 24x24x64 -> 24x24x128 none +residual"),
                                      ("depthwise 5x5/2 24x24x128", "conv 1x1/1 12x12x128 -> 12x12x256 none +residual"),
                                      ("depthwise 5x5/2 12x12x256", "conv 1x1/1 6x6x256 -> 6x6x256 none +residual")] {
                let d = try XCTUnwrap(steps.firstIndex { $0.hasPrefix(depthwise) }, "\(name): \(depthwise)\n\(listing)")
                XCTAssertEqual(steps[d + 1], "MaxPoolStep", "\(name)\n\(listing)")
                let c = steps[d + 2] == "PadStep" ? d + 3 : d + 2
                XCTAssertEqual(steps[c], conv, "\(name)\n\(listing)")
            }
            XCTAssertFalse(steps.contains("PReluStep"), listing)
        }
    }
}
