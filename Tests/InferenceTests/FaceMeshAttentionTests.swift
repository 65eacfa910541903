import FaceLandmarks
import Foundation
@testable import Inference
import TestSupport
import XCTest

/// The face mesh with attention (`--refine-face`): MediaPipe's custom operators (Landmarks2TransformMatrix,
/// TransformTensorBilinear, TransformLandmarks) and the 478-point refinement, against MediaPipe 0.10.14's own
/// FaceLandmarkCpu graph on real faces (scripts/face_mesh_reference.py), on every kernel variant; the plain mesh
/// alongside. The TFLite interpreter cannot be the reference here: it has no kernels for MediaPipe's operators.
/// Each face is cut upright and turned 25 degrees, with a margin as Holistic's region gives it and filling the crop.
final class FaceMeshAttentionTests: XCTestCase {
    static let images = ["hamer_ok_sign_two_people.jpg", "mp_gesture_call_1.jpg", "vd_pointing_two_hands.jpg"]
    static let side = 192

    /// Crops and MediaPipe's points, made once for the class.
    static let references: Result<URL, Error> = Result {
        let python = Fixtures.root.appendingPathComponent(".venv-holistic/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            print("SKIP: \(python) is absent; `make setup` installs MediaPipe 0.10.14 there")
            throw Prerequisite.missing("no .venv-holistic")
        }
        let corpus = Fixtures.root.appendingPathComponent("../shared/corpus/images").standardizedFileURL
        guard FileManager.default.fileExists(atPath: corpus.path) else {
            print("SKIP: the shared corpus (\(corpus.path)) is absent")
            throw Prerequisite.missing("shared corpus absent")
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("face-mesh-\(UUID().uuidString)")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: python)
        p.arguments = [Fixtures.root.appendingPathComponent("scripts/face_mesh_reference.py").path, "--out", dir.path, "--tight"]
            + images.map { corpus.appendingPathComponent($0).path }
        let errors = Pipe()
        p.standardError = errors
        try p.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw ReferenceFailed(message: "face_mesh_reference.py exited \(p.terminationStatus): \(text.suffix(2000))") }
        return dir
    }
    struct ReferenceFailed: Error { let message: String }

    override class func tearDown() {
        if case .success(let dir) = references { try? FileManager.default.removeItem(at: dir) }
    }

    func floats(_ url: URL) throws -> [Float] {
        try Data(contentsOf: url).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    func testBothMeshModelsMatchMediaPipesGraphOnRealFaces() throws {
        let dir: URL
        do { dir = try Self.references.get() } catch let e as ReferenceFailed { return XCTFail(e.message) }
        let refined = try TFLiteModel(path: try Fixtures.modelPath("face_landmark_with_attention"))
        let plain = try TFLiteModel(path: try Fixtures.modelPath("face_landmark"))
        var crops = 0
        for name in Self.images {
            for angle in ["0", "25", "0tight", "25tight"] {
                let stem = dir.appendingPathComponent("\(name)-\(angle)").path
                guard FileManager.default.fileExists(atPath: stem + ".rgb") else {
                    XCTFail("\(name) at \(angle) degrees: MediaPipe found no face"); continue
                }
                let pixels = [UInt8](try Data(contentsOf: URL(fileURLWithPath: stem + ".rgb")))
                XCTAssertEqual(pixels.count, Self.side * Self.side * 3)
                // ImageToTensorCalculator's [0, 1] range: each byte over 255.
                let input = pixels.map { Float($0) / 255 }
                let expectRefined = try floats(URL(fileURLWithPath: stem + ".refined.f32"))
                let expectPlain = try floats(URL(fileURLWithPath: stem + ".mesh.f32"))
                for kernels in TestedKernels.all {
                    let label = "\(name) at \(angle) degrees [\(TestedKernels.label(kernels))]"
                    for (model, expected) in [(refined, expectRefined), (plain, expectPlain)] {
                        let plan = try TestedKernels.plan(model, threads: 2, kernels: kernels)
                        try plan.run(input)
                        let size = Float(Self.side)
                        var points = (0..<FaceRefinement.meshPoints).map { j in
                            SIMD3(plan.output(0)[3 * j], plan.output(0)[3 * j + 1], plan.output(0)[3 * j + 2]) / size
                        }
                        if plan.outputs.count == 7 {
                            points = FaceRefinement.refine(mesh: points, lips: plan.output(1), leftEye: plan.output(2), rightEye: plan.output(3),
                                                           leftIris: plan.output(4), rightIris: plan.output(5), scale: size)
                        }
                        XCTAssertEqual(points.count * 3, expected.count, label)
                        guard points.count * 3 == expected.count else { continue }
                        // In the crop's pixels.
                        var xy: Float = 0, z: Float = 0
                        for (i, p) in points.enumerated() {
                            xy = max(xy, abs(p.x - expected[3 * i]) * size, abs(p.y - expected[3 * i + 1]) * size)
                            z = max(z, abs(p.z - expected[3 * i + 2]) * size)
                        }
                        print("face mesh \(points.count) points, \(label): max |diff| x, y \(xy) px, z \(z) px (of \(Self.side))")
                        // Measured: at most 1.1e-4 px, float rounding (AMD EPYC Zen 4, 2026-11-27).
                        XCTAssertLessThan(xy, 0.005, "\(label), \(points.count) points")
                        XCTAssertLessThan(z, 0.005, "\(label), \(points.count) points")
                    }
                }
                crops += 1
            }
        }
        XCTAssertEqual(crops, 4 * Self.images.count)
    }

    /// The refinement's index lists (from MediaPipe's graph) are the subsets the model crops its lips and eyes by.
    func testRefinementIndicesAreTheModelsOwnSubsets() throws {
        let model = try TFLiteModel(path: try Fixtures.modelPath("face_landmark_with_attention"))
        let subsets = try model.operators.filter { $0.code == .custom("Landmarks2TransformMatrix") }.map { op -> [Int] in
            guard case .custom(let o) = op.options else { XCTFail("operator \(op.index) has no custom options"); return [] }
            return try o.ints("subset_idxs", in: 0...467)
        }
        XCTAssertEqual(subsets, [FaceRefinement.lips, FaceRefinement.leftEye, FaceRefinement.rightEye])
    }

    /// The options hold the values Python's flatbuffers 25 decodes from the file, and damaged options are refused
    /// with an error, never a crash.
    func testCustomOptionsAreReadAndDamageIsRefused() throws {
        let model = try TFLiteModel(path: try Fixtures.modelPath("face_landmark_with_attention"))
        let ops = model.operators.filter { $0.code == .custom("Landmarks2TransformMatrix") }
        XCTAssertEqual(ops.count, 3)
        guard case .custom(let lips) = ops[0].options else { return XCTFail("no options") }
        XCTAssertEqual(lips.values["left_rotation_idx"], .int(61))
        XCTAssertEqual(lips.values["right_rotation_idx"], .int(291))
        XCTAssertEqual(lips.values["output_width"], .int(16))
        XCTAssertEqual(lips.values["scale_x"], .float(1.5))
        XCTAssertEqual(lips.values["target_rotation_radians"], .float(0))
        XCTAssertEqual(Array(try lips.ints("subset_idxs", in: 0...467).prefix(8)), [61, 146, 91, 181, 84, 17, 314, 405])
        XCTAssertThrowsError(try lips.int("output_width", in: 1...8))
        XCTAssertThrowsError(try lips.float("nothing", in: 0...1))

        // The options' bytes, found in the file, cut and flipped.
        let file = [UInt8](try Data(contentsOf: URL(fileURLWithPath: model.path)))
        let needle = Array("left_rotation_idx".utf8)
        let start = try XCTUnwrap((0..<(file.count - needle.count)).first { Array(file[$0..<($0 + needle.count)]) == needle })
        // The vector's length precedes it (a flatbuffers uint32).
        let length = Int(UInt32(file[start - 4]) | UInt32(file[start - 3]) << 8 | UInt32(file[start - 2]) << 16 | UInt32(file[start - 1]) << 24)
        let bytes = Array(file[start..<(start + length)])
        // The first options in the file holding that key: one of the three operators'.
        let parsed = try FlexBuffer(bytes: bytes, path: "x").rootMap()
        XCTAssertTrue(ops.contains { if case .custom(let o) = $0.options { return o.values == parsed } else { return false } })
        var rng = SeededRandom(46)
        var refused = 0
        for trial in 0..<400 {
            var copy = bytes
            if trial % 4 == 0 {
                copy = Array(copy.prefix(Int.random(in: 0..<copy.count, using: &rng)))
            } else {
                for _ in 0..<3 { copy[Int.random(in: 0..<copy.count, using: &rng)] ^= UInt8.random(in: 1...255, using: &rng) }
            }
            do { _ = try FlexBuffer(bytes: copy, path: "x").rootMap() } catch {
                XCTAssertTrue(error is InferenceError)
                refused += 1
            }
        }
        print("damaged custom options refused with a typed error: \(refused) of 400 (the others still parse)")
        XCTAssertGreaterThan(refused, 0)
    }
}
