/// MediaPipe's `SsdAnchorsCalculator` for the fixed-size anchors its detectors use (palm, pose, face):
/// only the anchors' centres matter, since boxes are decoded relative to a fixed size.
public enum SSDAnchors {
    /// The centres (offset 0.5): for each distinct stride, its grid of cells with `perCell` anchors each
    /// (2 for every layer of that stride, since layers of one stride share a grid), normalised to the input.
    public static func centres(size: Int, grids: [(stride: Int, perCell: Int)]) -> [SIMD2<Float>] {
        var out: [SIMD2<Float>] = []
        for (stride, perCell) in grids {
            let cells = (size + stride - 1) / stride
            for y in 0..<cells {
                for x in 0..<cells {
                    let c = SIMD2(Float(x) + 0.5, Float(y) + 0.5) / Float(cells)
                    for _ in 0..<perCell { out.append(c) }
                }
            }
        }
        return out
    }
}
