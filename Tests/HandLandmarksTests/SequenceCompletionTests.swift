@testable import HandLandmarks
import Keypoints
import Landmarking
import XCTest

/// `SequenceCompletion`'s rules on hands placed by hand (the real models run in
/// `CompleteCommandTests`): what is joined and what never is, what is filled and how, the vote, and
/// that hands forward tracking found keep every value.
final class SequenceCompletionTests: XCTestCase {
    let completion = SequenceCompletion(maxHands: 2, width: 640, height: 480)

    /// A hand 0.1 frames high (palm size 48 pixels at 480) with its wrist at (x, y), moving nowhere else.
    func hand(_ x: Float, _ y: Float = 0.6, track: Int, right: Float = 0.9) -> HandObservation {
        let shape = (0..<21).map { j -> Point3 in
            let finger = Float(max(0, (j - 1) / 4)), along = Float(j == 0 ? 0 : (j - 1) % 4 + 1)
            return Point3(x + (finger - 2) * 0.02, y - 0.1 * Float(j == 0 ? 0 : 1) - 0.02 * along, 0)
        }
        var h = HandObservation(chirality: right >= 0.5 ? .right : .left, handedness: right, presence: 0.95, landmarks: shape,
                                world: shape.map { $0 * 0.5 }, region: RegionOfInterest(xCenter: x, yCenter: y, width: 0.2, height: 0.2, rotation: 0))
        h.track = track
        return h
    }

    /// Frames at 30 fps; `hands(p)` the hands of position p.
    func frames(_ count: Int, fps: Double = 30, _ hands: (Int) -> [HandObservation]) -> [TrackedFrame] {
        (0..<count).map { TrackedFrame(index: $0, time: Double($0) / fps, hands: hands($0)) }
    }

    func testALostHandIsJoinedFilledAndVotedWithItsOwnScoresKept() {
        // One right hand moving right 0.01 a frame, lost for frames 8-10 (0.13 s), found again as track 1;
        // its handedness dips below 0.5 in frame 3 (a flip as MediaPipe reports it).
        var f = frames(20) { p in
            if (8...10).contains(p) { return [] }
            return [self.hand(0.2 + 0.01 * Float(p), track: p < 8 ? 0 : 1, right: p == 3 ? 0.3 : 0.9)]
        }
        let before = f
        completion.finish(&f)
        XCTAssertEqual(Set(f.flatMap { $0.hands.map(\.track) }), [0], "one hand, one track")
        XCTAssertTrue(f.allSatisfy { $0.hands.count == 1 }, "the gap is filled")
        for p in 8...10 {
            let h = f[p].hands[0]
            XCTAssertEqual(h.origin, .interpolated)
            // Linear in time between frames 7 and 11: exactly where the hand was.
            let expected = hand(0.2 + 0.01 * Float(p), track: 0).landmarks
            for (a, b) in zip(h.landmarks, expected) { XCTAssertEqual(a.x, b.x, accuracy: 1e-5); XCTAssertEqual(a.y, b.y, accuracy: 1e-5) }
            XCTAssertEqual(h.chirality, .right)
        }
        for p in f.indices where !(8...10).contains(p) {
            let (a, b) = (f[p].hands[0], before[p].hands[0])
            XCTAssertEqual(a.origin, .tracked)
            XCTAssertEqual(a.landmarks, b.landmarks)
            XCTAssertEqual(a.world, b.world)
            XCTAssertEqual(a.handedness, b.handedness, "each hand keeps its own handedness score")
            XCTAssertEqual(a.presence, b.presence)
            XCTAssertEqual(a.chirality, .right, "frame \(p): the track's vote")
        }
    }

    func testHandsPresentTogetherAreNeverJoined() {
        // Track 1 starts (near where track 0 will be) while track 0 is still there.
        var f = frames(20) { p in
            var hands: [HandObservation] = []
            if p < 10 { hands.append(self.hand(0.3, track: 0)) }
            if p >= 9 { hands.append(self.hand(0.31, track: 1)) }
            return hands
        }
        completion.finish(&f)
        XCTAssertEqual(Set(f.flatMap { $0.hands.map(\.track) }), [0, 1])
        XCTAssertFalse(f.contains { $0.hands.contains { $0.origin == .interpolated } })
    }

    func testWhatIsNotJoined() {
        func tracksAfter(gap: Int, fps: Double = 30, secondX: Float = 0.3, secondRight: Float = 0.9, scale: Float = 1) -> Int {
            var f = frames(10 + gap + 10, fps: fps) { p in
                if p < 10 { return [self.hand(0.3, track: 0)] }
                if p < 10 + gap { return [] }
                var h = self.hand(secondX, track: 1, right: secondRight)
                let wrist = h.landmarks[0]
                h.landmarks = h.landmarks.map { wrist + ($0 - wrist) * scale }
                return [h]
            }
            completion.finish(&f)
            return Set(f.flatMap { $0.hands.map(\.track) }).count
        }
        XCTAssertEqual(tracksAfter(gap: 3), 1, "the same hand after 0.13 s")
        XCTAssertEqual(tracksAfter(gap: 14), 1, "0.5 s from the last hand to the next")
        XCTAssertEqual(tracksAfter(gap: 16), 2, "over 0.5 s is a new track")
        XCTAssertEqual(tracksAfter(gap: 3, secondRight: 0.1), 2, "a left hand does not continue a right one")
        XCTAssertEqual(tracksAfter(gap: 3, secondX: 0.5), 2, "2 palm sizes away, not moving there")
        XCTAssertEqual(tracksAfter(gap: 3, scale: 1.8), 2, "a hand of another size")
    }

    func testOnlyShortGapsAreFilledAndOnlyWhereThereIsRoom() {
        // 0.4 s between the two sides: joined, not filled.
        var f = frames(30) { p in (10..<21).contains(p) ? [] : [self.hand(0.3, track: p < 10 ? 0 : 1)] }
        completion.finish(&f)
        XCTAssertEqual(Set(f.flatMap { $0.hands.map(\.track) }), [0])
        XCTAssertTrue(f[10..<21].allSatisfy { $0.hands.isEmpty })
        // A gap frame that already holds maxHands hands gets none.
        let one = SequenceCompletion(maxHands: 1, width: 640, height: 480)
        var g = frames(20) { p in
            if p == 9 { return [self.hand(0.8, track: 2, right: 0.1)] }
            if (8...10).contains(p) { return [] }
            return [self.hand(0.3, track: p < 8 ? 0 : 1)]
        }
        one.finish(&g)
        XCTAssertEqual(g[8].hands.map(\.origin), [.interpolated])
        XCTAssertEqual(g[9].hands.map(\.origin), [.tracked], "frame 9 is full")
        XCTAssertEqual(g[10].hands.map(\.origin), [.interpolated])
        XCTAssertEqual(g.map { $0.hands.first?.track }, g.map { $0.hands.first.map { $0.chirality == .left ? 1 : 0 } },
                       "tracks numbered by first appearance: the right hand 0, the left one 1")
    }

    func testBackwardTrackingStopsWhereItMust() {
        // Track 1 starts at 10; the hand is there (the estimate finds it) from position 4 on.
        var f = frames(20) { p in p >= 10 ? [self.hand(0.5, track: 1)] : [] }
        f[2].hands = [hand(0.2, track: 0, right: 0.1)]
        let starts = SequenceCompletion.starts(f)
        XCTAssertEqual(starts, [SequenceCompletion.Start(position: 2, track: 0, earliest: 0), SequenceCompletion.Start(position: 10, track: 1, earliest: 0)])
        var asked: [Int] = []
        let added = completion.extendBackward(&f, from: starts.last!) { p, later in
            asked.append(p)
            XCTAssertEqual(later.track, 1)
            return p >= 4 ? self.hand(0.5, track: 99, right: 0.8) : nil
        }
        XCTAssertEqual(added, 6)
        XCTAssertEqual(asked, [9, 8, 7, 6, 5, 4, 3])
        XCTAssertTrue(f[4...9].allSatisfy { $0.hands.map(\.origin) == [.backward] && $0.hands[0].track == 1 })
        // It stops at a frame that already holds the hand (another track), and at a full frame.
        var g = frames(20) { p in p >= 10 ? [self.hand(0.5, track: 1)] : (p == 6 ? [self.hand(0.5, track: 0)] : []) }
        XCTAssertEqual(completion.extendBackward(&g, from: .init(position: 10, track: 1, earliest: 0)) { _, _ in self.hand(0.5, track: 1) }, 3)
        XCTAssertEqual(g[6].hands.count, 1, "not the same hand twice")
        var h = frames(20) { p in p >= 10 ? [self.hand(0.5, track: 1)] : (p == 7 ? [self.hand(0.1, track: 0), self.hand(0.9, track: 2)] : []) }
        XCTAssertEqual(completion.extendBackward(&h, from: .init(position: 10, track: 1, earliest: 0)) { _, _ in self.hand(0.5, track: 1) }, 2)
    }

    func testAHandFoundTwiceIsNotTrackedJoinedOrFilledOver() {
        // Backward tracking stops at a hand of the same chirality whose box overlaps the one found (a
        // second crop of one hand, too far off for the Tasks duplicate rule); a hand of the other side
        // there (clasped hands) does not stop it.
        var f = frames(20) { p in p >= 10 ? [self.hand(0.5, track: 1)] : (p == 6 ? [self.hand(0.53, track: 0)] : []) }
        XCTAssertFalse(Joint.sameHand(f[6].hands[0].landmarks, hand(0.5, track: 1).landmarks, imageWidth: 640, imageHeight: 480))
        XCTAssertEqual(completion.extendBackward(&f, from: .init(position: 10, track: 1, earliest: 0)) { _, _ in self.hand(0.5, track: 1) }, 3)
        var g = frames(20) { p in p >= 10 ? [self.hand(0.5, track: 1)] : (p == 6 ? [self.hand(0.53, track: 0, right: 0.1)] : []) }
        XCTAssertEqual(completion.extendBackward(&g, from: .init(position: 10, track: 1, earliest: 0)) { _, _ in self.hand(0.5, track: 1) }, 10)
        // One-frame doubles of a hand tracked throughout (frames 9 and 12) are not joined into a ghost
        // filled over it.
        var h = frames(20) { p in
            [self.hand(0.3, track: 0)] + (p == 9 ? [self.hand(0.32, track: 1)] : []) + (p == 12 ? [self.hand(0.32, track: 2)] : [])
        }
        completion.finish(&h)
        XCTAssertFalse(h.contains { $0.hands.contains { $0.origin == .interpolated } })
        XCTAssertEqual(Set(h.flatMap { $0.hands.map(\.track) }).count, 3)
        // A track already where the later one begins explains it: no join across it.
        var k = frames(20) { p in
            (p < 8 ? [self.hand(0.3, track: 0)] : []) + ((8...11).contains(p) ? [self.hand(0.31, track: 2)] : [])
                + (p >= 11 ? [self.hand(0.3, track: 1)] : [])
        }
        completion.finish(&k)
        let later = k[15].hands[0].track, first = k[0].hands[0].track
        XCTAssertNotEqual(later, first, "the track from frame 11 is not joined to the one that ended at 7")
        XCTAssertEqual(k[9].hands[0].track, first, "the track in between is")
    }

    func testStartsReachOneSecondBack() {
        let f = frames(90) { p in p == 0 ? [self.hand(0.2, track: 0)] : (p >= 60 ? [self.hand(0.5, track: 1)] : []) }
        XCTAssertEqual(SequenceCompletion.starts(f), [SequenceCompletion.Start(position: 60, track: 1, earliest: 30)],
                       "a track from the first frame has nothing before it; track 1 reaches back 1 s (30 frames)")
        let fast = frames(400, fps: 240) { p in p >= 300 ? [self.hand(0.5, track: 0)] : [] }
        XCTAssertEqual(SequenceCompletion.starts(fast), [SequenceCompletion.Start(position: 300, track: 0, earliest: 270)],
                       "at 240 fps a second is 240 frames; 30 are held at most")
    }
}
