/// The plan's steps: each binds one kernel to its tensors and splits it over threads.

struct ConvStep: Step {
    /// A 1x1 layer with fewer output pixels than this a thread (fewer than four of the AVX-512 kernel's
    /// 12-row tiles) splits its columns instead, when its panels divide evenly: each thread then reads only
    /// its share of the weights, and the rows keep the tiling of one thread (an uneven split, 4 and 3 of 7
    /// panels, was slower than splitting the rows). The 7x7 layers (49 rows, 0.9 MB of weights)
    /// on two threads: 0.063 -> 0.056 ms (hand_landmark_full, AVX-512).
    static let panelSplitRows = 48
    let conv: Conv2D
    let input: Int, output: Int
    let residual: Int?
    let activation: Activation
    let residualActivation: Activation
    let alpha: FloatBuffer?

    var reads: [Int] { [input] + (residual.map { [$0] } ?? []) }
    var writes: [Int] { [output] }
    var constants: [FloatBuffer] { [conv.weights.data, conv.weights.bias] + (conv.taps.map { [$0] } ?? []) + (alpha.map { [$0] } ?? []) }
    var scratchCount: Int { conv.scratchCount }
    var multiplyAdds: Int { conv.output.h * conv.output.w * conv.weights.k * conv.output.c }
    var description: String {
        let w = conv.window
        return "conv \(w.kh)x\(w.kw)/\(w.sh) \(conv.input) -> \(conv.output) \(activation)" + (residual == nil ? "" : " +residual")
    }

    /// The activation, residual (at its place in this run's arena) and slopes after the product.
    func epilogue(_ ctx: RunContext) -> Epilogue {
        var e = Epilogue(activation: activation)
        e.residualActivation = residualActivation
        if let residual { e.residual = UnsafePointer(ctx.pointer(residual)) }
        if let alpha { e.alpha = UnsafePointer(alpha.pointer) }
        return e
    }

    func run(_ ctx: RunContext) {
        let e = epilogue(ctx)
        let x = UnsafePointer(ctx.pointer(input)), y = ctx.pointer(output)
        let pixels = conv.output.h * conv.output.w
        let threads = ctx.parallel.threads, panels = conv.weights.panels
        if conv.isPointwise && threads > 1 && pixels < Self.panelSplitRows * threads && panels % threads == 0 {
            ctx.parallel.split(panels, cost: pixels * conv.weights.k * conv.output.c) { part, _ in
                ctx.kernels.gemm(a: x, lda: conv.input.c, rows: 0..<pixels, panels: part, weights: conv.weights, c: y,
                                 ldc: conv.output.c, epilogue: e)
            }
            return
        }
        ctx.parallel.split(pixels, cost: pixels * conv.weights.k * conv.output.c) { range, slot in
            ctx.kernels.conv(conv, input: x, output: y, pixels: range, scratch: ctx.scratch + slot * ctx.scratchPerThread, epilogue: e)
        }
    }
}

struct DepthwiseStep: Step {
    let conv: DepthwiseConv2D
    let input: Int, output: Int
    var multiplyAdds: Int { conv.output.count * conv.window.kh * conv.window.kw }
    var description: String {
        let w = conv.window
        return "depthwise \(w.kh)x\(w.kw)/\(w.sh) \(conv.input) -> \(conv.output) \(conv.activation)"
    }
    var constants: [FloatBuffer] { [conv.weights, conv.bias] }
    var reads: [Int] { [input] }
    var writes: [Int] { [output] }

    func run(_ ctx: RunContext) {
        let x = UnsafePointer(ctx.pointer(input)), y = ctx.pointer(output)
        let o = conv.output, cost = o.count * conv.window.kh * conv.window.kw
        let threads = ctx.parallel.threads
        guard o.h < 4 * threads && o.h % threads != 0 else {
            ctx.parallel.split(o.h, cost: cost) { rows, _ in
                ctx.kernels.depthwise(conv, input: x, output: y, rows: rows)
            }
            return
        }
        // Few rows that do not divide evenly (the landmark models' 7x7 maps: 4 and 3 on two threads, the
        // busier thread doing 57% of the work): split the channels instead, in blocks of 16.
        let blocks = (o.c + 15) / 16
        ctx.parallel.split(blocks, cost: cost) { part, _ in
            ctx.kernels.depthwise(conv, input: x, inputFirstRow: 0, output: y, outputFirstRow: 0, rows: 0..<o.h,
                                  channels: (part.lowerBound * 16)..<min(o.c, part.upperBound * 16))
        }
    }
}

struct MaxPoolStep: Step {
    let shape: HWC
    let window: Window
    let activation: Activation
    let input: Int, output: Int
    var reads: [Int] { [input] }
    var writes: [Int] { [output] }

    func run(_ ctx: RunContext) {
        let x = UnsafePointer(ctx.pointer(input)), y = ctx.pointer(output)
        ctx.parallel.split(window.outH, cost: shape.count) { rows, _ in
            ctx.kernels.maxPool(input: x, shape: shape, window: window, activation: activation, output: y, rows: rows)
        }
    }
}

struct MeanStep: Step {
    let shape: HWC
    let input: Int, output: Int
    var reads: [Int] { [input] }
    var writes: [Int] { [output] }
    func run(_ ctx: RunContext) { DataMovement.meanHW(input: ctx.pointer(input), shape: shape, output: ctx.pointer(output)) }
}

struct AddStep: Step {
    let a: Int, b: Int, output: Int, count: Int
    let activation: Activation
    var reads: [Int] { [a, b] }
    var writes: [Int] { [output] }
    func run(_ ctx: RunContext) {
        let x = UnsafePointer(ctx.pointer(a)), z = UnsafePointer(ctx.pointer(b)), y = ctx.pointer(output)
        let n = count
        ctx.parallel.split((n + 63) / 64, cost: n) { blocks, _ in
            ctx.kernels.add(x, z, y, range: (blocks.lowerBound * 64)..<min(n, blocks.upperBound * 64), activation: activation)
        }
    }
}

struct PReluStep: Step {
    let input: Int, output: Int
    let alpha: FloatBuffer
    let channels: Int, pixels: Int
    var constants: [FloatBuffer] { [alpha] }
    var reads: [Int] { [input] }
    var writes: [Int] { [output] }
    func run(_ ctx: RunContext) {
        let x = UnsafePointer(ctx.pointer(input)), y = ctx.pointer(output)
        ctx.parallel.split(pixels, cost: pixels * channels) { range, _ in
            ctx.kernels.prelu(x, alpha: alpha.pointer, channels: channels, y, pixels: range)
        }
    }
}

struct LogisticStep: Step {
    let input: Int, output: Int, count: Int
    var reads: [Int] { [input] }
    var writes: [Int] { [output] }
    func run(_ ctx: RunContext) { DataMovement.logistic(ctx.pointer(input), ctx.pointer(output), count: count) }
}

struct ReluStep: Step {
    let input: Int, output: Int, count: Int
    var reads: [Int] { [input] }
    var writes: [Int] { [output] }
    func run(_ ctx: RunContext) { DataMovement.relu(ctx.pointer(input), ctx.pointer(output), count: count) }
}

/// TFLite's STRIDED_SLICE with positive strides: every dimension sampled from `begin` in steps of `stride`.
struct StridedSliceStep: Step {
    let input: Int, output: Int
    let slice: StridedSlice.Dimensions
    var reads: [Int] { [input] }
    var writes: [Int] { [output] }
    func run(_ ctx: RunContext) { DataMovement.stridedSlice(ctx.pointer(input), slice, ctx.pointer(output)) }
}

struct CopyStep: Step {
    let input: Int, output: Int, count: Int
    var reads: [Int] { [input] }
    var writes: [Int] { [output] }
    func run(_ ctx: RunContext) { ctx.pointer(output).update(from: ctx.pointer(input), count: count) }
}

struct PadStep: Step {
    let input: Int, output: Int
    let shape: [Int]
    let pads: [(Int, Int)]
    var reads: [Int] { [input] }
    var writes: [Int] { [output] }
    func run(_ ctx: RunContext) {
        let x = UnsafePointer(ctx.pointer(input)), y = ctx.pointer(output)
        guard pads[0] == (0, 0), pads[1] == (0, 0), pads[2] == (0, 0) else {
            DataMovement.pad(x, shape: shape, pads: pads, y)
            return
        }
        // Channels only (the palm models' shortcuts, 32 -> 64 channels): each pixel written once, split
        // over the threads.
        let pixels = shape[0] * shape[1] * shape[2]
        ctx.parallel.split(pixels, cost: pixels * (shape[3] + pads[3].0 + pads[3].1)) { range, _ in
            DataMovement.padChannels(x, channels: shape[3], before: pads[3].0, after: pads[3].1, y, pixels: range)
        }
    }
}

/// TFLite's DEPTH_TO_SPACE (DCR order): input pixel (h, w) holds a block x block patch of output pixels,
/// row by row, each `c / block²` channels.
struct DepthToSpaceStep: Step {
    let input: Int, output: Int
    let shape: HWC
    let block: Int
    var reads: [Int] { [input] }
    var writes: [Int] { [output] }
    func run(_ ctx: RunContext) {
        let x = UnsafePointer(ctx.pointer(input)), y = ctx.pointer(output)
        let b = block, cOut = shape.c / (b * b), outW = shape.w * b
        for h in 0..<shape.h {
            for w in 0..<shape.w {
                let source = x + (h * shape.w + w) * shape.c
                for dy in 0..<b {
                    let row = y + ((h * b + dy) * outW + w * b) * cOut
                    (row).update(from: source + dy * b * cOut, count: b * cOut)
                }
            }
        }
    }
}

struct ConcatStep: Step {
    let inputs: [(tensor: Int, axisSize: Int)]
    let output: Int, outer: Int, inner: Int
    var reads: [Int] { inputs.map(\.tensor) }
    var writes: [Int] { [output] }
    func run(_ ctx: RunContext) {
        DataMovement.concat(inputs.map { (UnsafePointer(ctx.pointer($0.tensor)), $0.axisSize) },
                            outer: outer, inner: inner, ctx.pointer(output))
    }
}

struct ResizeStep: Step {
    let input: Int, output: Int
    let shape: HWC
    let outH: Int, outW: Int
    let alignCorners: Bool, halfPixelCenters: Bool
    var reads: [Int] { [input] }
    var writes: [Int] { [output] }
    func run(_ ctx: RunContext) {
        let x = UnsafePointer(ctx.pointer(input)), y = ctx.pointer(output)
        ctx.parallel.split(outH, cost: outH * outW * shape.c * 4) { rows, _ in
            DataMovement.resizeBilinear(x, input: shape, outH: outH, outW: outW, alignCorners: alignCorners,
                                        halfPixelCenters: halfPixelCenters, y, rows: rows)
        }
    }
}

struct FullyConnectedStep: Step {
    let fc: FullyConnected
    let input: Int, output: Int, batch: Int
    var multiplyAdds: Int { batch * fc.k * fc.n }
    var constants: [FloatBuffer] { [fc.weights, fc.bias] }
    var reads: [Int] { [input] }
    var writes: [Int] { [output] }
    func run(_ ctx: RunContext) { ctx.kernels.fullyConnected(fc, ctx.pointer(input), ctx.pointer(output), batch: batch) }
}
