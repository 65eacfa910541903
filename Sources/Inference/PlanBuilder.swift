/// Turns a model's operators into plan steps: folds constant DEQUANTIZE, checks shapes, and fuses
/// `CONV -> ADD -> PRELU` chains into one convolution with an epilogue.
struct PlanBuilder {
    let model: TFLiteModel
    private var constants: [Int: [Float]] = [:]
    /// Zero padding of height and width that a PAD before a VALID convolution added, now the convolution's
    /// own (`foldingPads`), by the convolution's operator index.
    private var foldedPadding: [Int: (top: Int, bottom: Int, left: Int, right: Int)] = [:]

    init(model: TFLiteModel) { self.model = model }

    func fail(_ op: Operator, _ reason: String) -> InferenceError {
        .shapeMismatch(path: model.path, index: op.index, name: op.code.name, reason: reason)
    }

    /// A constant tensor as floats (float32 or float16 in the file), or nil for activations.
    mutating func constant(_ t: Int) throws -> [Float]? {
        if let c = constants[t] { return c }
        guard t >= 0, let bytes = model.constantBytes(t) else { return nil }
        let info = model.tensors[t]
        if let sparse = info.sparsity {
            // Only the stored values are in the buffer; DENSIFY's output (folded below) is the tensor.
            guard bytes.count % info.type.byteSize == 0 else {
                throw InferenceError.malformed(path: model.path, reason: "sparse tensor '\(info.name)' has \(bytes.count) bytes of \(info.type) data")
            }
            guard let values = sparse.densify(try Self.floats(bytes, info.type, count: bytes.count / info.type.byteSize, model: model, name: info.name),
                                              shape: info.shape) else {
                throw InferenceError.malformed(path: model.path, reason: "sparse tensor '\(info.name)': its sparsity parameters do not describe shape \(info.shape)")
            }
            constants[t] = values
            return values
        }
        guard bytes.count == info.count * info.type.byteSize else {
            throw InferenceError.malformed(path: model.path, reason: "tensor '\(info.name)' has \(bytes.count) bytes of data for shape \(info.shape)")
        }
        let values = try Self.floats(bytes, info.type, count: info.count, model: model, name: info.name)
        constants[t] = values
        return values
    }

    /// A constant tensor of whole numbers (int32 in the file, or floats holding them) as Ints, each checked before
    /// conversion: a damaged file's 1e30 or NaN is an error naming the operator, never a trapping `Int(_:)`.
    mutating func integers(_ t: Int, _ op: Operator) throws -> [Int]? {
        guard let values = try constant(t) else { return nil }
        return try values.map { v in
            guard let i = Int(exactly: v), i.magnitude <= UInt(Int32.max) + 1 else { throw fail(op, "value \(v) is not a whole number in int32's range") }
            return i
        }
    }

    /// `count` values of `type` from `bytes`, as floats.
    static func floats(_ bytes: UnsafeRawBufferPointer, _ type: TensorType, count: Int, model: TFLiteModel, name: String) throws -> [Float] {
        switch type {
        case .float32: return (0..<count).map { bytes.loadUnaligned(fromByteOffset: $0 * 4, as: Float.self) }
        case .float16: return (0..<count).map { widen(bytes.loadUnaligned(fromByteOffset: $0 * 2, as: UInt16.self)) }
        case .int32: return (0..<count).map { Float(bytes.loadUnaligned(fromByteOffset: $0 * 4, as: Int32.self)) }
        default: throw InferenceError.unsupportedTensorType(path: model.path, tensor: name, type: type.rawValue)
        }
    }

    /// The float16 `bits` as a Float, the same bits as `Float(Float16(bitPattern:))`, which on x86-64 without
    /// F16C is a library call per value: 70% of planning a float16 model (18 of 25 ms for the full hand
    /// landmark model), paid by every worker at start. Float16's finite values are all exact in Float: a
    /// normal number moves its exponent bias (15 to 127) and its 10 mantissa bits to the top of Float's 23; a
    /// subnormal is mantissa x 2^-24. Infinities and NaNs go through the standard library, as before
    /// (`SparseTensorTests` holds all 65536 patterns to it).
    @inline(__always)
    static func widen(_ bits: UInt16) -> Float {
        let exponent = UInt32(bits >> 10) & 0x1F, mantissa = UInt32(bits & 0x3FF)
        if exponent == 0x1F { return Float(Float16(bitPattern: bits)) }
        let negative = bits & 0x8000 != 0
        if exponent == 0 {
            let magnitude = Float(mantissa) * 0x1p-24
            return negative ? -magnitude : magnitude
        }
        return Float(bitPattern: (negative ? 0x8000_0000 : 0) | (exponent + 112) << 23 | mantissa << 13)
    }

    func hwc(_ t: Int, _ op: Operator) throws -> HWC {
        let s = model.tensors[t].shape
        guard s.count == 4, s[0] == 1 else { throw fail(op, "tensor '\(model.tensors[t].name)' has shape \(s); expected [1, H, W, C]") }
        return HWC(s[1], s[2], s[3])
    }

    /// Inputs each operator needs (optional ones such as bias excluded).
    static func requiredInputs(_ code: BuiltinOperator) -> Int {
        switch code {
        case .conv2D, .depthwiseConv2D, .fullyConnected, .add, .mul, .prelu, .mean, .pad, .resizeBilinear: return 2
        case .stridedSlice: return 4
        case .concatenation, .depthToSpace, .dequantize, .densify, .logistic, .maxPool2D, .reshape, .relu: return 1
        case .custom, .other: return 0
        }
    }

    mutating func build() throws -> [Step] {
        var ops: [Operator] = []
        for t in model.tensors where t.count > 1 << 28 {
            throw InferenceError.malformed(path: model.path, reason: "tensor '\(t.name)' has \(t.count) elements")
        }
        for op in model.operators {
            let needed = Self.requiredInputs(op.code)
            guard op.inputs.count >= needed, op.inputs.prefix(needed).allSatisfy({ $0 >= 0 }) else {
                throw fail(op, "needs \(needed) inputs, has \(op.inputs.filter { $0 >= 0 }.count)")
            }
            // Constants stored sparse (DENSIFY) or in half precision (DEQUANTIZE) become plain floats once, here.
            if op.code == .dequantize || op.code == .densify {
                guard let values = try constant(op.inputs[0]) else {
                    throw InferenceError.unsupportedOption(path: model.path, index: op.index, name: op.code.name, reason: "a non-constant input")
                }
                // The values stand for the output tensor, whose shape every later check trusts.
                guard values.count == model.tensors[op.outputs[0]].count else {
                    throw fail(op, "\(values.count) values for an output of shape \(model.tensors[op.outputs[0]].shape)")
                }
                constants[op.outputs[0]] = values
                continue
            }
            ops.append(op)
        }
        ops = Self.foldingRelu(ops, graphOutputs: model.outputs)
        ops = try foldingPads(ops)
        // Readers of each activation tensor (graph outputs count as a reader).
        var readers: [Int: Int] = [:]
        for op in ops { for t in op.inputs where t >= 0 { readers[t, default: 0] += 1 } }
        for t in model.outputs { readers[t, default: 0] += 1 }
        var producer: [Int: Int] = [:]
        for (i, op) in ops.enumerated() { for t in op.outputs { producer[t] = i } }

        var steps: [Step] = []
        var consumed = Set<Int>()   // indices into `ops` already fused into an earlier step
        for (i, op) in ops.enumerated() where !consumed.contains(i) {
            if op.code == .conv2D {
                // Fuse a following ADD (whose other operand is ready before this conv) and PRELU.
                var output = op.outputs[0]
                var residual: Int? = nil
                var residualActivation = Activation.none
                var alpha: [Float]? = nil
                if readers[output] == 1, let j = ops.indices.first(where: { $0 > i && ops[$0].inputs.contains(output) }) {
                    let next = ops[j]
                    if next.code == .add, case .activation(let act) = next.options,
                       model.tensors[next.inputs[0]].shape == model.tensors[next.inputs[1]].shape {
                        let other = next.inputs[0] == output ? next.inputs[1] : next.inputs[0]
                        // The other operand must be ready before this conv: made earlier, or made later by a
                        // few operators that need nothing of this conv (the palm models' max pool and channel
                        // pad of a block's input, its shortcut), which then run first.
                        let early = try constant(other) == nil ? hoistable(producer[other], before: i, ops: ops, producer: producer, consumed: consumed) : nil
                        if let early {
                            for h in early {
                                steps.append(try step(ops[h]))
                                consumed.insert(h)
                            }
                            residual = other
                            residualActivation = act
                            consumed.insert(j)
                            output = next.outputs[0]
                        }
                    }
                    if residual == nil || readers[output] == 1,
                       let k = ops.indices.first(where: { $0 > i && !consumed.contains($0) && ops[$0].inputs.first == output }),
                       ops[k].code == .prelu, readers[output] == 1, let a = try constant(ops[k].inputs[1]),
                       a.count == model.tensors[output].shape.last {
                        alpha = a
                        consumed.insert(k)
                        output = ops[k].outputs[0]
                    }
                }
                steps.append(try convStep(op, output: output, residual: residual, residualActivation: residualActivation, alpha: alpha))
                continue
            }
            steps.append(try step(op))
        }
        return steps
    }

    /// `ops` with each RELU whose input nothing else reads, made by an ADD or CONV_2D without an
    /// activation, turned into that operator's fused activation (the face detector's residual blocks end
    /// in ADD then RELU). The fused clamp and `DataMovement.relu` are the same clamp: outputs are unchanged,
    /// -0 and NaN included.
    static func foldingRelu(_ ops: [Operator], graphOutputs: [Int]) -> [Operator] {
        var readers: [Int: Int] = [:]
        for op in ops { for t in op.inputs where t >= 0 { readers[t, default: 0] += 1 } }
        for t in graphOutputs { readers[t, default: 0] += 1 }
        var producer: [Int: Int] = [:]
        for (i, op) in ops.enumerated() { for t in op.outputs { producer[t] = i } }
        var ops = ops
        var folded = Set<Int>()
        for (i, relu) in ops.enumerated() where relu.code == .relu {
            guard readers[relu.inputs[0]] == 1, let p = producer[relu.inputs[0]], ops[p].outputs.count == 1 else { continue }
            let op = ops[p]
            let options: OperatorOptions
            switch (op.code, op.options) {
            case (.add, .activation(.none)): options = .activation(.relu)
            case (.conv2D, .conv(var o)) where o.activation == .none:
                o.activation = .relu
                options = .conv(o)
            default: continue
            }
            ops[p] = Operator(index: op.index, code: op.code, inputs: op.inputs, outputs: relu.outputs, options: options)
            folded.insert(i)
        }
        return ops.enumerated().filter { !folded.contains($0.offset) }.map(\.element)
    }

    /// `ops` with each PAD of height and width only (zeros), whose output only a VALID convolution or depthwise
    /// convolution reads, turned into that convolution's own padding: the kernels skip taps outside the input
    /// as they do for SAME padding, and the padded copy (a pass over memory, 7% of pose_detection's time on two
    /// threads) is never made. The products are the same: a zero tap adds nothing.
    mutating func foldingPads(_ ops: [Operator]) throws -> [Operator] {
        var readers: [Int: [Int]] = [:]
        for (i, op) in ops.enumerated() { for t in op.inputs where t >= 0 { readers[t, default: []].append(i) } }
        for t in model.outputs { readers[t, default: []].append(-1) }
        var ops = ops
        var folded = Set<Int>()
        for (i, pad) in ops.enumerated() where pad.code == .pad {
            guard let users = readers[pad.outputs[0]], users.count == 1, let j = users.first, j > i,
                  ops[j].code == .conv2D || ops[j].code == .depthwiseConv2D, ops[j].inputs.first == pad.outputs[0],
                  case .conv(let o) = ops[j].options, o.padding == .valid,
                  model.tensors[pad.inputs[0]].shape.count == 4, let p = try integers(pad.inputs[1], pad), p.count == 8,
                  p.allSatisfy({ (0...64).contains($0) }), p[0] == 0, p[1] == 0, p[6] == 0, p[7] == 0 else { continue }
            // Padding within the kernel's reach (as SAME's is) on an input at least a kernel wide: the kernels'
            // edge arithmetic is written for that, and a 1x1 layer then has none to fold.
            let conv = ops[j], input = model.tensors[pad.inputs[0]].shape, filter = model.tensors[conv.inputs[1]].shape
            guard filter.count == 4 else { continue }
            let reachH = (filter[1] - 1) * o.dilationH, reachW = (filter[2] - 1) * o.dilationW
            guard p[2] <= reachH, p[3] <= reachH, p[4] <= reachW, p[5] <= reachW, input[1] > reachH, input[2] > reachW else { continue }
            foldedPadding[conv.index] = (p[2], p[3], p[4], p[5])
            ops[j] = Operator(index: conv.index, code: conv.code, inputs: [pad.inputs[0]] + conv.inputs.dropFirst(), outputs: conv.outputs,
                              options: conv.options)
            folded.insert(i)
        }
        return ops.enumerated().filter { !folded.contains($0.offset) }.map(\.element)
    }

    /// The window of convolution `op` over `input`: its options' padding, or the padding a PAD before it added.
    func window(_ op: Operator, input: HWC, kh: Int, kw: Int, _ o: Conv2DOptions) -> Window {
        guard let pad = foldedPadding[op.index] else {
            return Window(input: input, kh: kh, kw: kw, sh: o.strideH, sw: o.strideW, dh: o.dilationH, dw: o.dilationW, padding: o.padding)
        }
        let padded = HWC(input.h + pad.top + pad.bottom, input.w + pad.left + pad.right, input.c)
        var window = Window(input: padded, kh: kh, kw: kw, sh: o.strideH, sw: o.strideW, dh: o.dilationH, dw: o.dilationW, padding: .valid)
        window.padTop = pad.top
        window.padLeft = pad.left
        return window
    }

    /// Operators to run before op `i` so that tensor-producing op `p` (nil: a graph input) has run: none
    /// if it comes before `i`; otherwise it and what it needs, in graph order, if that is at most three
    /// operators, none a convolution (those fuse with what follows them) or already placed. Nil if not.
    func hoistable(_ p: Int?, before i: Int, ops: [Operator], producer: [Int: Int], consumed: Set<Int>) -> [Int]? {
        var needed = Set<Int>()
        func visit(_ p: Int?) -> Bool {
            guard let p, p > i else { return true }
            if needed.contains(p) { return true }
            guard !consumed.contains(p), ops[p].code != .conv2D, needed.count < 3 else { return false }
            needed.insert(p)
            return ops[p].inputs.allSatisfy { $0 < 0 || visit(producer[$0]) }
        }
        return visit(p) ? needed.sorted() : nil
    }

    mutating func convStep(_ op: Operator, output: Int, residual: Int?, residualActivation: Activation, alpha: [Float]?) throws -> Step {
        guard case .conv(let o) = op.options else { throw fail(op, "missing options") }
        let input = try hwc(op.inputs[0], op)
        let out = try hwc(op.outputs[0], op)
        let ws = model.tensors[op.inputs[1]].shape
        guard ws.count == 4, ws[3] == input.c, ws[0] == out.c, let w = try constant(op.inputs[1]) else {
            throw fail(op, "filter shape \(ws) does not fit input \(input) and output \(out)")
        }
        let bias = op.inputs.count > 2 && op.inputs[2] >= 0 ? try constant(op.inputs[2]) : nil
        guard bias.map({ $0.count == out.c }) ?? true else { throw fail(op, "\(bias!.count) biases for \(out.c) outputs") }
        let window = window(op, input: input, kh: ws[1], kw: ws[2], o)
        guard window.outH == out.h, window.outW == out.w else { throw fail(op, "output \(out) but the window gives \(window.outH)x\(window.outW)") }
        // The tensor written is the fused ADD's or PRELU's output, when there is one: the convolution's size too.
        guard model.tensors[output].count == out.h * out.w * out.c, residual.map({ model.tensors[$0].count == model.tensors[output].count }) ?? true else {
            throw fail(op, "a fused operator's tensors are not the size of the convolution's output \(out)")
        }
        let conv = Conv2D(input: input, outputChannels: out.c, window: window, weights: w, bias: bias)
        var alphaBuffer: FloatBuffer? = nil
        if let alpha {
            // One slope a channel: the buffer holds the convolution's output channels, rounded up to panels.
            guard alpha.count == out.c else { throw fail(op, "\(alpha.count) slopes for \(out.c) channels") }
            alphaBuffer = FloatBuffer(count: conv.weights.panels * 16)
            for (j, a) in alpha.enumerated() { alphaBuffer!.pointer[j] = a }
        }
        return ConvStep(conv: conv, input: op.inputs[0], output: output, residual: residual,
                        activation: o.activation, residualActivation: residualActivation, alpha: alphaBuffer)
    }

    mutating func step(_ op: Operator) throws -> Step {
        let out = op.outputs[0]
        let outCount = model.tensors[out].count
        switch op.code {
        case .depthwiseConv2D:
            guard case .conv(let o) = op.options else { throw fail(op, "missing options") }
            guard o.depthMultiplier == 1 else {
                throw InferenceError.unsupportedOption(path: model.path, index: op.index, name: op.code.name, reason: "depth multiplier \(o.depthMultiplier)")
            }
            let input = try hwc(op.inputs[0], op), output = try hwc(out, op)
            let ws = model.tensors[op.inputs[1]].shape
            guard ws.count == 4, ws[3] == input.c, output.c == input.c, let w = try constant(op.inputs[1]) else {
                throw fail(op, "filter shape \(ws) does not fit input \(input)")
            }
            let bias = op.inputs.count > 2 && op.inputs[2] >= 0 ? try constant(op.inputs[2]) : nil
            guard bias.map({ $0.count == input.c }) ?? true else { throw fail(op, "\(bias!.count) biases for \(input.c) channels") }
            let window = window(op, input: input, kh: ws[1], kw: ws[2], o)
            guard window.outH == output.h, window.outW == output.w else { throw fail(op, "output \(output) does not match the window") }
            return DepthwiseStep(conv: DepthwiseConv2D(input: input, window: window, weights: w, bias: bias, activation: o.activation),
                                 input: op.inputs[0], output: out)
        case .maxPool2D:
            guard case .pool(let o) = op.options else { throw fail(op, "missing options") }
            let input = try hwc(op.inputs[0], op), output = try hwc(out, op)
            let window = Window(input: input, kh: o.filterH, kw: o.filterW, sh: o.strideH, sw: o.strideW, padding: o.padding)
            guard window.outH == output.h, window.outW == output.w, output.c == input.c else { throw fail(op, "output \(output) does not match the window") }
            return MaxPoolStep(shape: input, window: window, activation: o.activation, input: op.inputs[0], output: out)
        case .mean:
            let input = try hwc(op.inputs[0], op)
            let axes = try integers(op.inputs[1], op) ?? []
            guard Set(axes) == [1, 2], outCount == input.c else { throw fail(op, "only the mean over height and width is supported (axes \(axes))") }
            return MeanStep(shape: input, input: op.inputs[0], output: out)
        case .add:
            guard case .activation(let act) = op.options else { throw fail(op, "missing options") }
            let a = model.tensors[op.inputs[0]], b = model.tensors[op.inputs[1]]
            guard a.shape == b.shape, try constant(a.index) == nil, try constant(b.index) == nil else {
                throw fail(op, "broadcasting or constant operands (\(a.shape) + \(b.shape))")
            }
            guard a.count == outCount else { throw fail(op, "output of \(outCount) values for operands of \(a.count)") }
            return AddStep(a: a.index, b: b.index, output: out, count: outCount, activation: act)
        case .prelu:
            let shape = model.tensors[op.inputs[0]].shape
            guard let alpha = try constant(op.inputs[1]), let c = shape.last, c > 0, alpha.count == c else {
                throw fail(op, "slopes must be constant, one per channel")
            }
            guard model.tensors[op.inputs[0]].count == outCount else { throw fail(op, "output of \(outCount) values for an input of \(shape)") }
            return PReluStep(input: op.inputs[0], output: out, alpha: FloatBuffer(alpha), channels: c, pixels: outCount / c)
        case .logistic:
            guard model.tensors[op.inputs[0]].count == outCount else { throw fail(op, "input and output sizes differ") }
            return LogisticStep(input: op.inputs[0], output: out, count: outCount)
        case .reshape:
            guard model.tensors[op.inputs[0]].count == outCount else { throw fail(op, "element counts differ") }
            return CopyStep(input: op.inputs[0], output: out, count: outCount)
        case .pad:
            var shape = model.tensors[op.inputs[0]].shape
            guard let p = try integers(op.inputs[1], op), p.count == shape.count * 2, shape.count <= 4 else {
                throw fail(op, "paddings must be constant, two per dimension, rank 4 at most")
            }
            var pads = (0..<shape.count).map { (p[2 * $0], p[2 * $0 + 1]) }
            while shape.count < 4 { shape.insert(1, at: 0); pads.insert((0, 0), at: 0) }
            guard pads.allSatisfy({ $0.0 >= 0 && $0.1 >= 0 }) else { throw fail(op, "negative padding") }
            var padded = 1
            for (n, pad) in zip(shape, pads) {
                let (product, overflow) = padded.multipliedReportingOverflow(by: n + pad.0 + pad.1)
                guard !overflow, product <= outCount else { throw fail(op, "padded size differs from the output") }
                padded = product
            }
            guard padded == outCount else { throw fail(op, "padded size differs from the output") }
            return PadStep(input: op.inputs[0], output: out, shape: shape, pads: pads)
        case .depthToSpace:
            guard case .blockSize(let b) = op.options, b >= 1 else { throw fail(op, "block size") }
            let x = try hwc(op.inputs[0], op), y = try hwc(out, op)
            guard x.c % (b * b) == 0, y == HWC(x.h * b, x.w * b, x.c / (b * b)) else { throw fail(op, "output shape \(y) for block \(b) of \(x)") }
            return DepthToSpaceStep(input: op.inputs[0], output: out, shape: x, block: b)
        case .concatenation:
            guard case .concat(var axis, let act) = op.options, act == .none else { throw fail(op, "fused activation") }
            let outShape = model.tensors[out].shape
            if axis < 0 { axis += outShape.count }
            guard axis >= 0, axis < outShape.count else { throw fail(op, "axis \(axis)") }
            let outer = outShape[..<axis].reduce(1, *), inner = outShape[(axis + 1)...].reduce(1, *)
            var parts: [(Int, Int)] = []
            for t in op.inputs {
                guard t >= 0 else { throw fail(op, "an input left out") }
                let s = model.tensors[t].shape
                guard s.count == outShape.count, try constant(t) == nil else { throw fail(op, "input shapes") }
                parts.append((t, s[axis]))
            }
            guard parts.reduce(0, { $0 + $1.1 }) == outShape[axis] else { throw fail(op, "sizes along the axis do not add up") }
            return ConcatStep(inputs: parts, output: out, outer: outer, inner: inner)
        case .resizeBilinear:
            guard case .resize(let align, let half) = op.options else { throw fail(op, "missing options") }
            let input = try hwc(op.inputs[0], op), output = try hwc(out, op)
            guard output.c == input.c else { throw fail(op, "output \(output) for input \(input): the channels differ") }
            return ResizeStep(input: op.inputs[0], output: out, shape: input, outH: output.h, outW: output.w,
                              alignCorners: align, halfPixelCenters: half)
        case .fullyConnected:
            guard case .activation(let act) = op.options else { throw fail(op, "missing options") }
            let ws = model.tensors[op.inputs[1]].shape
            guard ws.count == 2, let w = try constant(op.inputs[1]) else { throw fail(op, "weights must be constant [N, K]") }
            let (n, k) = (ws[0], ws[1])
            let inCount = model.tensors[op.inputs[0]].count
            guard n > 0, k > 0, w.count == n * k, inCount % k == 0, outCount == inCount / k * n else { throw fail(op, "input \(inCount) values for K=\(k)") }
            let bias = op.inputs.count > 2 && op.inputs[2] >= 0 ? try constant(op.inputs[2]) : nil
            guard bias.map({ $0.count == n }) ?? true else { throw fail(op, "\(bias!.count) biases for \(n) outputs") }
            return FullyConnectedStep(fc: FullyConnected(k: k, n: n, weights: w, bias: bias, activation: act),
                                      input: op.inputs[0], output: out, batch: inCount / k)
        case .relu:
            guard model.tensors[op.inputs[0]].count == outCount else { throw fail(op, "input and output sizes differ") }
            return ReluStep(input: op.inputs[0], output: out, count: outCount)
        case .mul:
            guard case .activation(let act) = op.options, act == .none else { throw fail(op, "a fused activation") }
            // The operand of one value (or the constant one, if both are whole) goes second.
            var (a, b) = (op.inputs[0], op.inputs[1])
            let aConstant = try constant(a) != nil
            if model.tensors[a].count == 1 && model.tensors[b].count == outCount || aConstant { swap(&a, &b) }
            guard model.tensors[a].count == outCount, model.tensors[b].count == outCount || model.tensors[b].count == 1 else {
                throw fail(op, "broadcasting other than by one value (\(model.tensors[a].shape) * \(model.tensors[b].shape))")
            }
            func operand(_ t: Int) throws -> MulStep.Operand {
                try constant(t).map { .constant(FloatBuffer($0)) } ?? .tensor(t)
            }
            let first = try operand(a)
            if case .constant = first { throw fail(op, "both operands constant") }
            return MulStep(a: first, b: try operand(b), output: out, count: outCount, broadcast: model.tensors[b].count == 1)
        case .custom(let name):
            guard case .custom(let options) = op.options else { throw fail(op, "missing options") }
            return try customStep(op, name: name, options: options)
        case .stridedSlice:
            guard case .slice(let beginMask, let endMask) = op.options else { throw fail(op, "missing options") }
            let shape = model.tensors[op.inputs[0]].shape
            guard shape.count <= 4, let b = try integers(op.inputs[1], op), let e = try integers(op.inputs[2], op),
                  let st = try integers(op.inputs[3], op), b.count == shape.count, e.count == shape.count, st.count == shape.count else {
                throw fail(op, "begin, end and strides must be constant, one per dimension, rank 4 at most")
            }
            var slice = StridedSlice.Dimensions()
            for d in shape.indices {
                let n = shape[d], s = st[d]
                guard s > 0 else { throw fail(op, "stride \(s) on dimension \(d): only positive strides") }
                func clamp(_ v: Int) -> Int { min(max(v < 0 ? v + n : v, 0), n) }
                let lo = beginMask & (1 << d) != 0 ? 0 : clamp(b[d])
                let hi = endMask & (1 << d) != 0 ? n : clamp(e[d])
                slice.append(size: n, begin: lo, stride: s, count: hi > lo ? (hi - lo + s - 1) / s : 0)
            }
            guard slice.outputCount == outCount else { throw fail(op, "the slice has \(slice.outputCount) values, the output \(outCount)") }
            return StridedSliceStep(input: op.inputs[0], output: out, slice: slice)
        case .conv2D, .dequantize, .densify, .other:
            throw InferenceError.unsupportedOperator(path: model.path, index: op.index, name: op.code.name)
        }
    }

    /// MediaPipe's custom operators in the face mesh with attention (mediapipe/util/tflite/operations), each
    /// option checked against its range before use.
    mutating func customStep(_ op: Operator, name: String, options: CustomOptions) throws -> Step {
        let out = op.outputs[0]
        guard op.inputs.allSatisfy({ $0 >= 0 }) else { throw fail(op, "an input left out") }
        // Version 1 of these operators has other options and other arithmetic.
        guard options.version == 2 else {
            throw InferenceError.unsupportedOption(path: model.path, index: op.index, name: name, reason: "version \(options.version) (only 2)")
        }
        func matrix(_ t: Int) throws -> Int {
            guard model.tensors[t].count == 16, try constant(t) == nil else { throw fail(op, "the matrix must be a computed [1, 4, 4]") }
            return t
        }
        switch name {
        case "Landmarks2TransformMatrix":
            guard op.inputs.count == 1 else { throw fail(op, "expects one input, the landmarks") }
            let s = model.tensors[op.inputs[0]].shape
            guard s.count == 3, s[0] == 1, s[1] >= 1, s[2] == 3, try constant(op.inputs[0]) == nil,
                  model.tensors[out].count == 16 else {
                throw fail(op, "expects landmarks [1, N, 3] and a [1, 4, 4] output")
            }
            let n = s[1]
            let subset = try options.ints("subset_idxs", in: 0...(n - 1))
            guard !subset.isEmpty else { throw fail(op, "an empty subset") }
            return LandmarksToMatrixStep(input: op.inputs[0], output: out, subset: subset,
                                         left: try options.int("left_rotation_idx", in: 0...(n - 1)),
                                         right: try options.int("right_rotation_idx", in: 0...(n - 1)),
                                         width: try options.int("output_width", in: 1...4096),
                                         height: try options.int("output_height", in: 1...4096),
                                         scale: SIMD2(try options.float("scale_x", in: Float.leastNormalMagnitude...1000),
                                                      try options.float("scale_y", in: Float.leastNormalMagnitude...1000)),
                                         targetAngle: try options.float("target_rotation_radians", in: -7...7))
        case "TransformTensorBilinear":
            guard op.inputs.count == 2, try constant(op.inputs[0]) == nil else { throw fail(op, "expects a map and a matrix") }
            let input = try hwc(op.inputs[0], op), output = try hwc(out, op)
            guard output.c == input.c, output.h == (try options.int("output_height", in: 1...4096)),
                  output.w == (try options.int("output_width", in: 1...4096)) else {
                throw fail(op, "output \(output) differs from the options' size or the input's channels")
            }
            return TransformTensorStep(input: op.inputs[0], matrix: try matrix(op.inputs[1]), output: out, shape: input,
                                       outH: output.h, outW: output.w)
        case "TransformLandmarks":
            guard op.inputs.count == 2 else { throw fail(op, "expects the landmarks and a matrix") }
            let s = model.tensors[op.inputs[0]].shape
            guard s.count == 3, s[0] == 1, s[2] == 2 || s[2] == 3, model.tensors[out].shape == s,
                  try constant(op.inputs[0]) == nil else {
                throw fail(op, "expects landmarks [1, N, 2 or 3] and an output of the same shape")
            }
            return TransformLandmarksStep(input: op.inputs[0], matrix: try matrix(op.inputs[1]), output: out, points: s[1], dimensions: s[2])
        default:
            throw InferenceError.unsupportedOperator(path: model.path, index: op.index, name: "custom operator \(name)")
        }
    }
}
