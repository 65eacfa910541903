import Foundation
import Inference
import Landmarking
import VideoIO

/// MediaPipe's face mesh model on one region: crop to 192x192 (stretched; the region is square in
/// pixels), run, project the points back to the frame. MediaPipe: face_landmark_cpu.pbtxt. Either model:
/// face_landmark.tflite (468 points) or face_landmark_with_attention.tflite (478: the lips, eyes and irises
/// refined, `FaceRefinement`), told apart by their outputs (2 or 7).
public final class FaceLandmarker {
    public static let inputSize = 192
    let plan: ExecutionPlan
    /// The model refines the mesh (the attention model): 478 points, else 468.
    public let refines: Bool
    public var pointCount: Int { refines ? FaceRefinement.pointCount : FaceRefinement.meshPoints }
    private var tensor: [Float]

    public init(model: TFLiteModel, threads: Int, sharing: SharedConstants? = nil) throws {
        plan = try ExecutionPlan(model: model, threads: threads, sharing: sharing)
        let sizes = plan.outputs.map(\.count)
        switch sizes {
        case [1404, 1]: refines = false
        case [1404, 160, 142, 142, 10, 10, 1]:
            // The eyes and irises have equal sizes: their names say which is which.
            let names = plan.outputs.map(\.name)
            for (i, part) in ["lips", "left_eye", "right_eye", "left_iris", "right_iris", "faceflag"].enumerated() where !names[i + 1].contains(part) {
                throw InferenceError.malformed(path: model.path, reason: "output \(i + 1) is '\(names[i + 1])', expected the \(part)")
            }
            refines = true
        default:
            throw InferenceError.malformed(path: model.path, reason: "outputs of \(sizes) values are neither face mesh model's")
        }
        tensor = [Float](repeating: 0, count: Self.inputSize * Self.inputSize * 3)
    }

    /// The face's presence (the sigmoid of the model's face flag) and its points: x, y normalised to the
    /// frame, z in the units of x (TensorsToLandmarks: x, y, z / 192, then projected).
    public func estimate(_ frame: VideoFrame, region: RegionOfInterest) throws -> (presence: Float, landmarks: [Point3]) {
        try tensor.withUnsafeMutableBufferPointer { t in
            RegionCrop.sample(frame, region: region, size: Self.inputSize, border: .replicate, into: t.baseAddress!)
            try plan.run(UnsafeBufferPointer(t))
        }
        let raw = plan.output(0), flag = plan.output(refines ? 6 : 1)[0]
        let size = Float(Self.inputSize)
        var points = (0..<FaceRefinement.meshPoints).map { j in Point3(raw[3 * j] / size, raw[3 * j + 1] / size, raw[3 * j + 2] / size) }
        if refines {
            points = FaceRefinement.refine(mesh: points, lips: plan.output(1), leftEye: plan.output(2), rightEye: plan.output(3),
                                           leftIris: plan.output(4), rightIris: plan.output(5), scale: size)
        }
        return (1 / (1 + exp(-flag)), points.map(region.project))
    }
}
