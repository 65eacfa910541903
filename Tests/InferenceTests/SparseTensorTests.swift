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
}
