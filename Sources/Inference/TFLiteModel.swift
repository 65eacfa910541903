/// A `.tflite` model (schema v3) read directly from its flatbuffer, memory-mapped.
///
/// Holds the graph as plain values: tensors, operators with their options, constant buffers.
/// Reading checks every offset; an operator or option the engine cannot run is named in the error.
public final class TFLiteModel {
    public let path: String
    public let tensors: [TensorInfo]
    public let operators: [Operator]
    public let inputs: [Int]
    public let outputs: [Int]
    private let file: MappedFile
    /// Byte range of each buffer in the file (empty for buffers without data).
    private let buffers: [Range<Int>]

    /// The data of a constant tensor, or nil for an activation.
    func constantBytes(_ tensor: Int) -> UnsafeRawBufferPointer? {
        let b = tensors[tensor].buffer
        guard b > 0, b < buffers.count, !buffers[b].isEmpty else { return nil }
        return UnsafeRawBufferPointer(rebasing: file.bytes[buffers[b]])
    }
    func isConstant(_ tensor: Int) -> Bool { constantBytes(tensor) != nil }

    /// Gives back the memory of the file's pages read so far (see `MappedFile.releasePages`).
    func releasePages() { file.releasePages() }

    public convenience init(path: String) throws {
        try self.init(file: try MappedFile(path: path), path: path)
    }

    init(file: MappedFile, path: String) throws {
        self.file = file
        self.path = path
        let fb = FlatBuffer(bytes: file.bytes, path: path)
        guard file.bytes.count >= 8 else { throw fb.fail("the file is only \(file.bytes.count) bytes") }
        // Bytes 4..<8 hold the file identifier "TFL3".
        let ident = String(decoding: UnsafeRawBufferPointer(rebasing: file.bytes[4..<8]), as: UTF8.self)
        guard ident == "TFL3" else { throw fb.fail("identifier is '\(ident)', not TFL3") }
        let model = try fb.root()
        let version = try model.scalar(0, UInt32.self, default: 0)
        guard version == 3 else { throw fb.fail("schema version \(version), expected 3") }

        // Model: 1 operator_codes, 2 subgraphs, 4 buffers.
        let codeTables = try model.tables(1)
        // OperatorCode field 2: version (1 when absent), which custom operators' arithmetic depends on.
        let versions = try codeTables.map { Int(try $0.scalar(2, Int32.self, default: 1)) }
        let codes: [BuiltinOperator] = try codeTables.map { code in
            let deprecated = Int32(try code.scalar(0, Int8.self, default: 0))
            let builtin = try code.scalar(3, Int32.self, default: 0)
            // OperatorCode field 1: custom_code, the name of a CUSTOM operator.
            let op = BuiltinOperator(code: max(deprecated, builtin))
            return op == .other(32) ? .custom(try code.string(1) ?? "") : op
        }
        buffers = try model.tables(4).map { buffer in
            guard let (start, count) = try buffer.vector(0, elementSize: 1) else { return 0..<0 }
            return start..<(start + count)
        }
        let subgraphs = try model.tables(2)
        guard let graph = subgraphs.first else { throw fb.fail("the model has no subgraph") }

        // SubGraph: 0 tensors, 1 inputs, 2 outputs, 3 operators.
        let tensorTables = try graph.tables(0)
        var tensors: [TensorInfo] = []
        for (i, t) in tensorTables.enumerated() {
            let shape = try t.int32s(0).map(Int.init)
            guard shape.allSatisfy({ $0 >= 0 && $0 < 1 << 24 }) else { throw fb.fail("tensor \(i) has shape \(shape)") }
            // Its count of values, which plans multiply by 4 and add up: past 2^30 (4 GiB of floats) it is a damaged
            // file's, and a product past Int's range would trap wherever `count` is asked.
            var values = 1
            for n in shape {
                let (product, overflow) = values.multipliedReportingOverflow(by: n)
                guard !overflow, product <= 1 << 30 else { throw fb.fail("tensor \(i) has shape \(shape): more than 2^30 values") }
                values = product
            }
            let rawType = Int(try t.scalar(1, Int8.self, default: 0))
            let buffer = Int(try t.scalar(2, UInt32.self, default: 0))
            guard buffer < buffers.count else { throw fb.fail("tensor \(i) names buffer \(buffer) of \(buffers.count)") }
            let name = try t.string(3) ?? "tensor\(i)"
            guard let type = TensorType(rawValue: rawType) else {
                throw InferenceError.unsupportedTensorType(path: path, tensor: name, type: rawType)
            }
            // Tensor field 6: sparsity (a constant stored sparse, for DENSIFY).
            let sparsity = try t.table(6).map(SparseTensor.init)
            tensors.append(TensorInfo(index: i, name: name, shape: shape, type: type, buffer: buffer, sparsity: sparsity))
        }
        self.tensors = tensors
        func checkIndices(_ list: [Int32], _ what: String) throws -> [Int] {
            try list.map { v in
                guard v >= -1, Int(v) < tensors.count else { throw fb.fail("\(what) names tensor \(v) of \(tensors.count)") }
                return Int(v)
            }
        }
        inputs = try checkIndices(try graph.int32s(1), "graph input")
        outputs = try checkIndices(try graph.int32s(2), "graph output")
        guard inputs.allSatisfy({ $0 >= 0 }), outputs.allSatisfy({ $0 >= 0 }) else { throw fb.fail("graph inputs or outputs missing") }

        var operators: [Operator] = []
        for (i, op) in try graph.tables(3).enumerated() {
            let codeIndex = Int(try op.scalar(0, UInt32.self, default: 0))
            guard codeIndex < codes.count else { throw fb.fail("operator \(i) names opcode \(codeIndex) of \(codes.count)") }
            let code = codes[codeIndex]
            let ins = try checkIndices(try op.int32s(1), "operator \(i) input")
            let outs = try checkIndices(try op.int32s(2), "operator \(i) output")
            guard !outs.isEmpty, outs.allSatisfy({ $0 >= 0 }) else { throw fb.fail("operator \(i) has no output") }
            let options: OperatorOptions
            if case .custom(let name) = code {
                // Operator fields 5 and 6: custom_options and their format (0: FlexBuffers, the only one).
                let format = try op.scalar(6, Int8.self, default: 0)
                guard format == 0 else {
                    throw InferenceError.unsupportedOption(path: path, index: i, name: code.name, reason: "custom options format \(format)")
                }
                var bytes: [UInt8] = []
                if let (start, count) = try op.vector(5, elementSize: 1) { bytes = Array(file.bytes[start..<(start + count)]) }
                let values = bytes.isEmpty ? [:] : try FlexBuffer(bytes: bytes, path: path).rootMap()
                options = .custom(CustomOptions(values: values, path: path, index: i, name: name, version: versions[codeIndex]))
            } else {
                options = try Self.readOptions(code, try op.table(4), index: i, path: path)
            }
            operators.append(Operator(index: i, code: code, inputs: ins, outputs: outs, options: options))
        }
        self.operators = operators
        // Reading touched only the graph's tables; planning reads the weights.
        file.releasePages()
    }

    private static func readOptions(_ code: BuiltinOperator, _ t: FBTable?, index: Int, path: String) throws -> OperatorOptions {
        func activation(_ field: Int) throws -> Activation {
            let raw = Int(try t?.scalar(field, Int8.self, default: 0) ?? 0)
            guard let a = Activation(rawValue: raw), a != .tanh else {
                throw InferenceError.unsupportedOption(path: path, index: index, name: code.name, reason: "fused activation \(raw)")
            }
            return a
        }
        func padding(_ field: Int) throws -> Padding {
            (try t?.scalar(field, Int8.self, default: 0) ?? 0) == 1 ? .valid : .same
        }
        func int(_ field: Int, _ d: Int32) throws -> Int { Int(try t?.scalar(field, Int32.self, default: d) ?? d) }
        // A stride, a dilation, a filter size or a depth multiplier: at least 1 in any model TFLite runs (0
        // would divide by zero when shapes are worked out).
        func positive(_ field: Int, _ d: Int32) throws -> Int {
            let v = try int(field, d)
            guard v >= 1 else {
                throw InferenceError.unsupportedOption(path: path, index: index, name: code.name, reason: "option \(field) is \(v); strides, dilations, filter sizes and depth multipliers are at least 1")
            }
            return v
        }
        switch code {
        case .conv2D:
            // Conv2DOptions: padding, stride_w, stride_h, fused_activation_function, dilation_w, dilation_h
            return .conv(Conv2DOptions(padding: try padding(0), strideW: try positive(1, 1), strideH: try positive(2, 1),
                                       activation: try activation(3), dilationW: try positive(4, 1), dilationH: try positive(5, 1),
                                       depthMultiplier: 1))
        case .depthwiseConv2D:
            // DepthwiseConv2DOptions: padding, stride_w, stride_h, depth_multiplier, fused_activation_function, dilation_w, dilation_h
            return .conv(Conv2DOptions(padding: try padding(0), strideW: try positive(1, 1), strideH: try positive(2, 1),
                                       activation: try activation(4), dilationW: try positive(5, 1), dilationH: try positive(6, 1),
                                       depthMultiplier: try positive(3, 1)))
        case .maxPool2D:
            // Pool2DOptions: padding, stride_w, stride_h, filter_width, filter_height, fused_activation_function
            return .pool(Pool2DOptions(padding: try padding(0), strideW: try positive(1, 1), strideH: try positive(2, 1),
                                       filterW: try positive(3, 1), filterH: try positive(4, 1), activation: try activation(5)))
        case .fullyConnected:
            // FullyConnectedOptions: fused_activation_function, weights_format, keep_num_dims
            let format = try t?.scalar(1, Int8.self, default: 0) ?? 0
            guard format == 0 else {
                throw InferenceError.unsupportedOption(path: path, index: index, name: code.name, reason: "weights format \(format)")
            }
            return .activation(try activation(0))
        case .add, .mul:
            return .activation(try activation(0))
        case .concatenation:
            return .concat(axis: try int(0, 0), activation: try activation(1))
        case .resizeBilinear:
            // ResizeBilinearOptions: new_height, new_width (deprecated), align_corners, half_pixel_centers
            return .resize(alignCorners: try t?.bool(2) ?? false, halfPixelCenters: try t?.bool(3) ?? false)
        case .mean:
            return .reducer(keepDims: try t?.bool(0) ?? false)
        case .depthToSpace:
            // DepthToSpaceOptions: block_size
            return .blockSize(try int(0, 0))
        case .stridedSlice:
            // StridedSliceOptions: begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask, offset
            let masks = try (0..<5).map { try int($0, 0) }
            guard masks[2] == 0, masks[3] == 0, !(try t?.bool(5) ?? false) else {
                throw InferenceError.unsupportedOption(path: path, index: index, name: code.name,
                                                       reason: "an ellipsis, new axis or offset slice")
            }
            return .slice(beginMask: masks[0], endMask: masks[1])
        case .dequantize, .densify, .logistic, .reshape, .pad, .prelu, .relu:
            return .none
        case .other, .custom:
            // Custom operators' options are read by the caller; this is for operators the engine lacks.
            throw InferenceError.unsupportedOperator(path: path, index: index, name: code.name)
        }
    }
}

/// One tensor of the graph.
public struct TensorInfo: Sendable {
    public let index: Int
    public let name: String
    public let shape: [Int]
    public let type: TensorType
    /// Buffer index in the file; 0 (the empty buffer) for activations.
    let buffer: Int
    /// How a constant stored sparse is laid out (its buffer holds only the stored values).
    var sparsity: SparseTensor? = nil
    public var count: Int { shape.reduce(1, *) }
}

public enum TensorType: Int, Sendable {
    case float32 = 0, float16 = 1, int32 = 2, uint8 = 3, int64 = 4
    case bool = 6, int16 = 7, int8 = 9

    var byteSize: Int {
        switch self {
        case .float32, .int32: return 4
        case .float16, .int16: return 2
        case .uint8, .bool, .int8: return 1
        case .int64: return 8
        }
    }
}

/// The operators the MediaPipe hand, pose and face models use; anything else is `.other` (or an unknown
/// `.custom`) and refused by name.
public enum BuiltinOperator: Equatable, Sendable {
    case add, concatenation, conv2D, depthToSpace, depthwiseConv2D, dequantize, densify, fullyConnected, logistic
    case maxPool2D, mul, reshape, resizeBilinear, pad, mean, prelu, relu, stridedSlice
    /// A CUSTOM operator, by its name (MediaPipe's `Landmarks2TransformMatrix` and the like).
    case custom(String)
    case other(Int32)

    init(code: Int32) {
        switch code {
        case 0: self = .add
        case 2: self = .concatenation
        case 3: self = .conv2D
        case 4: self = .depthwiseConv2D
        case 5: self = .depthToSpace
        case 6: self = .dequantize
        case 9: self = .fullyConnected
        case 14: self = .logistic
        case 17: self = .maxPool2D
        case 18: self = .mul
        case 19: self = .relu
        case 22: self = .reshape
        case 23: self = .resizeBilinear
        case 34: self = .pad
        case 40: self = .mean
        case 45: self = .stridedSlice
        case 54: self = .prelu
        case 124: self = .densify
        default: self = .other(code)
        }
    }

    public var name: String {
        switch self {
        case .add: return "ADD"
        case .concatenation: return "CONCATENATION"
        case .conv2D: return "CONV_2D"
        case .depthwiseConv2D: return "DEPTHWISE_CONV_2D"
        case .depthToSpace: return "DEPTH_TO_SPACE"
        case .dequantize: return "DEQUANTIZE"
        case .densify: return "DENSIFY"
        case .fullyConnected: return "FULLY_CONNECTED"
        case .logistic: return "LOGISTIC"
        case .maxPool2D: return "MAX_POOL_2D"
        case .mul: return "MUL"
        case .reshape: return "RESHAPE"
        case .resizeBilinear: return "RESIZE_BILINEAR"
        case .pad: return "PAD"
        case .mean: return "MEAN"
        case .prelu: return "PRELU"
        case .relu: return "RELU"
        case .stridedSlice: return "STRIDED_SLICE"
        case .custom(let name): return name
        case .other(let c): return "builtin operator \(c)"
        }
    }
}

public struct Operator: Sendable {
    public let index: Int
    public let code: BuiltinOperator
    /// Tensor indices; -1 marks an optional input left out.
    public let inputs: [Int]
    public let outputs: [Int]
    public let options: OperatorOptions
}

public struct Conv2DOptions: Sendable {
    public var padding: Padding
    public var strideW: Int, strideH: Int
    public var activation: Activation
    public var dilationW: Int, dilationH: Int
    public var depthMultiplier: Int
}

public struct Pool2DOptions: Sendable {
    public var padding: Padding
    public var strideW: Int, strideH: Int
    public var filterW: Int, filterH: Int
    public var activation: Activation
}

public enum OperatorOptions: Sendable {
    case none
    case conv(Conv2DOptions)
    case pool(Pool2DOptions)
    case activation(Activation)
    case concat(axis: Int, activation: Activation)
    case resize(alignCorners: Bool, halfPixelCenters: Bool)
    case reducer(keepDims: Bool)
    case blockSize(Int)
    /// STRIDED_SLICE's masks: bit d set takes the whole extent on that side of dimension d.
    case slice(beginMask: Int, endMask: Int)
    /// A custom operator's options, as its FlexBuffers map.
    case custom(CustomOptions)
}
