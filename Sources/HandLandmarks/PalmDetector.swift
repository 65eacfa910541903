import Foundation
import Inference
import VideoIO

/// A palm found by the palm detection model: a box and seven keypoints (wrist first, the middle
/// finger's MCP third), normalised to the frame.
public struct PalmDetection: Sendable {
    public var score: Float
    public var box: Box
    public var keypoints: [SIMD2<Float>]

    public init(score: Float, box: Box, keypoints: [SIMD2<Float>]) {
        self.score = score; self.box = box; self.keypoints = keypoints
    }
}

/// MediaPipe's palm detection: letterbox to 192x192, run the model, decode 2016 SSD anchors,
/// weighted non-max suppression, remove the letterbox.
public final class PalmDetector {
    public static let inputSize = 192
    let plan: ExecutionPlan
    let anchors: [SIMD2<Float>]
    public var minScore: Float
    private var tensor: [Float]
    /// Time spent so far (its palm fields).
    var timings = HandTracker.Timings()

    public init(model: TFLiteModel, threads: Int, minScore: Float = 0.5, sharing: SharedConstants? = nil) throws {
        plan = try ExecutionPlan(model: model, threads: threads, sharing: sharing)
        anchors = Self.makeAnchors()
        self.minScore = minScore
        tensor = [Float](repeating: 0, count: Self.inputSize * Self.inputSize * 3)
    }

    /// SSD anchor centres. MediaPipe: palm_detection_cpu.pbtxt, SsdAnchorsCalculator with 4 layers,
    /// strides 8, 16, 16, 16, offset 0.5, fixed anchor size; each layer has 2 anchors per cell (aspect
    /// ratio 1 and the interpolated scale), and layers of one stride share a grid: 24x24x2 + 12x12x6 = 2016.
    public static func makeAnchors(size: Int = inputSize) -> [SIMD2<Float>] {
        anchorCentres(size: size, grids: [(8, 2), (16, 6)])
    }

    /// The centres of SsdAnchorsCalculator's fixed-size anchors (offset 0.5): for each distinct stride,
    /// its grid of cells with `perCell` anchors each (2 for every layer of that stride).
    public static func anchorCentres(size: Int, grids: [(stride: Int, perCell: Int)]) -> [SIMD2<Float>] {
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

    /// Palms in `frame`, strongest first.
    public func detect(_ frame: VideoFrame) throws -> [PalmDetection] {
        let t0 = ContinuousClock.now
        let (region, pad) = RegionCrop.letterbox(width: frame.width, height: frame.height)
        let t1 = try tensor.withUnsafeMutableBufferPointer { t in
            RegionCrop.sample(frame, region: region, size: Self.inputSize, border: .zero, into: t.baseAddress!)
            let t1 = ContinuousClock.now
            try plan.run(UnsafeBufferPointer(t))
            return t1
        }
        let t2 = ContinuousClock.now
        let raw = decode(boxes: plan.output(0), scores: plan.output(1))
        let palms = Self.weightedNonMaxSuppression(raw, iouThreshold: 0.3).map { Self.removeLetterbox($0, padding: pad) }
        timings.letterbox += t1 - t0
        timings.palmModel += t2 - t1
        timings.palmDecode += ContinuousClock.now - t2
        timings.palmRuns += 1
        return palms
    }

    /// MediaPipe's TensorsToDetectionsCalculator for this model: 18 values per anchor
    /// (dx, dy, w, h, then 7 keypoints), scaled by 1/192 around the anchor; score = sigmoid of the
    /// logit clipped to +-100.
    func decode(boxes: UnsafeBufferPointer<Float>, scores: UnsafeBufferPointer<Float>) -> [PalmDetection] {
        Self.decodeSSD(boxes: boxes, scores: scores, anchors: anchors, keypoints: 7, inputSize: Self.inputSize, minScore: minScore)
    }

    /// TensorsToDetectionsCalculator for an SSD model whose rows are x, y, w, h (reverse_output_order),
    /// then `keypoints` x, y pairs, in input pixels relative to fixed-size anchors; the score is the
    /// sigmoid of the logit clipped to +-100 (score_clipping_thresh), kept from `minScore` up; boxes of
    /// negative or NaN size are dropped.
    public static func decodeSSD(boxes: UnsafeBufferPointer<Float>, scores: UnsafeBufferPointer<Float>, anchors: [SIMD2<Float>],
                                 keypoints: Int, inputSize: Int, minScore: Float) -> [PalmDetection] {
        let scale = 1 / Float(inputSize)
        let stride = 4 + 2 * keypoints
        var out: [PalmDetection] = []
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
            out.append(PalmDetection(score: score, box: Box(xMin: cx - w / 2, yMin: cy - h / 2, xMax: cx + w / 2, yMax: cy + h / 2),
                                     keypoints: points))
        }
        return out
    }

    /// MediaPipe's weighted NMS: the strongest remaining detection and every other with IoU above
    /// the threshold are merged into one, boxes and keypoints averaged by score, the top score kept.
    public static func weightedNonMaxSuppression(_ detections: [PalmDetection], iouThreshold: Float) -> [PalmDetection] {
        var remaining = detections.sorted { $0.score > $1.score }
        var out: [PalmDetection] = []
        while let top = remaining.first {
            var cluster: [PalmDetection] = []
            var rest: [PalmDetection] = []
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

    /// Undoes the letterbox: coordinates relative to the padded square become relative to the frame.
    public static func removeLetterbox(_ d: PalmDetection, padding pad: SIMD2<Float>) -> PalmDetection {
        let span = SIMD2<Float>(1, 1) - 2 * pad
        var out = d
        out.box = Box(xMin: (d.box.xMin - pad.x) / span.x, yMin: (d.box.yMin - pad.y) / span.y,
                      xMax: (d.box.xMax - pad.x) / span.x, yMax: (d.box.yMax - pad.y) / span.y)
        out.keypoints = d.keypoints.map { ($0 - pad) / span }
        return out
    }
}
