import Foundation
import Inference
import Keypoints
import Landmarking
import VideoIO

/// MediaPipe's pose landmark model (full) on one region: crop to 256x256, run, refine from the heatmap,
/// project back to the frame. MediaPipe: pose_landmarks_detector_graph.cc.
public final class BodyLandmarker {
    public static let inputSize = 256
    /// 33 landmarks and the 2 auxiliary ones the next region is cut from, plus 4 the graph drops.
    static let modelLandmarks = 39
    let plan: ExecutionPlan
    private var tensor: [Float]

    /// What the model says of one region, before the presence threshold and smoothing.
    public struct Estimate {
        public var score: Float
        public var landmarks: [Point3]
        public var visibility: [Float]
        public var presence: [Float]
        /// Landmarks 33 and 34: the next frame's region is cut from them.
        public var auxiliary: [Point3]
        public var world: [Point3]
    }

    /// The heatmap refinement's window (`refine`): 7 as MediaPipe's graphs ask; 9 as video_to_pose runs them
    /// (`HolisticBodyTracker`).
    let refineKernel: Int

    public init(model: TFLiteModel, threads: Int, sharing: SharedConstants? = nil, refineKernel: Int = 7) throws {
        self.refineKernel = refineKernel
        // The segmentation logits (output 2) are never read: not planned (a third of the model's time on one
        // thread, `bench profile`: its 256x256 decoder).
        plan = try ExecutionPlan(model: model, threads: threads, sharing: sharing, outputs: [0, 1, 3, 4])
        tensor = [Float](repeating: 0, count: Self.inputSize * Self.inputSize * 3)
    }

    public func estimate(_ frame: VideoFrame, region: RegionOfInterest) throws -> Estimate {
        try tensor.withUnsafeMutableBufferPointer { t in
            RegionCrop.sample(frame, region: region, size: Self.inputSize, border: .replicate, into: t.baseAddress!)
            try plan.run(UnsafeBufferPointer(t))
        }
        // Outputs in the model's order: landmarks (39 x 5: x, y, z in 256-pixel units, visibility and
        // presence logits), pose presence, segmentation logits (unused), heatmap (64 x 64 x 39), world
        // landmarks (39 x 3, metres).
        let raw = plan.output(0), score = plan.output(1)[0], heatmap = plan.output(3), worldRaw = plan.output(4)
        let size = Float(Self.inputSize)
        func sigmoid(_ v: Float) -> Float { 1 / (1 + exp(-v)) }
        // TensorsToLandmarksCalculator: x, y, z / 256, visibility and presence through a sigmoid.
        var points = (0..<Self.modelLandmarks).map { j in Point3(raw[5 * j] / size, raw[5 * j + 1] / size, raw[5 * j + 2] / size) }
        Self.refine(&points, heatmap: heatmap, side: 64, kernel: refineKernel)
        let projected = points.map { region.project($0) }
        let visibility = (0..<Self.modelLandmarks).map { sigmoid(raw[5 * $0 + 3]) }
        let presence = (0..<Self.modelLandmarks).map { sigmoid(raw[5 * $0 + 4]) }
        // WorldLandmarkProjectionCalculator: world points turn with the region.
        let c = cos(region.rotation), s = sin(region.rotation)
        let world = (0..<BodyJoint.count).map { j in
            let x = worldRaw[3 * j], y = worldRaw[3 * j + 1]
            return Point3(c * x - s * y, s * x + c * y, worldRaw[3 * j + 2])
        }
        let n = BodyJoint.count
        return Estimate(score: score, landmarks: Array(projected[0..<n]), visibility: Array(visibility[0..<n]),
                        presence: Array(presence[0..<n]), auxiliary: Array(projected[n..<n + 2]), world: world)
    }

    /// MediaPipe's RefineLandmarksFromHeatmapCalculator (kernel 7 as its graphs ask, 9 as video_to_pose
    /// runs it; min_confidence_to_refine 0.5): each landmark (crop coordinates, 0...1) moves to the
    /// confidence-weighted mean of the heatmap cells in the kernel x kernel window around the cell it falls in, confidences being the sigmoid of the heatmap, when
    /// the window's highest confidence reaches 0.5. z, visibility and presence are left as they are.
    static func refine(_ points: inout [Point3], heatmap: UnsafeBufferPointer<Float>, side: Int, kernel: Int = 7, minConfidence: Float = 0.5) {
        let channels = points.count, offset = (kernel - 1) / 2
        for i in points.indices {
            // A coordinate off the heatmap (or not a number) is left as it is, before any conversion.
            let x = points[i].x * Float(side), y = points[i].y * Float(side)
            guard x > -1, x < Float(side), y > -1, y < Float(side) else { continue }
            let col = Int(x), row = Int(y)
            guard col >= 0, col < side, row >= 0, row < side else { continue }
            var sum: Float = 0, top: Float = 0, wx: Float = 0, wy: Float = 0
            for r in max(0, row - offset)..<min(side, row + offset + 1) {
                for c in max(0, col - offset)..<min(side, col + offset + 1) {
                    let confidence = 1 / (1 + exp(-heatmap[(r * side + c) * channels + i]))
                    sum += confidence
                    top = max(top, confidence)
                    wx += Float(c) * confidence
                    wy += Float(r) * confidence
                }
            }
            if top >= minConfidence && sum > 0 {
                points[i].x = wx / Float(side) / sum
                points[i].y = wy / Float(side) / sum
            }
        }
    }
}
