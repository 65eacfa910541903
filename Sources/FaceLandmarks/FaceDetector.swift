import Foundation
import Inference
import Landmarking
import VideoIO

/// MediaPipe's short-range face detector (BlazeFace) on one region of the frame: crop to 128x128 in
/// [-1, 1] with a zero border, decode 896 SSD anchors, weighted non-max suppression at IoU 0.3 (in the
/// crop), then map boxes and keypoints back to the frame.
/// MediaPipe: face_detection_short_range_by_roi_cpu.pbtxt, face_detection.pbtxt.
public final class FaceDetector {
    public static let inputSize = 128
    let plan: ExecutionPlan
    /// SsdAnchorsCalculator: 4 layers, strides 8, 16, 16, 16, fixed anchor size: 16x16x2 + 8x8x6 = 896.
    let anchors = SSDAnchors.centres(size: inputSize, grids: [(8, 2), (16, 6)])
    public var minScore: Float
    private var tensor: [Float]

    public init(model: TFLiteModel, threads: Int, minScore: Float = 0.5, sharing: SharedConstants? = nil) throws {
        plan = try ExecutionPlan(model: model, threads: threads, sharing: sharing)
        self.minScore = minScore
        tensor = [Float](repeating: 0, count: Self.inputSize * Self.inputSize * 3)
    }

    /// Faces in `region` of `frame`, strongest first: a box and six keypoints (right eye, left eye, nose
    /// tip, mouth, right ear, left ear), normalised to the frame.
    public func detect(_ frame: VideoFrame, region: RegionOfInterest) throws -> [Detection] {
        try tensor.withUnsafeMutableBufferPointer { t in
            RegionCrop.sample(frame, region: region, size: Self.inputSize, border: .zero, into: t.baseAddress!)
            for i in t.indices { t[i] = t[i] * 2 - 1 }
            try plan.run(UnsafeBufferPointer(t))
        }
        let raw = Detection.decodeSSD(boxes: plan.output(0), scores: plan.output(1), anchors: anchors, keypoints: 6,
                                      inputSize: Self.inputSize, minScore: minScore)
        return Detection.weightedNonMaxSuppression(raw, iouThreshold: 0.3).map { $0.projected(through: region) }
    }
}

extension Detection {
    /// MediaPipe's DetectionProjectionCalculator with the crop's matrix: keypoints mapped from the crop's
    /// unit square to the frame, the box the axis-aligned box of its four mapped corners.
    func projected(through region: RegionOfInterest) -> Detection {
        func map(_ p: SIMD2<Float>) -> SIMD2<Float> { let q = region.project(Point3(p.x, p.y, 0)); return SIMD2(q.x, q.y) }
        let corners = [SIMD2(box.xMin, box.yMin), SIMD2(box.xMax, box.yMin), SIMD2(box.xMin, box.yMax), SIMD2(box.xMax, box.yMax)].map(map)
        var lo = corners[0], hi = corners[0]
        for c in corners { lo = pointwiseMin(lo, c); hi = pointwiseMax(hi, c) }
        return Detection(score: score, box: Box(xMin: lo.x, yMin: lo.y, xMax: hi.x, yMax: hi.y), keypoints: keypoints.map(map))
    }
}
