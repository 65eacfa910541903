import Foundation
import Keypoints
import XCTest

/// Bodies in keypoint files (format version 2) and the rule tying hands to them.
final class BodyKeypointTests: XCTestCase {
    let width = 640, height = 480

    /// A body standing in the frame with its own hands' four points around `left` and `right` (pixels).
    func body(left: SIMD2<Float>, right: SIMD2<Float>) -> KeypointFile.Body {
        var points = [[Float]](repeating: [0.5, 0.5, 0], count: BodyJoint.count)
        for (joints, at) in zip(BodyAssociation.bodyHands, [left, right]) {
            for (k, j) in joints.enumerated() {
                // Spread the four points 4 px around the hand's place; their mean is `at`.
                let offset = SIMD2<Float>([-4, 4, 0, 0][k], [0, 0, -4, 4][k])
                points[j] = [(at.x + offset.x) / Float(width), (at.y + offset.y) / Float(height), 0]
            }
        }
        return KeypointFile.Body(landmarks: points, visibility: .init(repeating: 0.9, count: 33), presence: .init(repeating: 0.9, count: 33),
                                 world: nil, score: 0.99, region: nil, track: 0)
    }

    /// A hand of 21 points spread over a 40 px square centred at `at` (pixels): its size is 40 * sqrt(2).
    func hand(at: SIMD2<Float>, _ chirality: Chirality = .right) -> KeypointFile.Hand {
        let points = (0..<21).map { j -> [Float] in
            let dx: Float = j == 1 ? -20 : j == 2 ? 20 : 0, dy: Float = j == 1 ? -20 : j == 2 ? 20 : 0
            return [(at.x + dx) / Float(width), (at.y + dy) / Float(height), 0]
        }
        return KeypointFile.Hand(chirality: chirality, handedness: 0.9, presence: 0.9, landmarks: points, world: nil, region: nil)
    }

    func testHandsTieToTheNearestBodyHandOnePerArm() {
        let size: Float = 40 * Float(2).squareRoot()
        var frame = KeypointFile.Frame(i: 0, t: 0, hands: [
            hand(at: [100, 300]),                       // at body 0's left hand
            hand(at: [105, 305]),                       // also near it, but farther: takes no arm of body 0's left
            hand(at: [500 + 0.9 * size, 300]),          // 0.9 hand sizes from body 1's right hand: tied
            hand(at: [300 + 1.1 * size, 100]),          // 1.1 hand sizes from body 1's left hand: too far
        ], bodies: [body(left: [100, 300], right: [200, 300]), body(left: [300, 100], right: [500, 300])])
        BodyAssociation.tie(&frame, width: width, height: height)
        let h = frame.hands
        XCTAssertEqual(h[0].person, 0); XCTAssertEqual(h[0].arm, "left"); XCTAssertNil(h[0].unattached)
        // The second hand's nearest free arm is body 0's right, 100 px (1.8 hand sizes) away: none.
        XCTAssertNil(h[1].person); XCTAssertEqual(h[1].unattached, true)
        XCTAssertEqual(h[2].person, 1); XCTAssertEqual(h[2].arm, "right")
        XCTAssertNil(h[3].person); XCTAssertNil(h[3].arm); XCTAssertEqual(h[3].unattached, true)
    }

    func testClosestPairWinsWhateverTheOrder() {
        // Two hands near one body's right hand: the closer one takes it, listed first or second.
        for swapped in [false, true] {
            var hands = [hand(at: [210, 300]), hand(at: [202, 300])]
            if swapped { hands.reverse() }
            var frame = KeypointFile.Frame(i: 0, t: 0, hands: hands, bodies: [body(left: [600, 50], right: [200, 300])])
            BodyAssociation.tie(&frame, width: width, height: height)
            let closer = frame.hands.first { abs($0.landmarks[0][0] * Float(width) - 202) < 0.01 }!
            let farther = frame.hands.first { abs($0.landmarks[0][0] * Float(width) - 210) < 0.01 }!
            XCTAssertEqual(closer.arm, "right", "swapped: \(swapped)")
            XCTAssertEqual(farther.unattached, true, "swapped: \(swapped)")
        }
    }

    func testFramesWithoutBodiesAreLeftAloneAndEmptyBodiesMarkEveryHand() {
        var plain = KeypointFile.Frame(i: 0, t: 0, hands: [hand(at: [100, 100])])
        BodyAssociation.tie(&plain, width: width, height: height)
        XCTAssertNil(plain.hands[0].unattached)
        var none = KeypointFile.Frame(i: 0, t: 0, hands: [hand(at: [100, 100])], bodies: [])
        BodyAssociation.tie(&none, width: width, height: height)
        XCTAssertEqual(none.hands[0].unattached, true)
    }

    func testVersionTwoFilesLoadAndBadBodiesAreRefused() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("body-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        func file(_ frame: KeypointFile.Frame) -> KeypointFile {
            var f = KeypointFile(source: "clip.mp4", width: width, height: height, fps: 25, frames: [frame], tool: nil, settings: nil, models: nil)
            f.schema = KeypointFile.bodySchemaName
            return f
        }
        var tied = hand(at: [100, 300])
        tied.person = 0
        let url = dir.appendingPathComponent("clip.mp4.hands.json")
        try file(.init(i: 0, t: 0, hands: [tied], bodies: [body(left: [100, 300], right: [200, 300])])).write(to: url)
        let loaded = try KeypointFile.load(url)
        XCTAssertEqual(loaded.schema, "handpose/keypoints@2")
        XCTAssertEqual(loaded.frames[0].bodies?.count, 1)
        XCTAssertEqual(loaded.frames[0].hands[0].person, 0)

        // A hand naming a person the frame lacks; a body of 32 landmarks; a visibility above 1.
        var stray = tied
        stray.person = 1
        var short = body(left: [1, 1], right: [2, 2])
        short.landmarks.removeLast()
        var bright = body(left: [1, 1], right: [2, 2])
        bright.visibility[3] = 1.5
        for (frame, words) in [(KeypointFile.Frame(i: 0, t: 0, hands: [stray], bodies: [body(left: [1, 1], right: [2, 2])]), "person 1"),
                               (.init(i: 0, t: 0, hands: [], bodies: [short]), "32 landmarks"),
                               (.init(i: 0, t: 0, hands: [], bodies: [bright]), "visibility")] {
            try JSONEncoder().encode(file(frame)).write(to: url)
            XCTAssertThrowsError(try KeypointFile.load(url)) { e in
                XCTAssertTrue("\(e)".contains(words) && "\(e)".contains(url.path), "\(e)")
            }
        }
    }

    func testPlainFilesStayVersionOneWithoutBodyFields() throws {
        let f = KeypointFile(source: "clip.mp4", width: width, height: height, fps: 25,
                             frames: [.init(i: 0, t: 0, hands: [hand(at: [100, 100])])], tool: nil, settings: nil, models: nil)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let text = String(decoding: try encoder.encode(f), as: UTF8.self)
        XCTAssertTrue(text.contains("\"schema\":\"handpose\\/keypoints@1\""), text)
        for field in ["bodies", "person", "arm", "unattached", "maxBodies"] { XCTAssertFalse(text.contains(field), field) }
    }
}
