import Kernels

/// A depthwise-separable block run over bands of rows: an optional 1x1 expansion, the depthwise
/// convolution and the 1x1 projection (with its residual and slopes), each band's rows going through
/// all three while they are in the core's cache. Unfused, the wide intermediates (112x112x64 in the
/// landmark models, 96x96x32 in the palm models) each make a trip out to the last-level cache and back.
///
/// Each thread takes a contiguous range of output rows and walks it in bands of `bandRows`. The
/// expansion's rows for a band go into the thread's scratch, where the rows the next band shares with
/// this one stay (moved to the front), so every expanded row is computed once per thread. Results
/// equal the unfused steps' bit for bit: every output value is formed by the same kernel arithmetic.
struct BlockStep: Step {
    let expand: ConvStep?
    let depthwiseStep: DepthwiseStep
    let project: ConvStep
    /// Depthwise output rows per band.
    let bandRows: Int

    private var depthwise: DepthwiseConv2D { depthwiseStep.conv }
    /// The block's input: the expansion's, or the depthwise convolution's.
    var input: Int { expand?.input ?? depthwiseStep.input }

    /// Scratch floats for a band's expanded input rows (none without an expansion), and for one band
    /// of depthwise output.
    private var expandedFloats: Int { expand == nil ? 0 : (Self.inputRows(depthwise, bandRows) * Self.rowFloats(depthwise.input) + 15) & ~15 }
    private var bandFloats: Int { (bandRows * Self.rowFloats(depthwise.output) + 15) & ~15 }
    /// Floats of one row of an NHWC tensor.
    static func rowFloats(_ s: HWC) -> Int { s.w * s.c }

    var reads: [Int] { [input] + (project.residual.map { [$0] } ?? []) }
    var writes: [Int] { [project.output] }
    var scratchCount: Int { expandedFloats + bandFloats }
    var constants: [FloatBuffer] { (expand?.constants ?? []) + depthwiseStep.constants + project.constants }
    var multiplyAdds: Int { (expand?.multiplyAdds ?? 0) + depthwiseStep.multiplyAdds + project.multiplyAdds }
    var description: String {
        "block " + (expand.map { "\($0.description), " } ?? "") + "\(depthwiseStep.description), "
            + project.description + " (bands of \(bandRows) rows)"
    }

    /// Input rows a band of `rows` output rows reads at most (kernel height plus the stride's steps).
    static func inputRows(_ d: DepthwiseConv2D, _ rows: Int) -> Int {
        (rows - 1) * d.window.sh + (d.window.kh - 1) * d.window.dh + 1
    }

    /// The input rows output rows `rows` read, clipped to the input.
    private func inputRange(_ rows: Range<Int>) -> Range<Int> {
        let top = rows.lowerBound * depthwise.window.sh - depthwise.window.padTop
        let lo = max(0, top), hi = min(depthwise.input.h, top + Self.inputRows(depthwise, rows.count))
        return lo..<max(lo, hi)
    }

    func run(_ ctx: RunContext) {
        let d = depthwise, dIn = d.input, dOut = d.output
        let inRow = Self.rowFloats(dIn)
        let x = UnsafePointer(ctx.pointer(input)), y = ctx.pointer(project.output)
        let expandEpilogue = expand?.epilogue(ctx)
        let projectEpilogue = project.epilogue(ctx)
        let kernels = ctx.kernels
        ctx.parallel.split(dOut.h, cost: multiplyAdds) { rows, slot in
            let expanded = ctx.scratch + slot * ctx.scratchPerThread
            let band = expanded + expandedFloats
            var held = 0..<0   // expanded rows in `expanded`, the first at its start
            var oy = rows.lowerBound
            while oy < rows.upperBound {
                let end = min(oy + bandRows, rows.upperBound)
                let need = inputRange(oy..<end)
                // The depthwise kernel reads input rows `need` from the scratch (row `need.lowerBound`
                // first) or the whole input, and writes output rows `oy..<end` to the band.
                let source: UnsafePointer<Float>, sourceFirstRow: Int
                if let expand, let expandEpilogue {
                    var first = need.lowerBound
                    if need.lowerBound < held.upperBound && need.lowerBound >= held.lowerBound {
                        let keep = held.upperBound - need.lowerBound
                        expanded.update(from: expanded + (need.lowerBound - held.lowerBound) * inRow, count: keep * inRow)
                        first = held.upperBound
                    }
                    if first < need.upperBound {
                        let cin = expand.conv.input.c
                        kernels.gemm(a: x + first * dIn.w * cin, lda: cin, rows: 0..<((need.upperBound - first) * dIn.w),
                                     weights: expand.conv.weights, c: expanded + (first - need.lowerBound) * inRow, ldc: dIn.c,
                                     epilogue: expandEpilogue)
                    }
                    held = need
                    (source, sourceFirstRow) = (UnsafePointer(expanded), need.lowerBound)
                } else {
                    (source, sourceFirstRow) = (x, 0)
                }
                kernels.depthwise(d, input: source, inputFirstRow: sourceFirstRow, output: band, outputFirstRow: oy, rows: oy..<end)
                var e = projectEpilogue
                if let r = e.residual { e.residual = r + oy * dOut.w * project.conv.output.c }
                kernels.gemm(a: band, lda: dOut.c, rows: 0..<((end - oy) * dOut.w), weights: project.conv.weights,
                             c: y + oy * dOut.w * project.conv.output.c, ldc: project.conv.output.c, epilogue: e)
                oy = end
            }
        }
    }
}

extension PlanBuilder {
    /// Per thread, the expanded input rows of one band (or, without an expansion, its depthwise output
    /// rows) take at most 192 KB, well inside a core's L2 cache on the CPUs this runs on (512 KB to
    /// 2 MB) with the band's other rows, so they stay there between the three kernels.
    static let bandBudgetFloats = 48 * 1024
    /// Blocks whose depthwise input and output both have fewer floats than this (640 KB) stay unfused:
    /// those tensors stay in the cache anyway, and a band's set-up would cost more than it saves.
    static let fuseAboveFloats = 160 * 1024

    /// Fuses `[1x1 expansion ->] depthwise -> 1x1 projection` chains whose intermediate tensors are
    /// read by nothing else, and whose depthwise input or output is large, into `BlockStep`s.
    static func fuseBlocks(_ steps: [Step], outputs: [Int]) -> [Step] {
        var readers: [Int: Int] = [:]
        for s in steps { for t in s.reads { readers[t, default: 0] += 1 } }
        for t in outputs { readers[t, default: 0] += 1 }
        func onlyFor(_ t: Int) -> Bool { readers[t] == 1 }
        /// Step `from` or, past up to `skipping` steps that read none of `avoiding`, the first step after it
        /// that reads `tensor`; with the steps passed over.
        func next(reading tensor: Int, from: Int, avoiding: Set<Int>, skipping: Int) -> (index: Int, passed: [Int])? {
            var passed: [Int] = []
            var j = from
            while j < steps.count {
                if steps[j].reads.contains(tensor) { return (j, passed) }
                guard passed.count < skipping, avoiding.isDisjoint(with: steps[j].reads) else { return nil }
                passed.append(j)
                j += 1
            }
            return nil
        }
        /// The block that starts at step `i` (its expansion when `expanding`, else its depthwise step), and the
        /// steps between its members: those read nothing the block's members before them write (the models'
        /// shortcuts: a max pool, a channel pad), so they run first.
        func block(at i: Int, expanding: Bool) -> (block: BlockStep, members: [Int], first: [Int])? {
            var expand: ConvStep? = nil
            var first: [Int] = []
            var di = i
            if expanding {
                guard let e = steps[i] as? ConvStep, e.conv.isPointwise, e.residual == nil, onlyFor(e.output),
                      let found = next(reading: e.output, from: i + 1, avoiding: [e.output], skipping: 2) else { return nil }
                expand = e
                di = found.index
                first += found.passed
            }
            guard let dw = steps[di] as? DepthwiseStep, dw.input == expand?.output ?? dw.input, onlyFor(dw.output),
                  let found = next(reading: dw.output, from: di + 1, avoiding: Set([dw.output] + (expand.map { [$0.output] } ?? [])), skipping: 2),
                  let project = steps[found.index] as? ConvStep, project.conv.isPointwise, project.input == dw.output,
                  project.residual != dw.output, project.residual == nil || project.residual != expand?.output else { return nil }
            first += found.passed
            let d = dw.conv
            guard max(d.input.count, d.output.count) >= fuseAboveFloats else { return nil }
            // The most output rows whose expanded input rows (or, without an expansion, whose depthwise
            // output rows) fit the budget. With an expansion, the rows a band shares with the next
            // (moved, not recomputed) must be at most a third of those it reads.
            let inRow = BlockStep.rowFloats(d.input), outRow = BlockStep.rowFloats(d.output)
            func fits(_ rows: Int) -> Bool {
                expand != nil ? BlockStep.inputRows(d, rows) * inRow <= bandBudgetFloats : rows * outRow <= bandBudgetFloats
            }
            var rows = 1
            while rows < d.output.h && fits(rows + 1) { rows += 1 }
            let read = BlockStep.inputRows(d, rows)
            if expand != nil && (read - rows * d.window.sh) * 3 > read { return nil }
            let members = (expanding ? [i] : []) + [di, found.index]
            return (BlockStep(expand: expand, depthwiseStep: dw, project: project, bandRows: rows), members, first)
        }
        var result: [Step] = []
        var placed = Set<Int>()
        for i in steps.indices where !placed.contains(i) {
            if let b = block(at: i, expanding: true) ?? block(at: i, expanding: false) {
                for j in b.first { result.append(steps[j]) }
                result.append(b.block)
                placed.formUnion(b.members + b.first)
            } else {
                result.append(steps[i])
            }
        }
        return result
    }
}
