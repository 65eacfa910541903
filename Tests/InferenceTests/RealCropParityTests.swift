import Foundation
import HandLandmarks
import Inference
import Landmarking
import TestSupport
import VideoIO
import XCTest

/// The four models against the official TFLite interpreter on real photographs: the letterboxed
/// 192x192 frame the palm models see, and the 224x224 hand crop the landmark models see, made by
/// our own pipeline from the strongest palm. Random inputs exercise every weight; real crops add
/// the activation ranges the models meet in use.
final class RealCropParityTests: XCTestCase {
    static let corpus = Fixtures.root.appendingPathComponent("../shared/corpus/images").standardizedFileURL
    static let images = ["mps_thumb_up.jpg", "vd_pointing_two_hands.jpg", "shb_01-05-038-01-05.png"]

    func frame(_ name: String) throws -> VideoFrame {
        let url = Self.corpus.appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: url.path) else {
            print("SKIP: \(url.path) is absent (the shared corpus is not beside the repository)")
            throw Prerequisite.missing("\(url.path) is absent")
        }
        let frame = try XCTUnwrap(try VideoReader(url: url).nextFrame(), "\(name) has no frame")
        return frame
    }

    /// Runs `name` on `input` in our engine and the reference; asserts each output within `limit`
    /// (landmark outputs and palm scores are compared in their own units, palm boxes relative to 224).
    func compare(_ name: String, input: [Float], label: String) throws {
        let path = try Fixtures.modelPath(name)
        let plan = try ExecutionPlan(model: try TFLiteModel(path: path), threads: 2)
        try plan.run(input)
        let reference = try Fixtures.reference(model: path, input: input, outputs: plan.outputs.count)
        for (i, ref) in reference.enumerated() {
            let ours = Array(plan.output(i))
            XCTAssertEqual(ours.count, ref.count)
            let diff = zip(ours, ref).map { abs($0 - $1) }.max() ?? 0
            let scale = ref.map(abs).max() ?? 0
            print("real-crop parity \(name) \(label) output \(i) '\(plan.outputs[i].name)': max |diff| \(diff) (max |ref| \(scale))")
            XCTAssertLessThan(diff, 1e-3 * max(1, scale / 224), "\(name) \(label) output \(i)")
        }
    }

    func testPalmAndLandmarkModelsOnRealCrops() throws {
        let palmPath = try Fixtures.modelPath("palm_detection_full")
        let detector = try PalmDetector(model: try TFLiteModel(path: palmPath), threads: 2)
        var crops = 0
        for name in Self.images {
            let frame = try frame(name)
            let (letterbox, _) = RegionCrop.letterbox(width: frame.width, height: frame.height)
            var palmInput = [Float](repeating: 0, count: 192 * 192 * 3)
            palmInput.withUnsafeMutableBufferPointer {
                RegionCrop.sample(frame, region: letterbox, size: 192, border: .zero, into: $0.baseAddress!)
            }
            for model in ["palm_detection_full", "palm_detection_lite"] {
                try compare(model, input: palmInput, label: name)
            }
            guard let palm = try detector.detect(frame).first else {
                XCTFail("\(name): no palm found in a photograph of a hand"); continue
            }
            let region = RegionOfInterest.fromPalm(palm, imageWidth: frame.width, imageHeight: frame.height)
            var handInput = [Float](repeating: 0, count: 224 * 224 * 3)
            handInput.withUnsafeMutableBufferPointer {
                RegionCrop.sample(frame, region: region, size: 224, border: .replicate, into: $0.baseAddress!)
            }
            for model in ["hand_landmark_full", "hand_landmark_lite"] {
                try compare(model, input: handInput, label: name)
            }
            crops += 1
        }
        XCTAssertEqual(crops, Self.images.count)
    }
}
