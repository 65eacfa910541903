import Foundation
import XCTest
import Inference

/// Each of the four hand models, the two pose models and Holistic's face and re-crop models against the official TFLite interpreter, on seeded random input,
/// with every kernel variant this CPU runs (KernelTests names the ones it cannot).
final class ModelParityTests: XCTestCase {
    /// `relative`: outputs are held to 1e-3 of their largest value rather than of the landmark scale (the
    /// pose landmark model's segmentation and heatmap logits reach 1,500 on random input, where float
    /// rounding in a deep decoder moves them by a few 1e-4 of that).
    func check(_ name: String, seed: UInt64, relative: Bool = false) throws {
        let path = try Fixtures.modelPath(name)
        let model = try TFLiteModel(path: path)
        var rng = SeededRandom(seed)
        let input = rng.floats(model.tensors[model.inputs[0]].count, in: 0...1)
        var reference: [[Float]]?
        for kernels in TestedKernels.all {
            let isa = TestedKernels.label(kernels)
            let plan = try TestedKernels.plan(model, threads: 2, kernels: kernels)
            XCTAssertEqual(plan.isa, kernels.isa)
            try plan.run(input)
            if reference == nil { reference = try Fixtures.reference(model: path, input: input, outputs: plan.outputs.count) }
            for (i, ref) in reference!.enumerated() {
                let ours = Array(plan.output(i))
                XCTAssertEqual(ours.count, ref.count, "\(name) output \(i) size")
                let diff = zip(ours, ref).map { abs($0 - $1) }.max() ?? 0
                let scale = ref.map(abs).max() ?? 0
                print("parity \(name) [\(isa)] output \(i) '\(plan.outputs[i].name)' \(plan.outputs[i].shape): max |diff| \(diff) (max |ref| \(scale))")
                XCTAssertLessThan(diff, relative ? 1e-3 * max(1, scale) : 1e-3 * max(1, scale / 224), "\(name) [\(isa)] output \(i)")
            }
        }
    }

    /// The kernels with fused multiply-add (AVX2; AVX-512, run as built where the CPU has it and built
    /// for AVX2 everywhere else, in both tilings) give the same outputs bit for bit on the models: every
    /// output value is accumulated in the same order, whatever the vector width and tile shape. So keypoints
    /// made on an AVX-512 node and an AVX2 node of a cluster are the same, not merely close.
    func testFusedMultiplyAddVariantsGiveTheSameBits() throws {
        let fused = TestedKernels.all.filter { $0.isa != .baseline }
        // Every x86-64 CPU with AVX2 runs three: AVX2, and the AVX-512 code (as built or built for AVX2) in each
        // of its two tilings.
        #if arch(x86_64)
        if KernelSelection.runnable.contains(.avx2) { XCTAssertEqual(fused.count, 1 + GemmTiling.allCases.count, "\(fused.map(TestedKernels.label))") }
        #endif
        guard fused.count > 1 else {
            print("SKIP: this CPU runs \(fused.count) kernel set with fused multiply-add; nothing to compare")
            throw XCTSkip("fewer than two fused multiply-add kernel sets here")
        }
        for (n, name) in (Fixtures.modelNames + Fixtures.poseModelNames + Fixtures.holisticModelNames).enumerated() {
            let model = try TFLiteModel(path: try Fixtures.modelPath(name))
            let inputs = SameBits.inputs(model, seed: UInt64(70 + n))
            let reference = try TestedKernels.plan(model, threads: 1, kernels: fused[0])
            let expected = try inputs.map { try SameBits.outputs(reference, $0) }
            for kernels in fused.dropFirst() {
                for threads in [1, 2] {
                    let plan = try TestedKernels.plan(model, threads: threads, kernels: kernels)
                    for (i, input) in inputs.enumerated() {
                        let found = try zip(SameBits.outputs(plan, input), expected[i]).map(SameBits.differing)
                        let differing = found.reduce(0) { $0 + $1.count }, largest = found.map(\.largest).max() ?? 0
                        let label = "\(name) \(TestedKernels.label(kernels)) against \(TestedKernels.label(fused[0])), \(threads) threads, input \(i)"
                        print("same bits \(label): \(differing) values differ (largest \(largest))")
                        XCTAssertEqual(differing, 0, label)
                    }
                }
            }
        }
    }

    /// HANDPOSE_MAX_ISA caps the choice; an unknown value is an error naming the variable.
    func testMaxISACapsTheChoice() throws {
        XCTAssertEqual(try KernelSelection.best(environment: ["HANDPOSE_MAX_ISA": "baseline"]), .baseline)
        XCTAssertEqual(try KernelSelection.best(environment: [:]), KernelSelection.runnable.last)
        XCTAssertEqual(try KernelSelection.best(environment: ["HANDPOSE_MAX_ISA": "avx512"]), KernelSelection.runnable.last)
        if KernelSelection.runnable.contains(.avx2) {
            XCTAssertEqual(try KernelSelection.best(environment: ["HANDPOSE_MAX_ISA": "AVX2"]), .avx2)
        }
        XCTAssertThrowsError(try KernelSelection.best(environment: ["HANDPOSE_MAX_ISA": "sse9"])) { error in
            XCTAssertTrue("\(error)".contains("HANDPOSE_MAX_ISA=sse9"), "\(error)")
        }
        for isa in ISA.allCases where !KernelSelection.runnable.contains(isa) {
            XCTAssertThrowsError(try KernelSelection.kernels(isa))
        }
    }

    /// The AVX-512 tiling is the CPU's (Zen 4: 12x16, which reached 95% of its peak there; others 6x32) unless
    /// HANDPOSE_GEMM_TILING names one; an unknown name is an error naming the variable.
    func testTheGemmTilingSuitsTheCPUOrTheEnvironment() throws {
        func cpu(_ vendor: String, _ family: Int, _ model: Int) -> CPUDescription {
            CPUDescription(vendor: vendor, brand: "", family: family, model: model, stepping: 0, l1dKiB: 32, l2KiB: 1024, l3KiB: 32768,
                           x86_64v3: true, x86_64v4: true)
        }
        XCTAssertEqual(GemmTiling.suited(to: cpu("AuthenticAMD", 0x19, 0x11)), .rows12, "Zen 4 (Genoa)")
        XCTAssertEqual(GemmTiling.suited(to: cpu("AuthenticAMD", 0x19, 0x61)), .rows12, "Zen 4 (Raphael)")
        XCTAssertEqual(GemmTiling.suited(to: cpu("AuthenticAMD", 0x1a, 0x02)), .wide, "Zen 5 (Turin)")
        XCTAssertEqual(GemmTiling.suited(to: cpu("GenuineIntel", 6, 0xcf)), .wide, "Emerald Rapids")
        XCTAssertEqual(GemmTiling.suited(to: cpu("GenuineIntel", 6, 0x55)), .wide, "Skylake-SP")
        XCTAssertEqual(try KernelSelection.gemmTiling(environment: [:]), .suited(to: .host))
        XCTAssertEqual(try KernelSelection.gemmTiling(environment: ["HANDPOSE_GEMM_TILING": "12x16"]), .rows12)
        XCTAssertEqual(try KernelSelection.gemmTiling(environment: ["HANDPOSE_GEMM_TILING": "6X32"]), .wide)
        XCTAssertThrowsError(try KernelSelection.gemmTiling(environment: ["HANDPOSE_GEMM_TILING": "24x8"])) { error in
            XCTAssertTrue("\(error)".contains("HANDPOSE_GEMM_TILING=24x8") && "\(error)".contains("12x16, 6x32"), "\(error)")
        }
        if KernelSelection.runnable.contains(.avx512) {
            for tiling in GemmTiling.allCases {
                XCTAssertEqual(try KernelSelection.kernels(.avx512, gemmTiling: tiling).gemmTiling, tiling)
            }
        }
        XCTAssertNil(try KernelSelection.kernels(.baseline).gemmTiling, "one tiling in the baseline")
    }

    /// The activation arena against the ideal the issue gives (the largest set of tensors alive at once):
    /// about 3.4 MiB for palm_detection_full and 3.8 MiB for hand_landmark_full unfused. Block fusion
    /// takes the largest intermediates out of the arena (2.25 and 2.01 MiB).
    func testArenasAreNearTheIdeal() throws {
        for (name, limit, fusedLimit) in [("palm_detection_full", 3.4, 2.3), ("hand_landmark_full", 3.85, 2.05)] {
            let model = try TFLiteModel(path: try Fixtures.modelPath(name))
            let unfused = try ExecutionPlan(model: model, threads: 1, fusingBlocks: false)
            let fused = try ExecutionPlan(model: model, threads: 1)
            let (mib, fusedMiB) = (Double(unfused.arenaBytes) / 1_048_576, Double(fused.arenaBytes) / 1_048_576)
            print(String(format: "arena %@: %.2f MiB, %.2f MiB with fused blocks", name, mib, fusedMiB))
            XCTAssertLessThanOrEqual(mib, limit, name)
            XCTAssertLessThanOrEqual(fusedMiB, fusedLimit, name)
        }
    }

    func testPalmFull() throws { try check("palm_detection_full", seed: 1) }
    func testPalmLite() throws { try check("palm_detection_lite", seed: 2) }
    func testLandmarkFull() throws { try check("hand_landmark_full", seed: 3) }
    func testLandmarkLite() throws { try check("hand_landmark_lite", seed: 4) }
    func testPoseDetection() throws { try check("pose_detection", seed: 5) }
    func testPoseLandmarkFull() throws { try check("pose_landmark_full", seed: 6, relative: true) }
    func testHandRecrop() throws { try check("hand_recrop", seed: 7) }
    func testFaceDetectionShortRange() throws { try check("face_detection_short_range", seed: 8) }
    func testFaceLandmark() throws { try check("face_landmark", seed: 9) }
}
