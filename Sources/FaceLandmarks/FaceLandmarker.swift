import Foundation
import Inference
import Landmarking
import VideoIO

/// MediaPipe's face mesh model on one region: crop to 192x192 (stretched; the region is square in
/// pixels), run, project the 468 points back to the frame. MediaPipe: face_landmark_cpu.pbtxt.
public final class FaceLandmarker {
    public static let inputSize = 192
    public static let pointCount = 468
    let plan: ExecutionPlan
    private var tensor: [Float]

    public init(model: TFLiteModel, threads: Int, sharing: SharedConstants? = nil) throws {
        plan = try ExecutionPlan(model: model, threads: threads, sharing: sharing)
        tensor = [Float](repeating: 0, count: Self.inputSize * Self.inputSize * 3)
    }

    /// The face's presence (the sigmoid of the model's face flag) and its points: x, y normalised to the
    /// frame, z in the units of x (TensorsToLandmarks: x, y, z / 192, then projected).
    public func estimate(_ frame: VideoFrame, region: RegionOfInterest) throws -> (presence: Float, landmarks: [Point3]) {
        try tensor.withUnsafeMutableBufferPointer { t in
            RegionCrop.sample(frame, region: region, size: Self.inputSize, border: .replicate, into: t.baseAddress!)
            try plan.run(UnsafeBufferPointer(t))
        }
        let raw = plan.output(0), flag = plan.output(1)[0]
        let size = Float(Self.inputSize)
        let points = (0..<Self.pointCount).map { j in
            region.project(Point3(raw[3 * j] / size, raw[3 * j + 1] / size, raw[3 * j + 2] / size))
        }
        return (1 / (1 + exp(-flag)), points)
    }
}
