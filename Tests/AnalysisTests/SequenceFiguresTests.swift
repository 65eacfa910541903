import Analysis
import Foundation
import Keypoints
import TestSupport
import XCTest

/// The figures `bench complete` reports: flips counted along tracks, hands by origin, and the check that
/// completion kept plain extraction's hands, which must see a change of one bit.
final class SequenceFiguresTests: XCTestCase {
    func testFiguresCountAlongTracks() {
        var file = keypointFile(times: (0..<6).map { Double($0) / 25 }, x: { Float($0) }, present: { $0 != 2 })
        for f in file.frames.indices {
            for h in file.frames[f].hands.indices { file.frames[f].hands[h].track = f < 4 ? 0 : 1 }
        }
        file.frames[1].hands[0].chirality = .left          // right, left, (none), right: two flips on track 0
        file.frames[4].hands[0].origin = KeypointFile.Hand.backward
        file.frames[5].hands[0].origin = KeypointFile.Hand.interpolated
        let f = SequenceFigures(file)
        XCTAssertEqual([f.frames, f.framesWithHand, f.hands, f.tracks, f.flips], [6, 5, 5, 2, 2])
        XCTAssertEqual([f.tracked, f.backward, f.interpolated], [3, 1, 1])
        XCTAssertEqual(SequenceFigures.only(file, origin: nil).frames.map(\.hands.count), [1, 1, 0, 1, 0, 0])
        var sum = f
        sum.merge(f)
        XCTAssertEqual([sum.files, sum.hands, sum.flips], [2, 10, 4])
    }

    func testChangedHandsSeesOneBit() {
        let plain = keypointFile(times: [0, 0.04, 0.08], x: { Float($0) })
        var completed = plain
        completed.frames[1].hands.append(completed.frames[1].hands[0])
        completed.frames[1].hands[1].origin = KeypointFile.Hand.interpolated
        completed.frames[2].hands[0].chirality = .left      // the vote may change chirality
        XCTAssertEqual(SequenceFigures.changedHands(plain: plain, completed: completed).changed, 0)
        XCTAssertEqual(SequenceFigures.changedHands(plain: plain, completed: completed).compared, 3)
        completed.frames[0].hands[0].landmarks[20][1] = completed.frames[0].hands[0].landmarks[20][1].nextUp
        XCTAssertEqual(SequenceFigures.changedHands(plain: plain, completed: completed).changed, 1)
        completed.frames[2].hands = []
        XCTAssertEqual(SequenceFigures.changedHands(plain: plain, completed: completed).changed, 2, "a hand lost counts")
    }
}
