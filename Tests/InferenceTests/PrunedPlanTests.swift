import Foundation
import XCTest
import Inference

/// A plan of some outputs only: the operators that feed none of them are left out, and the outputs kept
/// are the full plan's bit for bit (the pose landmark model without its segmentation head, as
/// `extract --body` plans it).
final class PrunedPlanTests: XCTestCase {
    func testOutputsKeptEqualTheFullPlanAndTheRestIsNotComputed() throws {
        let model = try TFLiteModel(path: try Fixtures.modelPath("pose_landmark_full"))
        let kept: Set<Int> = [0, 1, 3, 4]   // landmarks, pose flag, heatmap, world landmarks; not the segmentation
        let inputs = SameBits.inputs(model, seed: 77)
        for threads in [1, 2] {
            let full = try ExecutionPlan(model: model, threads: threads)
            let pruned = try ExecutionPlan(model: TFLiteModel(path: try Fixtures.modelPath("pose_landmark_full")), threads: threads, outputs: kept)
            XCTAssertLessThan(pruned.stepCount, full.stepCount)
            XCTAssertLessThan(pruned.multiplyAdds, full.multiplyAdds, "the segmentation head's multiply-adds are left out")
            for input in inputs {
                try full.run(input)
                try pruned.run(input)
                for o in kept.sorted() {
                    let differing = SameBits.differing(Array(pruned.output(o)), Array(full.output(o))).count
                    XCTAssertEqual(differing, 0, "\(threads) threads, output \(o)")
                }
            }
        }
        // Keeping every output plans every operator.
        let all = try ExecutionPlan(model: model, threads: 1, outputs: Set(0..<5))
        XCTAssertEqual(all.stepCount, try ExecutionPlan(model: model, threads: 1).stepCount)
    }
}
