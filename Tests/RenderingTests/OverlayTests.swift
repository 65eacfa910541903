import Foundation
import Keypoints
import Rendering
import VideoIO
import XCTest

/// The overlay draws where the keypoints are, in the file's colours.
final class OverlayTests: XCTestCase {
    func testSkeletonPixelsLandOnJointsAndBones() {
        let frame = VideoFrame(width: 200, height: 200)
        // A straight vertical hand: joint j at (0.5, 0.9 - 0.035 j).
        let landmarks = (0..<21).map { j -> [Float] in [0.5, 0.9 - 0.035 * Float(j), 0] }
        let hand = KeypointFile.Hand(chirality: .right, handedness: 0.9, presence: 0.95, landmarks: landmarks, world: nil, region: nil)
        let file = KeypointFile(source: "x", width: 200, height: 200, fps: 25, frames: [KeypointFile.Frame(i: 0, t: 0, hands: [hand])],
                                tool: nil, settings: nil, models: nil)
        let out = Overlay.draw(frame, files: [file], index: 0).frame()
        // Joint dots are white.
        let (r, g, b) = out[100, 180]
        XCTAssertGreaterThan(Int(r) + Int(g) + Int(b), 600)
        // Between joints 5 (y 145) and 6 (y 138), on the bone: the right-hand colour (red-dominant).
        let mid = out[100, 141]
        XCTAssertGreaterThan(Int(mid.r), Int(mid.b) + 60)
        // Far from the hand the frame is untouched.
        XCTAssertEqual(out[20, 150].r, 0)
    }

    func testBodiesAreDrawnUnderTheHandsDimWhereHidden() {
        let frame = VideoFrame(width: 200, height: 200)
        // Every landmark at (0.1, 0.1) but the left shoulder (0.3, 0.5) and the left elbow (0.3, 0.8): the
        // upper arm a vertical bone at x 60 from y 100 to 160; the right shoulder (0.7, 0.5) and elbow
        // (0.7, 0.8) hidden (visibility 0.1).
        var points = [[Float]](repeating: [0.1, 0.1, 0], count: BodyJoint.count)
        points[BodyJoint.leftShoulder] = [0.3, 0.5, 0]; points[13] = [0.3, 0.8, 0]
        points[BodyJoint.rightShoulder] = [0.7, 0.5, 0]; points[14] = [0.7, 0.8, 0]
        var visibility = [Float](repeating: 0.9, count: BodyJoint.count)
        visibility[BodyJoint.rightShoulder] = 0.1; visibility[14] = 0.1
        let body = KeypointFile.Body(landmarks: points, visibility: visibility, presence: visibility, world: nil, score: 1, region: nil, track: 0)
        let file = KeypointFile(source: "x", width: 200, height: 200, fps: 25,
                                frames: [KeypointFile.Frame(i: 0, t: 0, hands: [], bodies: [body])], tool: nil, settings: nil, models: nil)
        let out = Overlay.draw(frame, files: [file], index: 0).frame()
        let seen = out[60, 130], hidden = out[140, 130]
        XCTAssertGreaterThan(Int(seen.g) + Int(seen.b), 200, "the left upper arm is drawn")
        XCTAssertGreaterThan(Int(hidden.r), 0, "the hidden right upper arm is drawn")
        XCTAssertGreaterThan(Int(seen.r) + Int(seen.g) + Int(seen.b), 2 * (Int(hidden.r) + Int(hidden.g) + Int(hidden.b)) - 10, "dimmer when hidden")
        XCTAssertEqual(out[100, 190].r, 0)
    }

    /// A hand whose wrist lies past an edge of the frame (a hand raised from below, its wrist out of view;
    /// MediaPipe gives about -0.5 to 1.5 for such joints) puts its label outside the canvas, and a frame of a
    /// few pixels has no room for the frame line: both are drawn as far as they fit, never a crash.
    func testLabelsPastTheFramesEdgesAreClippedNotACrash() {
        for (wrist, size) in [([0.5, 1.2], 200), ([1.3, 0.5], 200), ([-0.6, 0.5], 200), ([0.5, -0.4], 200),
                              ([0.5, 0.5], 4), ([0.5, 0.5], 1)] as [([Float], Int)] {
            let frame = VideoFrame(width: size, height: size)
            let landmarks = (0..<21).map { j -> [Float] in [wrist[0], wrist[1] - 0.01 * Float(j), 0] }
            let hand = KeypointFile.Hand(chirality: .left, handedness: 0.9, presence: 0.95, landmarks: landmarks, world: nil, region: nil)
            let file = KeypointFile(source: "x", width: size, height: size, fps: 25, frames: [KeypointFile.Frame(i: 0, t: 0, hands: [hand])],
                                    tool: nil, settings: nil, models: nil)
            let out = Overlay.draw(frame, files: [file], index: 0).frame()
            XCTAssertEqual(out.width, size, "wrist \(wrist) on a \(size)x\(size) frame")
        }
        // The box itself, clipped on every side.
        var canvas = Canvas(width: 10, height: 10, fill: SIMD3(100, 100, 100))
        canvas.text("LONG LABEL", x: 8, y: 8, scale: 2)
        canvas.text("X", x: -50, y: -50, scale: 2)
        canvas.text("X", x: 40, y: 3, scale: 2)
        XCTAssertEqual(canvas.pixels[0], SIMD3(100, 100, 100), "outside every box")
        XCTAssertEqual(canvas.pixels[7 * 10 + 7].x, 35, accuracy: 0.01, "under the first box, clipped at the corner")
    }
}
