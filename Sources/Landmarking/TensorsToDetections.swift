import Foundation

extension Detection {
    /// MediaPipe's `TensorsToDetectionsCalculator` for an SSD model whose rows are x, y, w, h
    /// (reverse_output_order), then `keypoints` x, y pairs, in input pixels relative to fixed-size anchors;
    /// the score is the sigmoid of the logit clipped to +-100 (score_clipping_thresh), kept from `minScore`
    /// up; boxes of negative or NaN size are dropped.
    public static func decodeSSD(boxes: UnsafeBufferPointer<Float>, scores: UnsafeBufferPointer<Float>, anchors: [SIMD2<Float>],
                                 keypoints: Int, inputSize: Int, minScore: Float) -> [Detection] {
        let scale = 1 / Float(inputSize)
        let stride = 4 + 2 * keypoints
        var out: [Detection] = []
        for (i, anchor) in anchors.enumerated() {
            let logit = min(max(scores[i], -100), 100)
            let score = 1 / (1 + exp(-logit))
            guard score >= minScore else { continue }
            let r = boxes.baseAddress! + i * stride
            let cx = r[0] * scale + anchor.x, cy = r[1] * scale + anchor.y
            let w = r[2] * scale, h = r[3] * scale
            // MediaPipe drops a box of negative or NaN size (tensors_to_detections_calculator.cc).
            guard w >= 0, h >= 0 else { continue }
            let points = (0..<keypoints).map { k in SIMD2(r[4 + 2 * k] * scale + anchor.x, r[5 + 2 * k] * scale + anchor.y) }
            out.append(Detection(score: score, box: Box(xMin: cx - w / 2, yMin: cy - h / 2, xMax: cx + w / 2, yMax: cy + h / 2),
                                 keypoints: points))
        }
        return out
    }
}
