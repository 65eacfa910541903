@testable import Analysis
import Foundation
import HandLandmarks
import Keypoints
import XCTest

/// `handpose compare`'s figures on a hand-computed pair of files (100x100 frames).
final class KeypointComparisonTests: XCTestCase {
    /// Palm size (wrist to middle MCP) 53.85 px; palm triangle baseline 31.6 px.
    func hand(dx: Float = 0, chirality: Chirality = .right) -> KeypointFile.Hand {
        var points = (0..<21).map { j -> [Float] in [0.3 + Float(j % 5) * 0.1, 0.2 + Float(j / 5) * 0.1, 0] }
        points[0] = [0.5, 0.8, 0]; points[5] = [0.4, 0.5, 0]; points[17] = [0.6, 0.5, 0]
        return KeypointFile.Hand(chirality: chirality, handedness: chirality == .right ? 0.9 : 0.1, presence: 0.9,
                                 landmarks: points.map { [$0[0] + dx / 100, $0[1], $0[2]] }, world: nil, region: nil)
    }

    func file(_ frames: [[KeypointFile.Hand]]) -> KeypointFile {
        KeypointFile(source: "clip.mp4", width: 100, height: 100, fps: 10,
                     frames: frames.enumerated().map { KeypointFile.Frame(i: $0.offset, t: Double($0.offset) / 10, hands: $0.element) },
                     tool: nil, settings: nil, models: nil)
    }

    func testCountsChiralityDeviationAndHandsReportedTwice() throws {
        let a = file([[hand(dx: 1)], [hand()], [hand(chirality: .left)], []])
        let b = file([[hand()], [hand(), hand()], [hand()], [hand()]])
        let c = try KeypointComparison.compare(a, b, path: "clip.mp4")
        XCTAssertEqual(c.frames, 4)
        XCTAssertEqual(c.countAgreement, 0.5)           // frames 0 and 2
        XCTAssertEqual(c.matchedHands, 3)
        XCTAssertEqual(c.chiralityAgreement, 2.0 / 3, accuracy: 1e-9)
        XCTAssertEqual(c.meanDeviation, (1 / 53.851648) / 3, accuracy: 1e-5)
        XCTAssertEqual(c.handsOnlyInA, 0)
        XCTAssertEqual(c.handsOnlyInB, 2)
        XCTAssertEqual(c.framesWithHandTwiceInA, 0)
        XCTAssertEqual(c.framesWithHandTwiceInB, 1)     // frame 1
        XCTAssertEqual(c.framesWithoutTwice, 3)
        XCTAssertEqual(c.countAgreementWithoutTwice, 2.0 / 3, accuracy: 1e-9)
    }

    func testDifferentFrameRatesAreRefused() {
        var b = file([[hand()]])
        b.video.fps = 15
        XCTAssertThrowsError(try KeypointComparison.compare(file([[hand()]]), b, path: "clip.mp4")) { error in
            XCTAssertTrue("\(error)".contains("frame rates differ: 10.0 and 15.0 fps"), "\(error)")
        }
        b.video.fps = 10.000001
        XCTAssertNoThrow(try KeypointComparison.compare(file([[hand()]]), b, path: "clip.mp4"))
    }

    /// Frames only one file holds (by index, not by count: the same number of frames can differ) are counted
    /// apart and not compared; merging adds them up.
    func testFramesOnlyOneSideHoldsAreCounted() throws {
        let a = file([[hand()], [hand()], [hand()], [hand()]])
        var b = file([[hand()], [hand()], [hand()], [hand()]])
        b.frames.remove(at: 1)
        b.frames.append(KeypointFile.Frame(i: 7, t: 0.7, hands: []))
        var c = try KeypointComparison.compare(a, b, path: "clip.mp4")
        XCTAssertEqual(c.frames, 3)
        XCTAssertEqual(c.framesOnlyInA, 1)
        XCTAssertEqual(c.framesOnlyInB, 1)
        c.merge(try KeypointComparison.compare(a, file([[hand()]]), path: "clip.mp4"))
        XCTAssertEqual(c.framesOnlyInA, 4)
        XCTAssertEqual(c.framesOnlyInB, 1)
        let json = String(decoding: try JSONEncoder().encode(KeypointComparison.Summary(c)), as: UTF8.self)
        XCTAssertTrue(json.contains("\"frames_only_in_a\":4") && json.contains("\"frames_only_in_b\":1"), json)
    }

    /// PCK and per-joint deviation by hand: palm 53.85 px; joint 8 moved 4 px (0.074 palm sizes), joint 12
    /// 8 px (0.149), joint 16 16 px (0.297), everything else exact.
    func testPCKAndPerJointDeviation() throws {
        let b = hand()
        var a = b
        for (j, px) in [(8, Float(4)), (12, 8), (16, 16)] { a.landmarks[j][0] += px / 100 }
        let c = try KeypointComparison.compare(file([[a], [a]]), file([[b], [b]]), path: "clip.mp4")
        XCTAssertEqual(c.jointsCompared, 42)
        XCTAssertEqual(KeypointComparison.pckThresholds, [0.05, 0.1, 0.2])
        let pck = try XCTUnwrap(c.pck)
        XCTAssertEqual(pck[0], 36.0 / 42, accuracy: 1e-9)   // all but 8, 12, 16 within 0.05
        XCTAssertEqual(pck[1], 38.0 / 42, accuracy: 1e-9)   // joint 8 (0.074) joins at 0.1
        XCTAssertEqual(pck[2], 40.0 / 42, accuracy: 1e-9)   // joint 12 (0.149) at 0.2; joint 16 (0.297) never
        XCTAssertNil(try KeypointComparison.compare(file([[]]), file([[]]), path: "empty.mp4").pck, "no matched hand, no PCK")
        let palm = 53.851648
        XCTAssertEqual(c.jointDeviations[8], 4 / palm, accuracy: 1e-5)
        XCTAssertEqual(c.jointDeviations[12], 8 / palm, accuracy: 1e-5)
        XCTAssertEqual(c.jointDeviations[16], 16 / palm, accuracy: 1e-5)
        XCTAssertEqual(c.jointDeviations[0], 0)
        var total = KeypointComparison()
        total.merge(c); total.merge(c)
        XCTAssertEqual(total.pck, c.pck)
        XCTAssertEqual(total.jointsCompared, 84)
    }

    /// Jitter follows A's tracks: track 0 is 1, 3 and 2 px off in frames 0-2 (moves of 2 and 1 px); track
    /// 5 starts in frame 2 and has no move yet; hands without a track number add nothing.
    func testJitterFollowsTracks() throws {
        func tracked(_ dx: Float, _ track: Int?) -> KeypointFile.Hand { var h = hand(dx: dx); h.track = track; return h }
        let a = file([[tracked(1, 0)], [tracked(3, 0)], [tracked(2, 0), tracked(-40, 5)]])
        let b = file([[hand()], [hand()], [hand(), hand(dx: -40)]])
        let c = try KeypointComparison.compare(a, b, path: "clip.mp4")
        let palm = 53.851648
        XCTAssertEqual(c.jitters.count, 2)
        XCTAssertEqual(try XCTUnwrap(c.meanJitter), 1.5 / palm, accuracy: 1e-5)
        let untracked = try KeypointComparison.compare(file([[hand(dx: 1)], [hand(dx: 3)]]), file([[hand()], [hand()]]), path: "clip.mp4")
        XCTAssertNil(untracked.meanJitter, "no track numbers, no jitter")
        // B made by handpose numbers its hands too: in video mode its tracks say which hand is which (a new
        // track each frame: no hand goes on), in image mode every hand is a new track and nearness decides.
        var numbered = file([[hand()], [hand()], [hand(), hand(dx: -40)]])
        for f in numbered.frames.indices { for h in numbered.frames[f].hands.indices { numbered.frames[f].hands[h].track = 10 * f + h } }
        numbered.settings = KeypointFile.Settings(mode: "image")
        XCTAssertEqual(try KeypointComparison.compare(a, numbered, path: "clip.mp4").jitters.count, 2)
        numbered.settings = KeypointFile.Settings(mode: "video")
        XCTAssertNil(try KeypointComparison.compare(a, numbered, path: "clip.mp4").meanJitter)
        // A's track matched to the other B hand in the next frame (B's two hands 40 px apart, A finding one
        // of them each frame) measures no jitter: the 40 px jump is between two hands, not noise.
        let swap = try KeypointComparison.compare(file([[tracked(1, 0)], [tracked(-39, 0)]]),
                                                  file([[hand(), hand(dx: -40)], [hand(), hand(dx: -40)]]), path: "clip.mp4")
        XCTAssertEqual(swap.matchedHands, 2)
        XCTAssertNil(swap.meanJitter)
        // A frame missing from A breaks the track's run: no move is measured across it.
        var gap = file([[tracked(1, 0)], [tracked(3, 0)]])
        gap.frames[1].i = 2
        XCTAssertNil(try KeypointComparison.compare(gap, file([[hand()], [hand()], [hand()]]), path: "clip.mp4").meanJitter)
    }

    func testDifferentFrameSizesAreRefused() {
        var b = file([[hand()]])
        b.video.width = 200
        XCTAssertThrowsError(try KeypointComparison.compare(file([[hand()]]), b, path: "clip.mp4"))
    }

    /// The pairing's summed cost is the smallest there is: against every pairing tried, on random matrices of
    /// every shape up to 5x5 (more rows than columns too), each row and column used at most once.
    func testTheAssignmentIsTheCheapestPairing() {
        var g = SystemRandomNumberGenerator()
        for rows in 1...5 {
            for columns in 1...5 {
                for _ in 0..<20 {
                    let cost = (0..<rows).map { _ in (0..<columns).map { _ in Double(Int.random(in: 0...9, using: &g)) } }
                    let pairs = KeypointComparison.assignment(cost)
                    XCTAssertEqual(pairs.count, min(rows, columns))
                    XCTAssertEqual(Set(pairs.map(\.0)).count, pairs.count)
                    XCTAssertEqual(Set(pairs.map(\.1)).count, pairs.count)
                    func cheapest(_ i: Int, _ used: Set<Int>, _ left: Int) -> Double {
                        guard left > 0 else { return 0 }
                        guard i < rows else { return .infinity }
                        var best = rows - i > left ? cheapest(i + 1, used, left) : .infinity
                        for j in 0..<columns where !used.contains(j) { best = min(best, cost[i][j] + cheapest(i + 1, used.union([j]), left - 1)) }
                        return best
                    }
                    XCTAssertEqual(pairs.map { cost[$0.0][$0.1] }.reduce(0, +), cheapest(0, [], min(rows, columns)), "\(cost)")
                }
            }
        }
    }

    /// A frame of many hands on each side (a crowd, or a hostile file) is paired at once, each hand with its
    /// own: trying every pairing of 14 hands took hours.
    func testAFrameOfManyHandsIsPairedAtOnce() throws {
        let hands = (0..<14).map { hand(dx: Float($0) * 3) }
        let a = file([hands]), b = file([hands.reversed().map { h in
            var h = h
            h.landmarks = h.landmarks.map { [$0[0] + 0.001, $0[1], $0[2]] }
            return h
        }])
        let c = try KeypointComparison.compare(a, b, path: "clip.mp4")
        XCTAssertEqual(c.matchedHands, 14)
        XCTAssertEqual(c.meanDeviation, 0.1 / 53.851648, accuracy: 1e-5, "each hand with its own, 0.1 px apart")
        // Past what any tracker reports, a frame is refused, naming it, before any pairing.
        let crowd = file([[], [KeypointFile.Hand](repeating: hand(), count: KeypointComparison.maxHandsPerFrame + 1)])
        XCTAssertThrowsError(try KeypointComparison.compare(file([[], []]), crowd, path: "clip.mp4")) {
            XCTAssertTrue("\($0)".contains("frame 1 of the second file holds 257 hands"), "\($0)")
        }
    }
}
