import Foundation
import XCTest
import Inference

/// Each of the four hand models against the official TFLite interpreter, on seeded random input.
final class ModelParityTests: XCTestCase {
    func check(_ name: String, seed: UInt64) throws {
        let path = try Fixtures.modelPath(name)
        let plan = try ExecutionPlan(model: try TFLiteModel(path: path), threads: 2)
        var rng = SeededRandom(seed)
        let input = rng.floats(plan.inputs[0].count, in: 0...1)
        try plan.run(input)
        let reference = try Fixtures.reference(model: path, input: input, outputs: plan.outputs.count)
        for (i, ref) in reference.enumerated() {
            let ours = Array(plan.output(i))
            XCTAssertEqual(ours.count, ref.count, "\(name) output \(i) size")
            let diff = zip(ours, ref).map { abs($0 - $1) }.max() ?? 0
            let scale = ref.map(abs).max() ?? 0
            print("parity \(name) output \(i) '\(plan.outputs[i].name)' \(plan.outputs[i].shape): max |diff| \(diff) (max |ref| \(scale))")
            XCTAssertLessThan(diff, 1e-3 * max(1, scale / 224), "\(name) output \(i)")
        }
    }

    /// The activation arena against the ideal the issue gives (the largest set of tensors alive at once):
    /// about 3.4 MiB for palm_detection_full and 3.8 MiB for hand_landmark_full.
    func testArenasAreNearTheIdeal() throws {
        for (name, limit) in [("palm_detection_full", 3.4), ("hand_landmark_full", 3.85)] {
            let plan = try ExecutionPlan(model: try TFLiteModel(path: try Fixtures.modelPath(name)), threads: 1)
            let mib = Double(plan.arenaBytes) / 1_048_576
            print(String(format: "arena %@: %.2f MiB", name, mib))
            XCTAssertLessThanOrEqual(mib, limit, name)
        }
    }

    func testPalmFull() throws { try check("palm_detection_full", seed: 1) }
    func testPalmLite() throws { try check("palm_detection_lite", seed: 2) }
    func testLandmarkFull() throws { try check("hand_landmark_full", seed: 3) }
    func testLandmarkLite() throws { try check("hand_landmark_lite", seed: 4) }
}
