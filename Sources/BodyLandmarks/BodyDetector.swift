import Foundation
import Inference
import Landmarking
import VideoIO

/// MediaPipe's pose detection (BlazePose's detector): letterbox to 224x224 in [-1, 1], run the model,
/// decode 2254 SSD anchors, weighted non-max suppression, remove the letterbox.
/// MediaPipe: pose_detector_graph.cc / pose_detection_cpu.pbtxt.
public final class BodyDetector {
    public static let inputSize = 224
    let plan: ExecutionPlan
    /// SsdAnchorsCalculator: 5 layers, strides 8, 16, 32, 32, 32, fixed anchor size, 2 anchors per layer
    /// and cell: 28x28x2 + 14x14x2 + 7x7x6 = 2254.
    let anchors = SSDAnchors.centres(size: inputSize, grids: [(8, 2), (16, 2), (32, 6)])
    public var minScore: Float
    /// Non-max suppression's IoU: 0.5 in Tasks' pose_detector_graph (its default), 0.3 in the legacy
    /// pose_detection_cpu.pbtxt that Holistic runs.
    let suppression: Float
    private var tensor: [Float]

    public init(model: TFLiteModel, threads: Int, minScore: Float = 0.5, suppression: Float = 0.5, sharing: SharedConstants? = nil) throws {
        plan = try ExecutionPlan(model: model, threads: threads, sharing: sharing)
        self.minScore = minScore
        self.suppression = suppression
        tensor = [Float](repeating: 0, count: Self.inputSize * Self.inputSize * 3)
    }

    /// People in `frame`, strongest first: each a box (the face's) and four keypoints, normalised to the
    /// frame: the hips' midpoint, a point whose distance from it is the radius of a circle around the whole
    /// body, the face's centre, and one giving the face's size and turn.
    public func detect(_ frame: VideoFrame) throws -> [Detection] {
        let (region, pad) = RegionCrop.letterbox(width: frame.width, height: frame.height)
        try tensor.withUnsafeMutableBufferPointer { t in
            RegionCrop.sample(frame, region: region, size: Self.inputSize, border: .zero, into: t.baseAddress!)
            // ImageToTensorCalculator, output_tensor_float_range -1...1: pixel * 2/255 - 1.
            for i in t.indices { t[i] = t[i] * 2 - 1 }
            try plan.run(UnsafeBufferPointer(t))
        }
        // TensorsToDetectionsCalculator: 12 values per anchor (x, y, w, h, then 4 keypoints), sigmoid
        // score clipped at 100, min_score_thresh; then weighted NMS.
        let raw = Detection.decodeSSD(boxes: plan.output(0), scores: plan.output(1), anchors: anchors, keypoints: 4,
                                         inputSize: Self.inputSize, minScore: minScore)
        return Detection.weightedNonMaxSuppression(raw, iouThreshold: suppression).map { $0.removingLetterbox(padding: pad) }
    }
}
