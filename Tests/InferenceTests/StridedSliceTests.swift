import XCTest
import Inference

/// STRIDED_SLICE beyond the hand re-crop model's channel slices (begin 0, stride 1, which ModelParityTests
/// covers against the interpreter): offsets, strides and ranks under four.
final class StridedSliceTests: XCTestCase {
    func testOffsetsAndStrides() {
        // A 2x3x5 tensor of its own indices; take rows 1..<3 step 1, columns 0..<3 step 2, channels 1..<5 step 3.
        let x = (0..<30).map(Float.init)
        var slice = StridedSlice.Dimensions()
        slice.append(size: 2, begin: 1, stride: 1, count: 1)
        slice.append(size: 3, begin: 0, stride: 2, count: 2)
        slice.append(size: 5, begin: 1, stride: 3, count: 2)
        XCTAssertEqual(slice.outputCount, 4)
        var y = [Float](repeating: -1, count: 4)
        x.withUnsafeBufferPointer { xp in y.withUnsafeMutableBufferPointer { DataMovement.stridedSlice(xp.baseAddress!, slice, $0.baseAddress!) } }
        // (1, 0, 1) = 16, (1, 0, 4) = 19, (1, 2, 1) = 26, (1, 2, 4) = 29.
        XCTAssertEqual(y, [16, 19, 26, 29])
    }

    /// The standalone RELU (a step where it cannot be folded into the operator before it) is the fused
    /// activation's clamp: -0 and NaN stay as they are, as in TFLite's reference kernel.
    func testReluClampsNegativesOnly() {
        let x: [Float] = [-2, -0.0, 0, 3.5, -.infinity, .nan, .infinity]
        var y = [Float](repeating: 9, count: x.count)
        x.withUnsafeBufferPointer { xp in y.withUnsafeMutableBufferPointer { DataMovement.relu(xp.baseAddress!, $0.baseAddress!, count: x.count) } }
        XCTAssertEqual(y.prefix(5), [0, 0, 0, 3.5, 0])
        XCTAssertEqual(y[1].sign, .minus, "-0 stays -0")
        XCTAssertTrue(y[5].isNaN, "NaN stays NaN")
        XCTAssertEqual(y[6], .infinity)
    }
}
