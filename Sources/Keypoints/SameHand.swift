extension Joint {
    /// Whether two sets of 21 landmarks (x, y normalised to a `imageWidth` x `imageHeight` frame) are one
    /// hand found twice, by MediaPipe Tasks' rule (hand_landmarks_deduplication_calculator): at least 10
    /// landmarks closer than 0.2 x the larger of the two baselines, and landmark boxes overlapping with
    /// IoU > 0.2. A hand's baseline is the longest side of its palm triangle (wrist, index MCP, little
    /// MCP), in pixels. The tracker merges such hands; comparisons count files that report them.
    public static func sameHand(_ a: [SIMD3<Float>], _ b: [SIMD3<Float>], imageWidth: Int, imageHeight: Int) -> Bool {
        guard a.count == count, b.count == count else { return false }
        let scale = SIMD2(Float(imageWidth), Float(imageHeight))
        func distance(_ p: SIMD3<Float>, _ q: SIMD3<Float>) -> Float {
            let d = (SIMD2(p.x, p.y) - SIMD2(q.x, q.y)) * scale
            return (d.x * d.x + d.y * d.y).squareRoot()
        }
        func baseline(_ l: [SIMD3<Float>]) -> Float { max(distance(l[0], l[5]), distance(l[5], l[17]), distance(l[17], l[0])) }
        let threshold = 0.2 * max(baseline(a), baseline(b))
        let close = zip(a, b).filter { distance($0, $1) < threshold }.count
        return close >= 10 && boxIoU(a, b) > 0.2
    }

    /// IoU of the boxes around two sets of landmarks (x, y as given; 0 when both boxes are empty).
    public static func boxIoU(_ a: [SIMD3<Float>], _ b: [SIMD3<Float>]) -> Float {
        func box(_ l: [SIMD3<Float>]) -> (lo: SIMD2<Float>, hi: SIMD2<Float>) {
            var lo = SIMD2<Float>(repeating: .greatestFiniteMagnitude), hi = -lo
            for p in l { lo = pointwiseMin(lo, SIMD2(p.x, p.y)); hi = pointwiseMax(hi, SIMD2(p.x, p.y)) }
            return (lo, hi)
        }
        let (ba, bb) = (box(a), box(b))
        let overlap = pointwiseMax(pointwiseMin(ba.hi, bb.hi) - pointwiseMax(ba.lo, bb.lo), .zero)
        let inter = overlap.x * overlap.y
        let areaA = (ba.hi - ba.lo).x * (ba.hi - ba.lo).y, areaB = (bb.hi - bb.lo).x * (bb.hi - bb.lo).y
        let union = areaA + areaB - inter
        return union > 0 ? inter / union : 0
    }
}
