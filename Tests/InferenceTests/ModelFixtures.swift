import Foundation
@_spi(Testing) import Inference
import TestSupport
import XCTest
#if arch(x86_64)
import KernelsAVX512OnAVX2
#endif

/// Where the repository's model files and reference interpreter are; tests that need them skip, saying why.
enum Fixtures {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL
    static let modelNames = ["palm_detection_full", "palm_detection_lite", "hand_landmark_full", "hand_landmark_lite"]
    /// MediaPipe's pose (BlazePose) models, for `extract --body` (#38): the detector keeps its weights
    /// sparse (DENSIFY) and upsamples with DEPTH_TO_SPACE.
    static let poseModelNames = ["pose_detection", "pose_landmark_full"]
    /// The models Holistic adds (`extract --holistic`, #46): the hand re-crop model (STRIDED_SLICE), the
    /// short-range face detector (RELU after its residual ADDs), the face mesh, and the mesh with attention
    /// (`--refine-face`: MUL and MediaPipe's custom operators; FaceMeshAttentionTests holds it to MediaPipe's graph).
    static let holisticModelNames = ["hand_recrop", "face_detection_short_range", "face_landmark", "face_landmark_with_attention"]

    static func modelPath(_ name: String) throws -> String {
        let path = root.appendingPathComponent("Models/\(name).tflite").path
        guard FileManager.default.fileExists(atPath: path) else {
            print("SKIP: \(path) is absent; run `make setup`")
            throw Prerequisite.missing("\(path) is absent; run `make setup`")
        }
        return path
    }

    static func referencePython() throws -> String {
        let py = root.appendingPathComponent(".venv/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: py) else {
            print("SKIP: \(py) is absent; run `make setup` for the TFLite reference interpreter")
            throw Prerequisite.missing("no reference interpreter at \(py)")
        }
        return py
    }

    /// Runs the official interpreter on `input`; returns each output as floats.
    static func reference(model: String, input: [Float], outputs: Int) throws -> [[Float]] {
        let py = try referencePython()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ref-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let inputFile = dir.appendingPathComponent("input.f32")
        try input.withUnsafeBufferPointer { Data(buffer: $0) }.write(to: inputFile)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: py)
        p.arguments = [root.appendingPathComponent("scripts/tflite_reference.py").path, "run", model, inputFile.path, dir.path]
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw Prerequisite.missing("reference interpreter failed (\(p.terminationStatus))") }
        return try (0..<outputs).map { i in
            let d = try Data(contentsOf: dir.appendingPathComponent("\(i).f32"))
            return d.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        }
    }
}

/// A small seeded generator (SplitMix64) so random tests repeat exactly.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    init(_ seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E3779B97F4A7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58476D1CE4E5B9
        z = (z ^ (z >> 27)) &* 0x94D049BB133111EB
        return z ^ (z >> 31)
    }
    mutating func floats(_ n: Int, in range: ClosedRange<Float> = -1...1) -> [Float] {
        (0..<n).map { _ in Float.random(in: range, using: &self) }
    }
}

/// Plans compared bit for bit (fused against unfused, one kernel set against another).
enum SameBits {
    /// Two seeded inputs for `model`: values in [0, 1] and in [-1, 1].
    static func inputs(_ model: TFLiteModel, seed: UInt64) -> [[Float]] {
        var rng = SeededRandom(seed)
        let count = model.tensors[model.inputs[0]].count
        return [rng.floats(count, in: 0...1), rng.floats(count, in: -1...1)]
    }

    /// Every output of `plan` run on `input`.
    static func outputs(_ plan: ExecutionPlan, _ input: [Float]) throws -> [[Float]] {
        try plan.run(input)
        return (0..<plan.outputs.count).map { Array(plan.output($0)) }
    }

    /// The values of `a` and `b` whose bits differ, with the largest difference among them.
    static func differing(_ a: [Float], _ b: [Float]) -> (count: Int, largest: Float) {
        zip(a, b).filter { $0.bitPattern != $1.bitPattern }.reduce((0, 0)) { ($0.0 + 1, max($0.1, abs($1.0 - $1.1))) }
    }
}

/// The kernel sets the tests run: every variant this CPU executes and, on a CPU with AVX2 but no
/// AVX-512, the AVX-512 variant's code built for AVX2 (`KernelsAVX512OnAVX2`), so that the 16-wide
/// kernels' code (the 12x16 GEMM tile, 16-channel depthwise, direct convolution) runs on every test
/// machine with AVX2, not only on AVX-512 ones. It checks the code, not the compiler's AVX-512 encoding.
enum TestedKernels {
    /// The AVX-512 code runs once per `GemmTiling` (the tilings must agree bit for bit).
    static let all: [any KernelSet] = KernelSelection.runnable.flatMap { isa in
        isa == .avx512 ? GemmTiling.allCases.map { try! KernelSelection.kernels(isa, gemmTiling: $0) } : [try! KernelSelection.kernels(isa)]
    } + builtForAVX2

    /// The AVX-512 code built for AVX2, where this CPU runs AVX2 but not AVX-512.
    static var builtForAVX2: [any KernelSet] {
        #if arch(x86_64)
        if KernelSelection.runnable.contains(.avx2) && !KernelSelection.runnable.contains(.avx512) {
            return GemmTiling.allCases.map { KernelsAVX512OnAVX2.KernelVariant(gemmTiling: $0) }
        }
        #endif
        return []
    }

    /// What the tests must run here: the instruction sets the CPU reports, and `avx512-on-avx2` where
    /// it has AVX2 but not AVX-512.
    static func expectedLabels(runnable: [ISA]) -> [String] {
        func tilings(_ label: String) -> [String] { GemmTiling.allCases.map { "\(label) \($0.rawValue)" } }
        var labels = runnable.flatMap { $0 == .avx512 ? tilings($0.rawValue) : [$0.rawValue] }
        #if arch(x86_64)
        if runnable.contains(.avx2) && !runnable.contains(.avx512) { labels += tilings("avx512-on-avx2") }
        #endif
        return labels
    }

    /// The instruction set, or `avx512-on-avx2` for the AVX-512 code built for AVX2; AVX-512 code with its tiling
    /// (`avx512 6x32`).
    static func label(_ k: any KernelSet) -> String {
        let set = String(reflecting: type(of: k)).hasPrefix("KernelsAVX512OnAVX2.") ? "avx512-on-avx2" : k.isa.rawValue
        return k.gemmTiling.map { "\(set) \($0.rawValue)" } ?? set
    }

    /// A plan with `kernels`: chosen by instruction set (as the tool does) for the variants built into
    /// `Inference`, handed over for the AVX-512 code built for AVX2.
    static func plan(_ model: TFLiteModel, threads: Int, kernels: any KernelSet, fusingBlocks: Bool = true) throws -> ExecutionPlan {
        // (By instruction set only where that gives this tiling: the plan takes the environment's or the CPU's.)
        if !label(kernels).hasPrefix("avx512-on-avx2"), kernels.gemmTiling == nil || kernels.gemmTiling == (try? KernelSelection.gemmTiling()) {
            return try ExecutionPlan(model: model, threads: threads, isa: kernels.isa, fusingBlocks: fusingBlocks)
        }
        return try ExecutionPlan(model: model, threads: threads, kernelSet: kernels, fusingBlocks: fusingBlocks)
    }
}
