import Foundation
import Inference
import Landmarking
import VideoIO

/// MediaPipe's hand landmark model on one region: crop to 224x224, run, project back to the frame.
public final class HandLandmarker {
    public static let inputSize = 224
    let plan: ExecutionPlan
    private var tensor: [Float]
    /// Time spent so far (its landmark fields).
    var timings = HandTracker.Timings()

    public init(model: TFLiteModel, threads: Int, sharing: SharedConstants? = nil) throws {
        plan = try ExecutionPlan(model: model, threads: threads, sharing: sharing)
        tensor = [Float](repeating: 0, count: Self.inputSize * Self.inputSize * 3)
    }

    /// A landmarker on `other`'s packed weights (`ExecutionPlan.twin`), on as many threads: a second hand's
    /// landmarks at the same time as `other`'s.
    init(twinOf other: HandLandmarker) {
        plan = other.plan.twin(threads: other.plan.threads)
        tensor = [Float](repeating: 0, count: Self.inputSize * Self.inputSize * 3)
    }

    /// Landmarks of the hand in `region`. The handedness returned is the model's raw output, the
    /// probability of a right hand in the crop as given.
    public func estimate(_ frame: VideoFrame, region: RegionOfInterest) throws -> (presence: Float, rawHandedness: Float, landmarks: [Point3], world: [Point3]) {
        crop(frame, region: region)
        return try estimateCropped(region: region)
    }

    /// The model's input: `region` of `frame`, for `estimateCropped` (a caller with two threads crops on
    /// one before the model runs on the other).
    func crop(_ frame: VideoFrame, region: RegionOfInterest) {
        let t0 = ContinuousClock.now
        tensor.withUnsafeMutableBufferPointer { t in
            RegionCrop.sample(frame, region: region, size: Self.inputSize, border: .replicate, into: t.baseAddress!)
        }
        timings.crop += ContinuousClock.now - t0
    }

    /// `estimate` on the input the last `crop` made of `region`.
    func estimateCropped(region: RegionOfInterest) throws -> (presence: Float, rawHandedness: Float, landmarks: [Point3], world: [Point3]) {
        let t1 = ContinuousClock.now
        try tensor.withUnsafeBufferPointer { try plan.run($0) }
        let t2 = ContinuousClock.now
        defer {
            timings.landmarkModel += t2 - t1
            timings.landmarkDecode += ContinuousClock.now - t2
            timings.landmarkRuns += 1
        }
        // Outputs, as hand_landmark_cpu.pbtxt names them: landmarks (224-pixel units), hand flag,
        // handedness, world landmarks (metres).
        let screen = plan.output(0), presence = plan.output(1)[0], handedness = plan.output(2)[0], world = plan.output(3)
        let size = Float(Self.inputSize)
        // MediaPipe: tensors_to_landmarks_calculator, normalize_z 0.4 (z in units of the crop width / 0.4).
        let landmarks = (0..<21).map { j in
            region.project(Point3(screen[3 * j] / size, screen[3 * j + 1] / size, screen[3 * j + 2] / size / 0.4))
        }
        // MediaPipe: world_landmark_projection_calculator: world points turn with the region, not scale.
        let c = cos(region.rotation), s = sin(region.rotation)
        let worldPoints = (0..<21).map { j in
            let x = world[3 * j], y = world[3 * j + 1]
            return Point3(c * x - s * y, s * x + c * y, world[3 * j + 2])
        }
        return (presence, handedness, landmarks, worldPoints)
    }
}
