import Foundation
import XCTest
@testable import Inference
import Landmarking

/// A damaged model file must give a typed error, never a crash or an out-of-bounds read.
final class CorruptModelTests: XCTestCase {
    func load(_ bytes: [UInt8]) -> Error? {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("corrupt-\(UUID().uuidString).tflite")
        defer { try? FileManager.default.removeItem(at: url) }
        try! Data(bytes).write(to: url)
        do {
            let model = try TFLiteModel(path: url.path)
            let plan = try ExecutionPlan(model: model, threads: 1)
            try plan.run([Float](repeating: 0.5, count: plan.inputs[0].count))
            return nil
        } catch {
            return error
        }
    }

    func testTruncatedModelsThrow() throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try Fixtures.modelPath("hand_landmark_lite"))))
        var rng = SeededRandom(21)
        for _ in 0..<20 {
            let cut = Int.random(in: 0..<bytes.count, using: &rng)
            let error = load(Array(bytes[..<cut]))
            XCTAssertNotNil(error, "cut at \(cut) of \(bytes.count)")
            XCTAssertTrue(error is InferenceError, "cut at \(cut): \(String(describing: error))")
        }
    }

    func testFlippedBytesNeverCrash() throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try Fixtures.modelPath("palm_detection_lite"))))
        var rng = SeededRandom(22)
        // Flips in the first 64 KB hit the flatbuffer's tables and offsets rather than weights.
        var errors = 0
        for _ in 0..<60 {
            var copy = bytes
            for _ in 0..<4 {
                copy[Int.random(in: 0..<min(65536, copy.count), using: &rng)] ^= UInt8.random(in: 1...255, using: &rng)
            }
            if let e = load(copy) {
                XCTAssertTrue(e is InferenceError, "\(e)")
                errors += 1
            }
        }
        print("flipped-byte models refused with a typed error: \(errors) of 60 (others still formed a valid graph)")
    }

    /// An operator reading a tensor that nothing before it computes (an operator rewired to read a tensor of the same
    /// shape that a later operator makes) is refused at planning: such a tensor has no place yet to read.
    func testReadingATensorNothingComputesIsRefused() throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try Fixtures.modelPath("hand_landmark_lite"))))
        let model = try TFLiteModel(path: try Fixtures.modelPath("hand_landmark_lite"))
        let ops = model.operators.filter { $0.code != .dequantize }
        var producer: [Int: Int] = [:]
        for (i, op) in ops.enumerated() { for t in op.outputs { producer[t] = i } }
        // The first operator whose input has the shape of a tensor made later than it.
        var found: (op: Operator, tensor: Int)?
        search: for (i, op) in ops.enumerated() {
            guard let input = op.inputs.first, input >= 0 else { continue }
            for (t, p) in producer where p > i && model.tensors[t].shape == model.tensors[input].shape {
                found = (op, t)
                break search
            }
        }
        let (op, later) = try XCTUnwrap(found)
        let slot: Int = try bytes.withUnsafeBytes { raw in
            let fb = FlatBuffer(bytes: raw, path: "x")
            let table = try fb.root().tables(2)[0].tables(3)[op.index]
            return try fb.indirect(try XCTUnwrap(try table.field(1))) + 4   // the first input's index
        }
        XCTAssertEqual(Int(bytes[slot]) | Int(bytes[slot + 1]) << 8, op.inputs[0])
        for k in 0..<4 { bytes[slot + k] = UInt8(truncatingIfNeeded: UInt32(later) >> (8 * k)) }
        let error = load(bytes)
        XCTAssertTrue("\(String(describing: error))".contains("no operator before it computes"), "\(String(describing: error))")
    }

    func testErrorsNameTheFileAndOperator() throws {
        XCTAssertEqual((load([]) as? InferenceError)?.description.contains("empty"), true)
        let notModel = load(Array("hello, this is not a model at all".utf8))
        XCTAssertTrue(notModel is InferenceError)
        XCTAssertTrue("\(notModel!)".contains("not a valid TFLite model"))
    }

    /// A stride of 0 (one changed byte) would divide by zero when the plan works out shapes: refused when read.
    func testAZeroStrideIsRefused() throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try Fixtures.modelPath("palm_detection_lite"))))
        // The first convolution whose options hold stride_w (Conv2DOptions and DepthwiseConv2DOptions field 1).
        let at: Int? = try bytes.withUnsafeBytes { raw in
            let fb = FlatBuffer(bytes: raw, path: "palm_detection_lite")
            let graph = try XCTUnwrap(try fb.root().tables(2).first)
            for op in try graph.tables(3) {
                if let options = try op.table(4), let field = try options.field(1), try options.scalar(1, Int32.self, default: 1) == 2 { return field }
            }
            return nil
        }
        let field = try XCTUnwrap(at, "a convolution with stride 2 stores its stride")
        XCTAssertNil(load(bytes), "the model as shipped loads and runs")
        for i in 0..<4 { bytes[field + i] = 0 }
        let error = load(bytes)
        guard case .unsupportedOption(_, _, _, let reason)? = error as? InferenceError else { return XCTFail("\(String(describing: error))") }
        XCTAssertTrue(reason.contains("is 0"), reason)
    }

    /// A FIFO where a model should be is refused at once, never waited on (no writer ever comes).
    func testAFIFOIsRefusedNotWaitedOn() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fifo-model-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("hand_landmark_lite.tflite").path
        XCTAssertEqual(mkfifo(path, 0o644), 0)
        XCTAssertThrowsError(try TFLiteModel(path: path)) { XCTAssertTrue("\($0)".contains("not a regular file"), "\($0)") }
        XCTAssertThrowsError(try ModelFiles.identity(directory: dir, names: ["hand_landmark_lite.tflite"])) {
            XCTAssertTrue("\($0)".contains("not a regular file"), "\($0)")
        }
    }

    /// Where a tensor's shape dimension `dim` (or an operator's input `k`) is stored in the model's bytes.
    func slot(_ bytes: [UInt8], tensor t: Int, dim: Int) throws -> Int {
        try bytes.withUnsafeBytes { raw in
            let fb = FlatBuffer(bytes: raw, path: "x")
            return try fb.indirect(try XCTUnwrap(try fb.root().tables(2)[0].tables(0)[t].field(0))) + 4 + 4 * dim
        }
    }

    func slot(_ bytes: [UInt8], op: Int, input k: Int) throws -> Int {
        try bytes.withUnsafeBytes { raw in
            let fb = FlatBuffer(bytes: raw, path: "x")
            return try fb.indirect(try XCTUnwrap(try fb.root().tables(2)[0].tables(3)[op].field(1))) + 4 + 4 * k
        }
    }

    func put(_ value: Int32, at at: Int, in bytes: inout [UInt8]) {
        for k in 0..<4 { bytes[at + k] = UInt8(truncatingIfNeeded: UInt32(bitPattern: value) >> (8 * k)) }
    }

    /// Shapes that disagree with what an operator writes or reads (the audit of 2026-11-29): each would have
    /// let a step write past its tensor's place in the arena, or read past it, or trap. Each is refused when
    /// the plan is made, naming the operator; the model as shipped still runs.
    func testShapesAnOperatorWouldWritePastAreRefused() throws {
        let path = try Fixtures.modelPath("palm_detection_lite")
        let shipped = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let model = try TFLiteModel(path: path)
        XCTAssertNil(load(shipped))
        func refused(_ label: String, saying text: String, _ edit: (inout [UInt8]) throws -> Void) throws {
            var bytes = shipped
            try edit(&bytes)
            let error = load(bytes)
            XCTAssertTrue(error is InferenceError && "\(error!)".contains(text), "\(label): \(String(describing: error))")
        }
        let producer = Dictionary(model.operators.flatMap { op in op.outputs.map { ($0, op) } }, uniquingKeysWith: { a, _ in a })
        // RESIZE_BILINEAR into fewer channels than its input holds.
        let resize = try XCTUnwrap(model.operators.first { $0.code == .resizeBilinear })
        try refused("resize", saying: "the channels differ") { try put(1, at: slot($0, tensor: resize.outputs[0], dim: 3), in: &$0) }
        // CONCATENATION with an input left out (-1).
        let concat = try XCTUnwrap(model.operators.first { $0.code == .concatenation && $0.inputs.count > 1 })
        try refused("concatenation", saying: "an input left out") { try put(-1, at: slot($0, op: concat.index, input: 1), in: &$0) }
        // DEQUANTIZE into a tensor of another size than its values.
        let dequantize = try XCTUnwrap(model.operators.first { $0.code == .dequantize && model.tensors[$0.outputs[0]].shape.first ?? 0 > 1 })
        try refused("dequantize", saying: "values for an output of shape") { try put(1, at: slot($0, tensor: dequantize.outputs[0], dim: 0), in: &$0) }
        // CONV_2D with its ADD (and PRELU) fused: the last fused output made one row high.
        let add = try XCTUnwrap(model.operators.first { op in op.code == .add && op.inputs.contains { producer[$0]?.code == .conv2D }
                                                           && model.tensors[op.outputs[0]].shape[1] > 1 })
        let last = model.operators.first { $0.code == .prelu && $0.inputs.first == add.outputs[0] }?.outputs[0] ?? add.outputs[0]
        try refused("fused convolution", saying: "not the size of the convolution's output") { try put(1, at: slot($0, tensor: last, dim: 1), in: &$0) }
    }
}
