import Foundation
import TestSupport
import XCTest

/// `extract --body` against MediaPipe's own PoseLandmarker (Tasks, the release `make setup` installs in
/// .venv-tasks, with the same model files) on the shared corpus, and against MediaPipe's floor: MediaPipe
/// run again with 1 added to 1% of the pixels of every frame, which moves its tracked output as far as
/// any other engine's arithmetic could. Measured as `make parity` measures it (scripts/pose_compare.py:
/// bodies per frame, landmark deviation in torso sizes).
final class BodyParityTests: XCTestCase {
    static let corpus = ToolRunner.root.appendingPathComponent("../shared/corpus").standardizedFileURL
    /// The corpus clips in which MediaPipe keeps its person in every frame; in the others the pose
    /// presence hovers at the threshold and MediaPipe's own runs part ways (README, "Bodies").
    static let steadyClips = ["dg_clicks.gif", "dg_drag_drop_1.gif", "dg_swipe_left_right.gif", "mps_thumbs_up.mp4",
                              "nvgesture_two_hands.avi", "slp_sign_short.mp4"]

    /// The `overall` line's numbers: count agreement (%), bodies, mean and p95 deviation.
    func overall(_ ours: URL, _ reference: URL, only: [String]) throws -> (count: Double, bodies: Int, mean: Double, p95: Double) {
        let python = ToolRunner.root.appendingPathComponent(".venv/bin/python").path
        let (code, text) = try ToolRunner.process(python, ["scripts/pose_compare.py", ours.path, reference.path, "--only"] + only.map { $0 + ".hands.json" })
        XCTAssertEqual(code, 0, text)
        print(text)
        let line = try XCTUnwrap(text.split(separator: "\n").first { $0.hasPrefix("overall") }, text)
        let f = line.split(separator: " ").dropFirst().map(String.init)
        return (Double(f[1].dropLast())!, Int(f[2])!, Double(f[3])!, Double(f[4])!)
    }

    func testBodiesAgreeWithMediaPipeWithinItsFloor() throws {
        let models = try ToolRunner.models()
        let tasks = ToolRunner.root.appendingPathComponent(".venv-tasks/bin/python").path
        guard try ToolRunner.process(tasks, ["-c", "import mediapipe, cv2"]).0 == 0 else {
            print("SKIP: .venv-tasks has no MediaPipe (make setup installs it)")
            throw Prerequisite.missing("no MediaPipe in .venv-tasks")
        }
        let clips = Self.corpus.appendingPathComponent("clips"), images = Self.corpus.appendingPathComponent("images")
        guard FileManager.default.fileExists(atPath: clips.path), FileManager.default.fileExists(atPath: images.path) else {
            print("SKIP: the shared corpus (\(Self.corpus.path)) is absent")
            throw Prerequisite.missing("shared corpus absent")
        }
        let stills = try FileManager.default.contentsOfDirectory(atPath: images.path).sorted()
        let inputs = Self.steadyClips.map { clips.appendingPathComponent($0).path } + stills.map { images.appendingPathComponent($0).path }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("body-parity-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let ours = dir.appendingPathComponent("handpose")
        let (code, text) = try ToolRunner.run(["extract"] + inputs + ["-o", ours.path, "--models", models, "--body", "--jobs", "2"])
        XCTAssertEqual(code, 0, text)
        var reference: [URL] = []
        for noise in ["0", "0.01"] {
            let folder = dir.appendingPathComponent("mediapipe-\(noise)")
            let (c, t) = try ToolRunner.process(tasks, ["scripts/mediapipe_keypoints.py", "pose", "--models", models, "--out", folder.path,
                                                        "--noise", noise] + inputs)
            XCTAssertEqual(c, 0, t)
            reference.append(folder)
        }
        // Stills (IMAGE mode): the same picture through the same arithmetic, so the same bodies to float
        // rounding; and the same count in every one.
        let still = try overall(ours, reference[0], only: stills)
        XCTAssertEqual(still.count, 100)
        XCTAssertGreaterThanOrEqual(still.bodies, 5)
        XCTAssertLessThan(still.mean, 0.002)
        XCTAssertLessThan(still.p95, 0.005)
        // Clips (VIDEO mode: tracked, smoothed): no farther from MediaPipe than MediaPipe from itself.
        let clip = try overall(ours, reference[0], only: Self.steadyClips)
        let floor = try overall(reference[1], reference[0], only: Self.steadyClips)
        XCTAssertEqual(clip.count, 100)
        XCTAssertLessThanOrEqual(clip.mean, floor.mean, "handpose \(clip), MediaPipe's floor \(floor)")
        XCTAssertLessThanOrEqual(clip.p95, floor.p95, "handpose \(clip), MediaPipe's floor \(floor)")
    }
}
