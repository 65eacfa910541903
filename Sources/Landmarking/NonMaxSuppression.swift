extension Detection {
    /// MediaPipe's `NonMaxSuppressionCalculator` in its weighted mode: the strongest remaining detection and
    /// every other with IoU above the threshold are merged into one, boxes and keypoints averaged by score,
    /// the top score kept.
    public static func weightedNonMaxSuppression(_ detections: [Detection], iouThreshold: Float) -> [Detection] {
        var remaining = detections.sorted { $0.score > $1.score }
        var out: [Detection] = []
        while let top = remaining.first {
            var cluster: [Detection] = []
            var rest: [Detection] = []
            for d in remaining {
                if top.box.iou(d.box) > iouThreshold || cluster.isEmpty { cluster.append(d) } else { rest.append(d) }
            }
            remaining = rest
            let total = cluster.reduce(0) { $0 + $1.score }
            var merged = top
            if cluster.count > 1 {
                var box = SIMD4<Float>(), kps = [SIMD2<Float>](repeating: .zero, count: top.keypoints.count)
                for d in cluster {
                    box += d.score * SIMD4(d.box.xMin, d.box.yMin, d.box.xMax, d.box.yMax)
                    for k in kps.indices { kps[k] += d.score * d.keypoints[k] }
                }
                box /= total
                merged.box = Box(xMin: box[0], yMin: box[1], xMax: box[2], yMax: box[3])
                merged.keypoints = kps.map { $0 / total }
            }
            out.append(merged)
        }
        return out
    }
}
