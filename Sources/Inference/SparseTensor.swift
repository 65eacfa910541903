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

    init(traversalOrder: [Int], blockMap: [Int], levels: [Level]) {
        self.traversalOrder = traversalOrder; self.blockMap = blockMap; self.levels = levels
    }

    /// The dense tensor of `shape` from the stored `values`; nil when the parameters do not describe
    /// `shape` or reach past the values (a damaged file), never a crash.
    func densify(_ values: [Float], shape: [Int]) -> [Float]? {
        let rank = shape.count
        guard levels.count == traversalOrder.count, traversalOrder.count == rank + blockMap.count,
              Set(traversalOrder) == Set(0..<levels.count), blockMap.allSatisfy({ (0..<rank).contains($0) }) else { return nil }
        // The size of each expanded dimension: an original dimension divided by its block, or a block.
        var blockSize = [Int](repeating: 1, count: rank)
        for (k, d) in blockMap.enumerated() {
            guard let level = traversalOrder.firstIndex(of: rank + k), levels[level].dense, levels[level].denseSize > 0 else { return nil }
            blockSize[d] *= levels[level].denseSize
        }
        let count = shape.reduce(1, *)
        var dense = [Float](repeating: 0, count: count)
        var expanded = [Int](repeating: 0, count: levels.count)
        var next = 0
        var ok = true
        func place() {
            var flat = 0
            for d in 0..<rank {
                var c = expanded[d]
                for (k, b) in blockMap.enumerated() where b == d { c = c * levels[traversalOrder.firstIndex(of: rank + k)!].denseSize + expanded[rank + k] }
                guard c < shape[d] else { ok = false; return }
                flat = flat * shape[d] + c
            }
            guard next < values.count else { ok = false; return }
            dense[flat] = values[next]
            next += 1
        }
        func walk(_ level: Int, _ previous: Int) {
            guard ok else { return }
            if level == levels.count { place(); return }
            let m = levels[level]
            if m.dense {
                for i in 0..<m.denseSize {
                    expanded[traversalOrder[level]] = i
                    walk(level + 1, previous * m.denseSize + i)
                }
            } else {
                guard previous + 1 < m.segments.count, m.segments[previous] <= m.segments[previous + 1],
                      m.segments[previous + 1] <= m.indices.count else { ok = false; return }
                for k in m.segments[previous]..<m.segments[previous + 1] {
                    expanded[traversalOrder[level]] = m.indices[k]
                    walk(level + 1, k)
                }
            }
        }
        walk(0, 0)
        return ok && next == values.count ? dense : nil
    }
}
