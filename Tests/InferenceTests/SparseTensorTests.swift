@testable import Inference
import XCTest

/// TFLite's sparse constants (DENSIFY's input) made dense by hand-worked examples in the layouts the
/// schema allows, and damaged parameters refused (nil), never read past. The pose detector, whose
/// weights are stored this way, is checked against the interpreter in `ModelParityTests`.
final class SparseTensorTests: XCTestCase {
    typealias Level = SparseTensor.Level
    static func dense(_ n: Int) -> Level { Level(dense: true, denseSize: n, segments: [], indices: []) }
    static func csr(_ segments: [Int], _ indices: [Int]) -> Level { Level(dense: false, denseSize: 0, segments: segments, indices: indices) }

    func testCompressedRows() {
        // [[1, 0, 0, 2], [0, 0, 3, 0], [0, 0, 0, 0]]: rows dense, columns compressed.
        let s = SparseTensor(traversalOrder: [0, 1], blockMap: [], levels: [Self.dense(3), Self.csr([0, 2, 3, 3], [0, 3, 2])])
        XCTAssertEqual(s.densify([1, 2, 3], shape: [3, 4]), [1, 0, 0, 2, 0, 0, 3, 0, 0, 0, 0, 0])
        // The same matrix traversed column first (traversal order 1, 0).
        let t = SparseTensor(traversalOrder: [1, 0], blockMap: [], levels: [Self.dense(4), Self.csr([0, 1, 1, 2, 3], [0, 1, 0])])
        XCTAssertEqual(t.densify([1, 3, 2], shape: [3, 4]), [1, 0, 0, 2, 0, 0, 3, 0, 0, 0, 0, 0])
    }

    func testBlocks() {
        // A 4x4 matrix in 2x2 blocks (both dimensions blocked); only blocks (0, 1) and (1, 0) are stored:
        // [[0, 0, 1, 2], [0, 0, 3, 4], [5, 6, 0, 0], [7, 8, 0, 0]].
        let s = SparseTensor(traversalOrder: [0, 1, 2, 3], blockMap: [0, 1],
                             levels: [Self.dense(2), Self.csr([0, 1, 2], [1, 0]), Self.dense(2), Self.dense(2)])
        XCTAssertEqual(s.densify([1, 2, 3, 4, 5, 6, 7, 8], shape: [4, 4]), [0, 0, 1, 2, 0, 0, 3, 4, 5, 6, 0, 0, 7, 8, 0, 0])
    }

    func testDamagedParametersAreRefused() {
        let good = SparseTensor(traversalOrder: [0, 1], blockMap: [], levels: [Self.dense(3), Self.csr([0, 2, 3, 3], [0, 3, 2])])
        XCTAssertNil(good.densify([1, 2], shape: [3, 4]), "fewer values than stored entries")
        XCTAssertNil(good.densify([1, 2, 3, 4], shape: [3, 4]), "values left over")
        XCTAssertNil(good.densify([1, 2, 3], shape: [3, 3]), "an index past the dimension")
        var short = good
        short.levels[1].segments = [0, 2]
        XCTAssertNil(short.densify([1, 2, 3], shape: [3, 4]), "segments shorter than the rows")
        var backwards = good
        backwards.levels[1].segments = [0, 9, 3, 3]
        XCTAssertNil(backwards.densify([1, 2, 3], shape: [3, 4]), "a segment past the indices")
        let wrongOrder = SparseTensor(traversalOrder: [0, 0], blockMap: [], levels: good.levels)
        XCTAssertNil(wrongOrder.densify([1, 2, 3], shape: [3, 4]), "not a permutation")
    }

    /// The rule as first written, value by value (TFLite's `FormatConverter::SparseToDense` step for step):
    /// the oracle for `densify`, which works each dimension's steps out once.
    static func reference(_ s: SparseTensor, _ values: [Float], shape: [Int]) -> [Float]? {
        let (traversalOrder, blockMap, levels) = (s.traversalOrder, s.blockMap, s.levels)
        let rank = shape.count
        guard levels.count == traversalOrder.count, traversalOrder.count == rank + blockMap.count,
              Set(traversalOrder) == Set(0..<levels.count), blockMap.allSatisfy({ (0..<rank).contains($0) }) else { return nil }
        // The size of each expanded dimension: an original dimension divided by its block, or a block.
        for (k, _) in blockMap.enumerated() {
            guard let level = traversalOrder.firstIndex(of: rank + k), levels[level].dense, levels[level].denseSize > 0 else { return nil }
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

    /// Random sparse tensors in every layout the schema allows (any traversal order, blocked dimensions,
    /// dense and compressed levels, empty rows), made dense as the reference does. Damaged copies of them: an
    /// index past its dimension or a negative bound is refused (the reference trapped on a negative one); a
    /// moved segment bound gives what the reference gives; a value too many or too few is refused.
    func testDensifyMatchesTheReferenceOnRandomLayouts() {
        var generator = SeededRandom(47)
        var placed = 0, blockedLayouts = 0
        for trial in 0..<2000 {
            let rank = Int.random(in: 1...4, using: &generator)
            let shape = (0..<rank).map { _ in Int.random(in: 1...7, using: &generator) }
            // Up to two blocks, each of a dimension it fits in.
            var blockMap: [Int] = [], blockSizes: [Int] = []
            var blocked = [Int](repeating: 1, count: rank)
            for _ in 0..<Int.random(in: 0...2, using: &generator) {
                let d = Int.random(in: 0..<rank, using: &generator)
                let size = Int.random(in: 1...max(1, shape[d] / blocked[d]), using: &generator)
                blockMap.append(d); blockSizes.append(size); blocked[d] *= size
            }
            let depth = rank + blockMap.count
            let order = (0..<depth).shuffled(using: &generator)
            // Entries each expanded dimension takes: an original one ceil(shape / its blocks), a block its size.
            let range = (0..<depth).map { e in e < rank ? (shape[e] + blocked[e] - 1) / blocked[e] : blockSizes[e - rank] }
            var levels: [Level] = []
            var positions = 1
            // Entries of the level above each level (none: the level is never walked).
            var reached: [Int] = []
            for e in order {
                reached.append(positions)
                if e >= rank || Bool.random(using: &generator) {
                    levels.append(Self.dense(range[e]))
                    positions *= range[e]
                } else {
                    var segments = [0], indices: [Int] = []
                    for _ in 0..<positions {
                        indices += (0..<range[e]).filter { _ in Int.random(in: 0..<3, using: &generator) > 0 }
                        segments.append(indices.count)
                    }
                    levels.append(Self.csr(segments, indices))
                    positions = indices.count
                }
            }
            let tensor = SparseTensor(traversalOrder: order, blockMap: blockMap, levels: levels)
            let values = (0..<positions).map { Float($0 + 1) }
            let expected = Self.reference(tensor, values, shape: shape)
            let label = "trial \(trial): shape \(shape), order \(order), blocks \(blockMap) x \(blockSizes), levels \(levels)"
            // A layout whose blocks leave a remainder can place past a dimension: both refuse it.
            XCTAssertEqual(tensor.densify(values, shape: shape), expected, label)
            guard expected != nil else { continue }
            placed += 1
            if !blockMap.isEmpty { blockedLayouts += 1 }
            // Damaged copies.
            let compressed = levels.indices.filter { !levels[$0].dense }
            if let l = compressed.randomElement(using: &generator), !levels[l].indices.isEmpty {
                var damaged = tensor
                let k = Int.random(in: 0..<levels[l].indices.count, using: &generator)
                damaged.levels[l].indices[k] = [-1, range[order[l]], Int(Int32.max)].randomElement(using: &generator)!
                XCTAssertNil(damaged.densify(values, shape: shape), "index \(damaged.levels[l].indices[k]) at level \(l), \(label)")
            }
            if let l = compressed.randomElement(using: &generator) {
                var damaged = tensor
                let k = Int.random(in: 0..<levels[l].segments.count, using: &generator)
                damaged.levels[l].segments[k] += [-2, -1, 1, 1000].randomElement(using: &generator)!
                if damaged.levels[l].segments[k] < 0 {
                    // Refused where the walk reads it; a level under an empty one is never read.
                    XCTAssertEqual(damaged.densify(values, shape: shape), reached[l] > 0 ? nil : expected, "negative segment bound, \(label)")
                } else {
                    XCTAssertEqual(damaged.densify(values, shape: shape), Self.reference(damaged, values, shape: shape), "segment \(k) moved, \(label)")
                }
            }
            XCTAssertNil(tensor.densify(values + [0], shape: shape), "a value too many, \(label)")
            if !values.isEmpty { XCTAssertNil(tensor.densify(Array(values.dropLast()), shape: shape), "a value too few, \(label)") }
        }
        XCTAssertGreaterThan(placed, 1000, "most layouts place their values")
        XCTAssertGreaterThan(blockedLayouts, 300, "blocked layouts among them")
    }

    /// Parameters no model needs, refused before anything is allocated or walked (a damaged or hostile file's
    /// values): sizes past a dimension or negative, a zero dimension, a dense tensor too large to make, more
    /// levels than any tensor has. The reference answered some of these with zeros, or trapped.
    func testHostileParametersAreRefused() {
        let rows = Self.csr([0, 2, 3, 3], [0, 3, 2])
        for size in [-1, 0, 4, Int(Int32.max)] {
            XCTAssertNil(SparseTensor(traversalOrder: [0, 1], blockMap: [], levels: [Self.dense(size), rows]).densify([1, 2, 3], shape: [3, 4]),
                         "dense size \(size) for a dimension of 3")
        }
        XCTAssertNil(SparseTensor(traversalOrder: [0, 1], blockMap: [], levels: [Self.dense(3), rows]).densify([1, 2, 3], shape: [3, 0]),
                     "a zero dimension")
        // A block larger than its dimension (the reference placed nothing past it only because nothing was stored there).
        XCTAssertNil(SparseTensor(traversalOrder: [0, 1, 2], blockMap: [1], levels: [Self.dense(3), Self.dense(1), Self.dense(8)])
                        .densify([Float](repeating: 1, count: 24), shape: [3, 4]), "a block of 8 in a dimension of 4")
        // Shapes whose dense tensor would not fit in memory: refused, not allocated.
        XCTAssertNil(SparseTensor(traversalOrder: [0, 1], blockMap: [], levels: [Self.dense(1), Self.csr([0, 1], [0])])
                        .densify([1], shape: [1 << 23, 1 << 23]), "2^46 values")
        XCTAssertNil(SparseTensor(traversalOrder: [0, 1, 2, 3], blockMap: [], levels: [Self.dense(1), Self.dense(1), Self.dense(1), Self.csr([0, 1], [0])])
                        .densify([1], shape: [1 << 23, 1 << 23, 1 << 23, 1 << 23]), "a product past Int's range")
        // More levels than any tensor has: refused, not recursed into.
        let deep = 100_000
        XCTAssertNil(SparseTensor(traversalOrder: Array(0..<deep), blockMap: [], levels: Array(repeating: Self.dense(1), count: deep))
                        .densify([1], shape: Array(repeating: 1, count: deep)), "\(deep) dimensions")
    }

    /// `PlanBuilder.widen`: the same bits as the standard library's Float16 to Float, for all 65536 patterns.
    func testFloat16WideningMatchesTheStandardLibrary() {
        for bits in 0...UInt16.max {
            let got = PlanBuilder.widen(bits), expected = Float(Float16(bitPattern: bits))
            XCTAssertEqual(got.bitPattern, expected.bitPattern, "float16 bits \(String(bits, radix: 16))")
        }
    }
}
