import Foundation

/// A model made ready to run: float16 constants dequantized once, weights packed for the kernels,
/// shapes checked, ADD and PRELU folded into the convolutions before them where nothing else reads
/// the intermediate, blocks with large intermediates run over bands of rows, and every activation
/// given a place in one reused arena. `run` allocates nothing, but for the first run on a share of the
/// cores (`ThreadShare`) larger than any before: its scratch, and its pool's threads, are made then.
public final class ExecutionPlan {
    public let model: TFLiteModel
    /// The most threads a run uses: fewer while the process's `ThreadShare` is lower.
    public let threads: Int
    /// The instruction set of the kernels that run the plan (`avx512` also for the AVX-512 code the tests
    /// build for AVX2).
    public var isa: ISA { kernels.isa }
    /// The AVX-512 matrix-product tiling the plan runs; nil for the other kernels.
    public var gemmTiling: GemmTiling? { kernels.gemmTiling }
    /// Bytes of the activation arena (tensors whose lifetimes do not overlap share memory).
    public let arenaBytes: Int
    /// Bytes of scratch (im2col tiles, the bands of fused blocks) for the threads run so far.
    public var scratchBytes: Int { scratch.count * 4 }
    /// The packed constants are read from a `SharedConstants` file (not a private copy).
    public let constantsShared: Bool
    public var inputs: [TensorInfo] { model.inputs.map { model.tensors[$0] } }
    public var outputs: [TensorInfo] { model.outputs.map { model.tensors[$0] } }
    /// Steps after fusion, for reports.
    public var stepCount: Int { steps.count }
    /// Multiply-adds of one run (convolutions and fully connected layers).
    public var multiplyAdds: Int { steps.reduce(0) { $0 + $1.multiplyAdds } }

    private let steps: [Step]
    private let offsets: [Int]
    private let arena: FloatBuffer
    /// Scratch for `scratchSlots` threads, made larger when a raised `ThreadShare` lets a run use more.
    private var scratch: FloatBuffer
    private var scratchSlots: Int
    private let scratchPerThread: Int
    private let pool: WorkerPool?
    private let kernels: any KernelSet

    /// Plans `model` to run on `threads` threads (default: every core) with the kernels of `isa`
    /// (default: the best this CPU runs, capped by `HANDPOSE_MAX_ISA`); with `sharing`, the packed
    /// constants are read from a file other processes planning the same model map too. `fusingBlocks`
    /// runs depthwise-separable blocks with large intermediates over bands of rows (`BlockStep`); the
    /// results are the same bit for bit, so turning it off is for tests and profiles. `outputs`: the
    /// model's outputs (positions in its output list) the caller reads; operators that feed none of them
    /// are not planned (the pose landmark model's segmentation head: 9% of its multiply-adds, but a third
    /// of its time, its 256x256 maps being bound by memory), and the others' values are the same bit for
    /// bit. Nil: every output.
    public convenience init(model: TFLiteModel, threads: Int = UsableCores.count, isa: ISA? = nil,
                            sharing: SharedConstants? = nil, fusingBlocks: Bool = true, outputs: Set<Int>? = nil) throws {
        try self.init(model: model, threads: threads, kernels: KernelSelection.kernels(try isa ?? KernelSelection.best()),
                      sharing: sharing, fusingBlocks: fusingBlocks, outputs: outputs)
    }

    /// Plans `model` with a kernel set built outside this module: for the tests, which run the AVX-512
    /// code built for AVX2 (`KernelsAVX512OnAVX2`) on machines without AVX-512.
    @_spi(Testing)
    public convenience init(model: TFLiteModel, threads: Int, kernelSet: any KernelSet, fusingBlocks: Bool = true,
                            outputs: Set<Int>? = nil) throws {
        try self.init(model: model, threads: threads, kernels: kernelSet, sharing: nil, fusingBlocks: fusingBlocks, outputs: outputs)
    }

    private init(model: TFLiteModel, threads: Int, kernels: any KernelSet, sharing: SharedConstants?, fusingBlocks: Bool,
                 outputs: Set<Int>?) throws {
        self.model = model
        self.threads = max(1, threads)
        self.kernels = kernels
        var builder = PlanBuilder(model: model)
        let kept = outputs.map { $0.filter(model.outputs.indices.contains).map { model.outputs[$0] } } ?? model.outputs
        planned = Set(kept)
        let unfused = Self.prune(try builder.build(), keeping: Set(kept))
        let built = fusingBlocks ? PlanBuilder.fuseBlocks(unfused, outputs: kept) : unfused
        try Self.checkDataFlow(model: model, steps: built, outputs: kept)
        steps = built
        var scratchNeed = 0
        for s in built { scratchNeed = max(scratchNeed, s.scratchCount) }
        scratchPerThread = (scratchNeed + 15) & ~15
        scratchSlots = min(self.threads, ThreadShare.current)
        scratch = FloatBuffer(count: scratchPerThread * scratchSlots)
        let (offsets, total) = Self.assignArena(model: model, steps: built)
        self.offsets = offsets
        arena = FloatBuffer(count: total)
        arenaBytes = total * 4
        pool = self.threads > 1 ? WorkerPool(workers: self.threads - 1, active: scratchSlots - 1) : nil
        // The constants now live in the steps; the model's file pages need not stay in memory.
        model.releasePages()
        var seen = Set<ObjectIdentifier>()
        constantsShared = sharing?.share(built.flatMap(\.constants).filter { seen.insert(ObjectIdentifier($0)).inserted }) ?? false
    }

    /// A second plan of the same model on `threads` threads, reading this one's packed constants (never
    /// written after planning) with an arena, scratch and pool of its own: for two runs of one model at once
    /// on two threads (`HandTracker`'s two hands). Its values are this plan's, bit for bit: the steps are
    /// the same.
    public func twin(threads: Int) -> ExecutionPlan { ExecutionPlan(twinOf: self, threads: threads) }

    private init(twinOf other: ExecutionPlan, threads: Int) {
        model = other.model
        self.threads = max(1, threads)
        kernels = other.kernels
        planned = other.planned
        steps = other.steps
        offsets = other.offsets
        scratchPerThread = other.scratchPerThread
        scratchSlots = min(self.threads, ThreadShare.current)
        scratch = FloatBuffer(count: scratchPerThread * scratchSlots)
        arena = FloatBuffer(count: other.arenaBytes / 4)
        arenaBytes = other.arenaBytes
        pool = self.threads > 1 ? WorkerPool(workers: self.threads - 1, active: scratchSlots - 1) : nil
        constantsShared = other.constantsShared
    }

    deinit { pool?.stop() }

    /// Runs the model on its first input, `values` in the input's shape (NHWC, float32).
    public func run(_ values: UnsafeBufferPointer<Float>) throws {
        let input = model.inputs[0]
        let expected = model.tensors[input].count
        guard values.count == expected else { throw InferenceError.inputSize(expected: expected, got: values.count) }
        // Workers asleep since the last run wake while the input is copied (WorkerPool.wake).
        let ctx = context()
        (arena.pointer + offsets[input]).update(from: values.baseAddress!, count: expected)
        for step in steps { step.run(ctx) }
        pool?.park()
    }

    /// Worker threads the plan's pool has started (`ThreadShareTests`).
    var startedWorkers: Int { pool?.started ?? 0 }

    /// A run's context on the threads the process's share allows now (at most `threads`, and under the
    /// calling thread's cap: `ThreadShare.capped`), the pool's
    /// workers and the scratch made to match; the workers taking part are woken.
    private func context() -> RunContext {
        let share = min(threads, ThreadShare.forThisThread)
        if share > scratchSlots {
            scratch = FloatBuffer(count: scratchPerThread * share)
            scratchSlots = share
        }
        pool?.setActive(share - 1)
        if share > 1 { pool?.wake() }
        ThreadShare.noteRun(share)
        return RunContext(arena: arena.pointer, offsets: offsets, scratch: scratch.pointer, scratchPerThread: scratchPerThread,
                          parallel: Parallel(threads: share, pool: share > 1 ? pool : nil), kernels: kernels)
    }

    /// Runs once like `run`, timing each step: (kernel description, milliseconds), in plan order.
    public func profile(_ values: [Float]) throws -> [(step: String, ms: Double)] {
        try run(values)
        let ctx = context()
        defer { pool?.park() }
        return steps.map { step in
            let start = DispatchTime.now().uptimeNanoseconds
            step.run(ctx)
            return (step.description, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }
    }

    public func run(_ values: [Float]) throws {
        try values.withUnsafeBufferPointer { try run($0) }
    }

    /// Output `index` of the last run; valid until the next run.
    /// The model outputs' tensors this plan computes (`outputs` at planning).
    private let planned: Set<Int>

    /// The steps `tensors` depend on, in their order: a step stays when it writes a tensor a later kept
    /// step (or the caller) reads.
    static func prune(_ steps: [Step], keeping tensors: Set<Int>) -> [Step] {
        var needed = tensors
        var kept: [Step] = []
        for s in steps.reversed() where !needed.isDisjoint(with: s.writes) {
            kept.append(s)
            needed.formUnion(s.reads)
        }
        return kept.reversed()
    }

    public func output(_ index: Int) -> UnsafeBufferPointer<Float> {
        let t = model.outputs[index]
        precondition(planned.contains(t), "output \(index) of \(model.path) was not planned")
        return UnsafeBufferPointer(start: arena.pointer + offsets[t], count: model.tensors[t].count)
    }

    public func output(named name: String) throws -> UnsafeBufferPointer<Float> {
        guard let i = outputs.firstIndex(where: { $0.name == name }) else { throw InferenceError.unknownTensor(name: name) }
        return output(i)
    }

    /// Every tensor a step reads is the input or written by a step before it, and every output kept is written:
    /// a damaged file's operator naming a tensor nothing computes is an error, not a read of arena memory
    /// no tensor was placed at (such a tensor has no place in the arena).
    static func checkDataFlow(model: TFLiteModel, steps: [Step], outputs: [Int]) throws {
        var available = Set(model.inputs)
        for (i, s) in steps.enumerated() {
            if let t = s.reads.first(where: { !available.contains($0) }) {
                throw InferenceError.malformed(path: model.path, reason: "step \(i) (\(s.description)) reads tensor '\(model.tensors[t].name)', which no operator before it computes")
            }
            available.formUnion(s.writes)
        }
        if let t = outputs.first(where: { !available.contains($0) }) {
            throw InferenceError.malformed(path: model.path, reason: "output '\(model.tensors[t].name)' is computed by no operator")
        }
    }

    /// Greedy placement, each tensor at the lowest offset free throughout its lifetime, tried in
    /// three orders (largest first; longest-lived first; largest size x lifetime first); the smallest
    /// arena wins.
    static func assignArena(model: TFLiteModel, steps: [Step]) -> ([Int], Int) {
        var first = [Int: Int](), last = [Int: Int]()
        for t in model.inputs { first[t] = -1; last[t] = -1 }
        for (i, s) in steps.enumerated() {
            for t in s.writes { if first[t] == nil { first[t] = i }; last[t] = max(last[t] ?? i, i) }
            for t in s.reads { last[t] = max(last[t] ?? i, i) }
        }
        for t in model.outputs { last[t] = steps.count }
        let align = 16
        func size(_ t: Int) -> Int { (model.tensors[t].count + align - 1) / align * align }
        func span(_ t: Int) -> Int { last[t]! - first[t]! + 1 }
        let keys = Array(first.keys)
        let orders: [[Int]] = [
            keys.sorted { (size($0), -$0) > (size($1), -$1) },
            keys.sorted { (span($0), size($0), -$0) > (span($1), size($1), -$1) },
            keys.sorted { (size($0) * span($0), -$0) > (size($1) * span($1), -$1) },
        ]
        var best: ([Int], Int)?
        for order in orders {
            var offsets = [Int](repeating: -1, count: model.tensors.count)
            var placed: [(offset: Int, size: Int, first: Int, last: Int)] = []
            var total = 0
            for t in order {
                let (f, l) = (first[t]!, last[t]!)
                let clashes = placed.filter { $0.first <= l && f <= $0.last }.sorted { $0.offset < $1.offset }
                var offset = 0
                for c in clashes {
                    if offset + size(t) <= c.offset { break }
                    offset = max(offset, c.offset + c.size)
                }
                offsets[t] = offset
                placed.append((offset, size(t), f, l))
                total = max(total, offset + size(t))
            }
            if total < best?.1 ?? .max { best = (offsets, total) }
        }
        return best ?? ([Int](repeating: -1, count: model.tensors.count), 0)
    }
}

/// What a step sees while it runs: where tensors live and the threads to use.
struct RunContext {
    let arena: UnsafeMutablePointer<Float>
    let offsets: [Int]
    let scratch: UnsafeMutablePointer<Float>
    let scratchPerThread: Int
    let parallel: Parallel
    let kernels: any KernelSet

    @inline(__always) func pointer(_ tensor: Int) -> UnsafeMutablePointer<Float> { arena + offsets[tensor] }
}

/// One kernel call of the plan.
protocol Step {
    var reads: [Int] { get }
    var writes: [Int] { get }
    var scratchCount: Int { get }
    /// The weights, biases and slopes the step reads (packed at planning, never written after).
    var constants: [FloatBuffer] { get }
    var multiplyAdds: Int { get }
    var description: String { get }
    func run(_ ctx: RunContext)
}

extension Step {
    var scratchCount: Int { 0 }
    var constants: [FloatBuffer] { [] }
    var multiplyAdds: Int { 0 }
    /// What the profile prints: the kernel, its shapes and options.
    var description: String { String(describing: type(of: self)) }
}
