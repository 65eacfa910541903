/// A constant tensor stored sparse (TFLite's `SparsityParameters`, read by DENSIFY): MediaPipe's pose
/// detector keeps its convolution weights this way. Levels are the tensor's dimensions in
/// `traversalOrder` (original dimensions first numbered 0..<rank, then block dimensions rank..., each
/// the inner part of the original dimension `blockMap[k]`); each level is dense (`denseSize` entries)
/// or compressed (CSR: `segments` and `indices`). The buffer holds the stored values in traversal order.
///
/// Written by hand, as the rest of the model reader: TFLite's `FormatConverter::SparseToDense`
/// (tensorflow/lite/kernels/internal/utils/sparsity_format_converter.cc) is the rule followed.
struct SparseTensor: Sendable, Equatable {
    struct Level: Sendable, Equatable {
        /// Dense (every entry, `denseSize` of them) or compressed (`segments`, `indices`).
        var dense: Bool
        var denseSize: Int
        var segments: [Int]
        var indices: [Int]
    }
    var traversalOrder: [Int]
    var blockMap: [Int]
    var levels: [Level]

    /// Reads a tensor's `sparsity` table (schema: traversal_order, block_map, dim_metadata; each
    /// DimensionMetadata: format, dense_size, array_segments and array_indices as unions of Int32Vector,
    /// Uint16Vector and Uint8Vector).
    init(_ t: FBTable) throws {
        traversalOrder = try t.int32s(0).map(Int.init)
        blockMap = try t.int32s(1).map(Int.init)
        levels = try t.tables(2).map { d in
            func union(_ typeField: Int, _ valueField: Int) throws -> [Int] {
                let kind = try d.scalar(typeField, UInt8.self, default: 0)
                guard kind != 0, let table = try d.table(valueField) else { return [] }
                switch kind {
                case 1: return try table.int32s(0).map(Int.init)
                case 2:
                    guard let (start, count) = try table.vector(0, elementSize: 2) else { return [] }
                    return try (0..<count).map { Int(try table.fb.load(start + 2 * $0, as: UInt16.self)) }
                case 3:
                    guard let (start, count) = try table.vector(0, elementSize: 1) else { return [] }
                    return try (0..<count).map { Int(try table.fb.load(start + $0, as: UInt8.self)) }
                default: throw table.fb.fail("sparse index vector of unknown type \(kind)")
                }
            }
            return Level(dense: try d.scalar(0, Int8.self, default: 0) == 0, denseSize: Int(try d.scalar(1, Int32.self, default: 0)),
                         segments: try union(2, 3), indices: try union(4, 5))
        }
    }

    /// The most levels (dimensions and blocks) a tensor may have: the sparse weights MediaPipe ships have 4
    /// dimensions and at most one block each. Each level is a level of recursion in `densify`.
    static let maxLevels = 16
    /// The largest dense tensor `densify` makes (4 GiB of floats): a constant past it is a damaged file's.
    static let maxValues = 1 << 30

    init(traversalOrder: [Int], blockMap: [Int], levels: [Level]) {
        self.traversalOrder = traversalOrder; self.blockMap = blockMap; self.levels = levels
    }

    /// The dense tensor of `shape` from the stored `values`; nil when the parameters do not describe
    /// `shape` or reach past the values (a damaged file). Refused before anything is made: more than
    /// `maxLevels` levels, a dense tensor of more than `maxValues` values, a zero dimension, a dense level or
    /// block reaching past its dimension, a negative size. During the walk, the first index past its dimension
    /// or negative bound refuses the tensor, even where nothing is stored beneath it (the rule as first
    /// written answered that with zeros, or trapped on a negative one). The walk visits each stored index once.
    ///
    /// Each expanded dimension e (an original dimension, or a block of one) adds `expanded[e]` times a fixed
    /// step to its original dimension's coordinate: for a dimension d with blocks k1, k2, ... (in block order)
    /// the coordinate is `((expanded[d] * size(k1) + expanded[k1]) * size(k2) + expanded[k2]) ...`. The steps are
    /// worked out once, so a value costs a bounds check and a multiply-add per dimension (the pose detector's
    /// weights, the only sparse ones MediaPipe ships, took 14 ms of each worker's start value by value).
    func densify(_ values: [Float], shape: [Int]) -> [Float]? {
        let rank = shape.count, depth = levels.count
        guard depth <= Self.maxLevels, depth == traversalOrder.count, depth == rank + blockMap.count,
              Set(traversalOrder) == Set(0..<depth), blockMap.allSatisfy({ (0..<rank).contains($0) }),
              shape.allSatisfy({ $0 > 0 }) else { return nil }
        var count = 1
        for n in shape {
            let (product, overflow) = count.multipliedReportingOverflow(by: n)
            guard !overflow, product <= Self.maxValues else { return nil }
            count = product
        }
        let owner = Array(0..<rank) + blockMap
        var step = [Int](repeating: 1, count: depth)
        for (k, d) in blockMap.enumerated() {
            guard let level = traversalOrder.firstIndex(of: rank + k), levels[level].dense, levels[level].denseSize > 0 else { return nil }
            for e in 0..<(rank + k) where owner[e] == d {
                let (product, overflow) = step[e].multipliedReportingOverflow(by: levels[level].denseSize)
                guard !overflow, product <= shape[d] else { return nil }
                step[e] = product
            }
        }
        var strides = [Int](repeating: 1, count: rank)
        for d in stride(from: rank - 2, through: 0, by: -1) { strides[d] = strides[d + 1] * shape[d + 1] }
        // Per level (traversal order): the original dimension it moves and by how much a step.
        let dimension = traversalOrder.map { owner[$0] }
        let levelStep = traversalOrder.map { step[$0] }
        // A dense level whose last entry lies past its dimension (a block larger than the dimension, say).
        for (l, m) in levels.enumerated() where m.dense {
            guard m.denseSize > 0, (m.denseSize - 1) < (shape[dimension[l]] + levelStep[l] - 1) / levelStep[l] else { return nil }
        }
        var dense = [Float](repeating: 0, count: count)
        var coordinate = [Int](repeating: 0, count: rank)
        var next = 0
        var ok = true
        func place() {
            var flat = 0
            for d in 0..<rank {
                guard coordinate[d] < shape[d] else { ok = false; return }
                flat += coordinate[d] * strides[d]
            }
            guard next < values.count else { ok = false; return }
            dense[flat] = values[next]
            next += 1
        }
        func walk(_ level: Int, _ previous: Int) {
            guard ok else { return }
            if level == depth { place(); return }
            let m = levels[level], d = dimension[level], by = levelStep[level], base = coordinate[d]
            if m.dense {
                for i in 0..<m.denseSize {
                    coordinate[d] = base + i * by
                    walk(level + 1, previous * m.denseSize + i)
                }
            } else {
                guard previous + 1 < m.segments.count, m.segments[previous] >= 0, m.segments[previous] <= m.segments[previous + 1],
                      m.segments[previous + 1] <= m.indices.count else { ok = false; return }
                for k in m.segments[previous]..<m.segments[previous + 1] {
                    let i = m.indices[k]
                    guard i >= 0, i < (shape[d] + by - 1) / by else { ok = false; return }
                    coordinate[d] = base + i * by
                    walk(level + 1, k)
                }
            }
            coordinate[d] = base
        }
        walk(0, 0)
        return ok && next == values.count ? dense : nil
    }
}
