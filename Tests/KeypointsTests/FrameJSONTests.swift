import Foundation
@testable import Keypoints
import XCTest

/// `FrameJSON` writes the bytes `JSONEncoder` (sorted keys) writes for a frame, on frames with every field
/// set or left out, numbers of every kind and strings that need escaping.
final class FrameJSONTests: XCTestCase {
    func testSameBytesAsJSONEncoder() throws {
        var rng = SystemRandomNumberGenerator()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        for trial in 0..<400 {
            let frame = Self.randomFrame(trial, &rng)
            let want = try encoder.encode(frame)
            let got = try FrameJSON.encode(frame)
            if Array(want) != got {
                let at = zip(want, got).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(want.count, got.count)
                return XCTFail("frame \(trial): bytes differ from \(at): JSONEncoder \(String(decoding: want.dropFirst(max(0, at - 40)).prefix(80), as: UTF8.self)), FrameJSON \(String(decoding: got.dropFirst(max(0, at - 40)).prefix(80), as: UTF8.self))")
            }
        }
    }

    /// A number JSON cannot hold is refused, as JSONEncoder refuses it.
    func testNonFiniteNumbersAreRefused() {
        for bad: Float in [.nan, .infinity, -.infinity] {
            let frame = KeypointFile.Frame(i: 0, t: 0, hands: [KeypointFile.Hand(chirality: .left, handedness: 0.5, presence: bad, landmarks: [[0, 0, 0]], world: nil, region: nil)])
            XCTAssertThrowsError(try FrameJSON.encode(frame)) { XCTAssertTrue($0 is EncodingError, "\($0)") }
            XCTAssertThrowsError(try JSONEncoder().encode(frame))
        }
        XCTAssertThrowsError(try FrameJSON.encode(KeypointFile.Frame(i: 0, t: .nan, hands: [])))
    }

    /// Each type has the fields `FrameJSON` writes: a field added to one must be added there too.
    func testEveryFieldIsWritten() {
        let region = KeypointFile.Region(xCenter: 0, yCenter: 0, width: 0, height: 0, rotation: 0)
        let hand = KeypointFile.Hand(chirality: .left, handedness: 0, presence: nil, landmarks: [], world: nil, region: nil)
        let body = KeypointFile.Body(landmarks: [], visibility: [], presence: [], world: nil, score: nil, region: nil, track: nil)
        let face = KeypointFile.Face(landmarks: [], presence: nil, region: nil, person: nil)
        let counts = FrameJSON.fieldCounts
        XCTAssertEqual(Mirror(reflecting: KeypointFile.Frame(i: 0, t: 0, hands: [])).children.count, counts.frame, "Frame's fields: update FrameJSON")
        XCTAssertEqual(Mirror(reflecting: hand).children.count, counts.hand, "Hand's fields: update FrameJSON")
        XCTAssertEqual(Mirror(reflecting: body).children.count, counts.body, "Body's fields: update FrameJSON")
        XCTAssertEqual(Mirror(reflecting: face).children.count, counts.face, "Face's fields: update FrameJSON")
        XCTAssertEqual(Mirror(reflecting: region).children.count, counts.region, "Region's fields: update FrameJSON")
    }

    static func randomFrame(_ trial: Int, _ rng: inout SystemRandomNumberGenerator) -> KeypointFile.Frame {
        func maybe<T>(_ value: @autoclosure () -> T) -> T? { Bool.random(using: &rng) ? value() : nil }
        func number() -> Float {
            switch Int.random(in: 0..<10, using: &rng) {
            case 0: return Float(Int.random(in: -300...300, using: &rng))            // integers: "3", not "3.0"
            case 1: return [0, -0.0, 1, .leastNonzeroMagnitude, .leastNormalMagnitude, .greatestFiniteMagnitude, -.greatestFiniteMagnitude].randomElement(using: &rng)!
            case 2: return Float.random(in: -1...1, using: &rng) * powf(10, Float(Int.random(in: -40...38, using: &rng)))
            case 3: return Float(bitPattern: UInt32.random(in: 0...UInt32.max, using: &rng) & 0x807F_FFFF)   // subnormals
            default: return Float.random(in: -1.5...1.5, using: &rng)
            }
        }
        func rows(_ n: Int) -> [[Float]] { (0..<n).map { _ in (0..<3).map { _ in number() } } }
        func text() -> String {
            ["left", "right", "backward", "a/b", "q\"uote", "back\\slash", "line\nbreak", "tab\t", "\u{01}\u{1F}\u{7F}", "é", "手", "😀", "\u{0C}\u{08}\r", ""].randomElement(using: &rng)!
        }
        func region() -> KeypointFile.Region { KeypointFile.Region(xCenter: number(), yCenter: number(), width: number(), height: number(), rotation: number()) }
        let hands = (0..<Int.random(in: 0...3, using: &rng)).map { _ in
            var h = KeypointFile.Hand(chirality: Bool.random(using: &rng) ? .left : .right, handedness: number(), presence: maybe(number()),
                                      landmarks: rows(21), world: maybe(rows(21)), region: maybe(region()),
                                      track: maybe(Int.random(in: -5...Int.max, using: &rng)), origin: maybe(text()))
            h.person = maybe(Int.random(in: 0...3, using: &rng))
            h.arm = maybe(text())
            h.unattached = maybe(Bool.random(using: &rng))
            return h
        }
        let bodies = maybe((0..<Int.random(in: 0...2, using: &rng)).map { _ in
            KeypointFile.Body(landmarks: rows(33), visibility: (0..<33).map { _ in number() }, presence: (0..<33).map { _ in number() },
                              world: maybe(rows(33)), score: maybe(number()), region: maybe(region()), track: maybe(Int.random(in: 0...9, using: &rng)))
        })
        let faces = maybe((0..<Int.random(in: 0...1, using: &rng)).map { _ in
            KeypointFile.Face(landmarks: rows(Bool.random(using: &rng) ? 468 : 478), presence: maybe(number()), region: maybe(region()),
                              person: maybe(Int.random(in: 0...2, using: &rng)))
        })
        let t = [0, 1, 2.5, Double(trial) / 30, Double.random(in: 0...1e6, using: &rng), 1e-7, 123456789.123456].randomElement(using: &rng)!
        return KeypointFile.Frame(i: Int.random(in: 0...Int.max, using: &rng), t: t, hands: hands, bodies: bodies, faces: faces)
    }
}
