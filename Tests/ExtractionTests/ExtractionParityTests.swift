import Datasets
import Extraction
import Foundation
import HandLandmarks
import Keypoints
import VideoIO
import XCTest

/// Our pipeline against MediaPipe's own outputs on a few real corpus files (from ../shared/corpus).
final class ExtractionParityTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL
    static let corpus = root.appendingPathComponent("../shared/corpus").standardizedFileURL

    func models(_ c: HandTrackerOptions.Complexity) throws -> HandModels {
        let dir = Self.root.appendingPathComponent("Models")
        guard FileManager.default.fileExists(atPath: dir.appendingPathComponent("hand_landmark_full.tflite").path) else {
            print("SKIP: models absent in \(dir.path); run `make setup`")
            throw XCTSkip("models absent")
        }
        return try HandModels(directory: dir, complexity: c)
    }

    func compare(_ relative: String, mode: HandTrackerOptions.Mode, rules: HandTrackerOptions.Rules = .legacy) throws -> KeypointComparison {
        let url = Self.corpus.appendingPathComponent(relative)
        guard FileManager.default.fileExists(atPath: url.path) else {
            print("SKIP: \(url.path) is absent (the shared corpus is not beside this clone)")
            throw XCTSkip("shared corpus absent")
        }
        var options = HandTrackerOptions()
        options.mode = mode
        options.rules = rules  // the reference is MediaPipe's legacy solution
        let tracker = try HandTracker(models: try models(.full), options: options, threads: 2)
        let ours = try KeypointExtraction.extract(url, sourcePath: relative, tracker: tracker, tool: .init(name: "handpose", version: "test"))
        let reference = try KeypointFile.load(Self.corpus.appendingPathComponent("reference/\(url.lastPathComponent).hands.json"))
        return try KeypointComparison.compare(ours, reference, path: relative)
    }

    func testClipsMatchMediaPipe() throws {
        var total = KeypointComparison()
        for clip in ["clips/mps_open_palm.mp4", "clips/slp_sign_short.mp4", "clips/dg_drag_drop_1.gif"] {
            let c = try compare(clip, mode: .video)
            print(String(format: "parity %@: count %.3f chirality %.3f mean %.4f palms", clip, c.countAgreement, c.chiralityAgreement, c.meanDeviation))
            total.merge(c)
        }
        XCTAssertGreaterThanOrEqual(total.countAgreement, 0.97)
        XCTAssertGreaterThanOrEqual(total.chiralityAgreement, 0.97)
        XCTAssertLessThanOrEqual(total.meanDeviation, 0.03)
    }

    /// JPEG stills decoded by libjpeg-turbo, as OpenCV decodes them for the legacy solution: the same
    /// pixels, so the same keypoints to rounding (FFmpeg's mjpeg decoder gave 0.004-0.03 palm sizes).
    func testImagesMatchMediaPipe() throws {
        var total = KeypointComparison()
        for image in ["images/mps_thumb_up.jpg", "images/vd_pointing_two_hands.jpg", "images/mp_gesture_call_2.jpg",
                      "images/mp_gesture_rock_1.jpg"] {
            total.merge(try compare(image, mode: .image))
        }
        XCTAssertEqual(total.countAgreement, 1)
        XCTAssertEqual(total.chiralityAgreement, 1)
        XCTAssertLessThanOrEqual(total.meanDeviation, 0.001)
        XCTAssertLessThanOrEqual(total.p95Deviation, 0.002)
    }

    /// With MediaPipe Tasks' rules (the default) a clip where the legacy reference reports one hand
    /// twice: ours never does, and agree on the count wherever the reference does not.
    func testTasksRulesReportEachHandOnce() throws {
        let c = try compare("clips/dg_clicks.gif", mode: .video, rules: .tasks)
        print(String(format: "tasks rules dg_clicks: count %.3f (%.3f without frames reporting a hand twice), %d frames twice in the reference",
                     c.countAgreement, c.countAgreementWithoutTwice, c.framesWithHandTwiceInB))
        XCTAssertEqual(c.framesWithHandTwiceInA, 0)
        XCTAssertGreaterThan(c.framesWithHandTwiceInB, 0)
        XCTAssertEqual(c.countAgreementWithoutTwice, 1)
        XCTAssertLessThanOrEqual(c.meanDeviation, 0.03)
    }
}
