import Foundation
import Inference
import Landmarking
import VideoIO

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
        SSDAnchors.centres(size: size, grids: [(8, 2), (16, 6)])
    }

    /// Palms in `frame`, strongest first.
    public func detect(_ frame: VideoFrame) throws -> [Detection] {
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
        let palms = Detection.weightedNonMaxSuppression(raw, iouThreshold: 0.3).map { $0.removingLetterbox(padding: pad) }
        timings.letterbox += t1 - t0
        timings.palmModel += t2 - t1
        timings.palmDecode += ContinuousClock.now - t2
        timings.palmRuns += 1
        return palms
    }

    /// MediaPipe's TensorsToDetectionsCalculator for this model: 18 values per anchor
    /// (dx, dy, w, h, then 7 keypoints), scaled by 1/192 around the anchor; score = sigmoid of the
    /// logit clipped to +-100.
    func decode(boxes: UnsafeBufferPointer<Float>, scores: UnsafeBufferPointer<Float>) -> [Detection] {
        Detection.decodeSSD(boxes: boxes, scores: scores, anchors: anchors, keypoints: 7, inputSize: Self.inputSize, minScore: minScore)
    }
}
