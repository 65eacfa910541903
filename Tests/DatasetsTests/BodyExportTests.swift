import Annotations
import Datasets
import Foundation
import KeypointFormats
import Keypoints
import XCTest

/// `export actions --body-joints upper`: the body a window's hand belongs to, resampled, augmented with
/// the hands and written beside X.
final class BodyExportTests: XCTestCase {
    /// A body whose every landmark is at (x, y), but the shoulders at x - 0.1 (left) and x + 0.1 (right),
    /// visibility 0.5 but 0.9 on the left shoulder.
    func body(x: Float, y: Float, track: Int) -> KeypointFile.Body {
        var points = [[Float]](repeating: [x, y, 0], count: BodyJoint.count)
        points[BodyJoint.leftShoulder] = [x - 0.1, y, 0]
        points[BodyJoint.rightShoulder] = [x + 0.1, y, 0]
        var visibility = [Float](repeating: 0.5, count: BodyJoint.count)
        visibility[BodyJoint.leftShoulder] = 0.9
        return KeypointFile.Body(landmarks: points, visibility: visibility, presence: .init(repeating: 1, count: 33),
                                 world: nil, score: 1, region: nil, track: track)
    }

    func hand(x: Float, person: Int?) -> KeypointFile.Hand {
        var h = KeypointFile.Hand(chirality: .right, handedness: 0.9, presence: 0.9,
                                  landmarks: Array(repeating: [x, 0.5, 0], count: 21), world: nil, region: nil, track: 0)
        h.person = person
        return h
    }

    /// Ten frames at 10 fps: two people; the hand belongs to the second (x 0.2 -> 0.65), the first stands still.
    func file() -> KeypointFile {
        let frames = (0..<10).map { i in
            KeypointFile.Frame(i: i, t: Double(i) / 10, hands: [hand(x: 0.2 + 0.05 * Float(i), person: 1)],
                               bodies: [body(x: 0.8, y: 0.6, track: 0), body(x: 0.2 + 0.05 * Float(i), y: 0.4, track: 1)])
        }
        return KeypointFile(source: "clip.mp4", width: 640, height: 480, fps: 10, frames: frames, tool: nil, settings: nil, models: nil)
    }

    func testWindowsFollowTheHandsPersonResampledOnRealTimes() {
        let track = Windowing.resample(file(), start: 0, end: 1, fps: 20, hand: .any, body: .upper)
        XCTAssertEqual(track.bodies.count, 20)
        // Halfway between frames 2 and 3 (t = 0.25): the second person, x between 0.3 and 0.35.
        let b = track.bodies[5]!
        XCTAssertEqual(b.joints.count, 25)
        XCTAssertEqual(b.joints[0].x, 0.325, accuracy: 1e-6)
        XCTAssertEqual(b.joints[0].y, 0.4, accuracy: 1e-6)
        XCTAssertEqual(b.visibility[BodyJoint.leftShoulder], 0.9)
        // The person is followed by track, wherever the frame lists them: swapped in the second half, the
        // same person is taken.
        var swapped = file()
        for i in 5..<10 {
            swapped.frames[i].bodies!.swapAt(0, 1)
            swapped.frames[i].hands[0].person = 0
        }
        let followed = Windowing.resample(swapped, start: 0, end: 1, fps: 20, hand: .any, body: .upper)
        XCTAssertEqual(followed.bodies[15]!.joints[0].y, 0.4, accuracy: 1e-6)
        // Without any tie, the person seen longest (track 0 in 9 frames, track 1 in 8); a frame without
        // that person has no body, never another person's.
        var untied = file()
        for i in untied.frames.indices { untied.frames[i].hands[0].person = nil }
        untied.frames[4].bodies!.removeFirst()
        untied.frames[6].bodies!.removeLast()
        untied.frames[7].bodies!.removeLast()
        let longest = Windowing.resample(untied, start: 0, end: 1, fps: 20, hand: .any, body: .upper)
        XCTAssertEqual(longest.bodies[5]!.joints[0].x, 0.8, accuracy: 1e-6)
        XCTAssertNil(longest.bodies[8])
        // No body asked: none kept.
        XCTAssertTrue(Windowing.resample(file(), start: 0, end: 1, fps: 20, hand: .any).bodies.isEmpty)
    }

    func testAugmentedCopiesMoveTheBodyWithTheHandsAndMirrorItsSides() throws {
        var settings = ExportSettings()
        settings.fps = 10; settings.window = 10; settings.body = .upper
        let segment = Segment(video: URL(fileURLWithPath: "/data/clip.mp4"), videoPath: "clip.mp4", label: "a", start: 0, end: 1, source: "/data/a.csv", line: 2)
        let base = try ExampleBuilder.actions([segment], classes: ["a"], settings: settings) { _ in self.file() }
        XCTAssertEqual(base.count, 1)
        XCTAssertEqual(base[0].bodies.count, 10)
        let copies = ExampleBuilder.augment(base, with: [.flip], copies: 1, seed: 3, joints: .upper)
        let original = copies[0].bodies[4]!, mirrored = copies[1].bodies[4]!
        let hand = copies[0].frames[4][0]!.joints[0].x, mirroredHand = copies[1].frames[4][0]!.joints[0].x
        XCTAssertEqual(mirroredHand, 1 - hand, accuracy: 1e-6)
        XCTAssertEqual(mirrored.joints[0].x, 1 - original.joints[0].x, accuracy: 1e-6)
        // The person's left shoulder now stands where the right one was seen, mirrored; its visibility went with it.
        XCTAssertEqual(mirrored.joints[BodyJoint.leftShoulder].x, 1 - original.joints[BodyJoint.rightShoulder].x, accuracy: 1e-6)
        XCTAssertEqual(mirrored.visibility[BodyJoint.leftShoulder], 0.5)
        XCTAssertEqual(mirrored.visibility[BodyJoint.rightShoulder], 0.9)
        // A rotation moves hands and body by the same turn about the centre.
        let turned = ExampleBuilder.augment(base, with: [.rotate(degrees: 30)], copies: 1, seed: 5, joints: .upper)
        let angle = try XCTUnwrap(turned[1].manifest.augmentation["rotate_degrees"])
        let r = Float(angle * .pi / 180)
        let p = original.joints[0], q = turned[1].bodies[4]!.joints[0]
        XCTAssertEqual(q.x, cos(r) * (p.x - 0.5) - sin(r) * (p.y - 0.5) + 0.5, accuracy: 1e-5)
    }

    func testBodyArraysAreWrittenBesideXInItsLayout() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("body-export-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        var settings = ExportSettings()
        settings.fps = 10; settings.window = 12; settings.body = .upper; settings.normalize = .wrist
        let segment = Segment(video: URL(fileURLWithPath: "/data/clip.mp4"), videoPath: "clip.mp4", label: "a", start: 0, end: 1, source: "/data/a.csv", line: 2)
        let examples = try ExampleBuilder.actions([segment], classes: ["a"], settings: settings) { _ in self.file() }
        for layout in [Layout.createml, .ntjc] {
            settings.layout = layout
            let out = dir.appendingPathComponent(layout.rawValue)
            try TrainingSet.write(examples, classes: ["a"], frames: 12, slots: 1, settings: settings, format: .npy, to: out)
            let b = try Npy.read(Data(contentsOf: out.appendingPathComponent("B.npy")), name: "B.npy")
            XCTAssertEqual(b.shape, layout == .createml ? [1, 12, 3, 25] : [1, 12, 25, 3])
            let mask = try Npy.read(Data(contentsOf: out.appendingPathComponent("body_mask.npy")), name: "body_mask.npy")
            XCTAssertEqual(mask.shape, [1, 12])
            // Ten real frames, two padded.
            XCTAssertEqual(mask.values, [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0])
            // Normalised by the shoulders: the left shoulder sits at x = -0.5 shoulder widths, visibility 0.9.
            let j = BodyJoint.leftShoulder
            let x = layout == .createml ? b.values[0 * 25 + j] : b.values[j * 3 + 0]
            let c = layout == .createml ? b.values[2 * 25 + j] : b.values[j * 3 + 2]
            XCTAssertEqual(x, -0.5, accuracy: 1e-5)
            XCTAssertEqual(c, 0.9, accuracy: 1e-6)
        }
        // The CSV format: B's columns after X's, the body mask after the hands'.
        try TrainingSet.write(examples, classes: ["a"], frames: 12, slots: 1, settings: settings, format: .csv, to: dir.appendingPathComponent("csv"))
        let header = try String(contentsOf: dir.appendingPathComponent("csv/keypoints.csv"), encoding: .utf8).split(separator: "\n")[0].split(separator: ",")
        let row = try String(contentsOf: dir.appendingPathComponent("csv/keypoints.csv"), encoding: .utf8).split(separator: "\n")[1].split(separator: ",")
        XCTAssertEqual(header.count, row.count)
        XCTAssertEqual(header.count, 1 + 12 * 21 * 3 + 12 * 25 * 3 + 12 + 12)
        XCTAssertTrue(header.contains("t3_body_x_left_shoulder"))
        XCTAssertEqual(header.last, "body_mask_t11")
    }
}
