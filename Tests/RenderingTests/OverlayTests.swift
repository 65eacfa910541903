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
}
