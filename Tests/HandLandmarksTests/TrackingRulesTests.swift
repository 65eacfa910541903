import Foundation
import HandLandmarks
import Landmarking
import XCTest

/// How new palms join tracked hands and hands found twice are merged, by MediaPipe Tasks' rules and
/// the legacy solution's, on hand-computed cases (duplicates in a 100x100 image).
final class TrackingRulesTests: XCTestCase {
    /// A hand whose palm triangle has sides 31.6, 20 and 31.6 px (baseline 31.6 px, so the
    /// threshold is 6.3 px) and whose landmark box is 40 x 60 px (diagonal 72 px).
    func hand(shiftedBy dx: Float = 0, presence: Float = 0.9) -> HandObservation {
        var points = [Point3](repeating: Point3(0.5, 0.5, 0), count: 21)
        points[0] = Point3(0.5, 0.8, 0)    // wrist
        points[5] = Point3(0.4, 0.5, 0)    // index MCP
        points[17] = Point3(0.6, 0.5, 0)   // little MCP
        for j in [1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 18, 19, 20] {
            points[j] = Point3(0.3 + Float(j % 5) * 0.1, 0.2 + Float(j / 5) * 0.1, 0)
        }
        let moved = points.map { Point3($0.x + dx / 100, $0.y, $0.z) }
        return HandObservation(chirality: .right, handedness: 0.9, presence: presence, landmarks: moved,
                               world: [Point3](repeating: Point3(0, 0, 0), count: 21),
                               region: RegionOfInterest(xCenter: 0.5, yCenter: 0.5, width: 0.5, height: 0.5, rotation: 0))
    }

    func testAHandFoundTwiceIsKeptOnceFirstOneWins() {
        let first = hand(presence: 0.6), second = hand(shiftedBy: 5, presence: 0.99)
        let kept = HandTracker.removeDuplicates([first, second], imageWidth: 100, imageHeight: 100)
        XCTAssertEqual(kept.count, 1)
        XCTAssertEqual(kept.first?.presence, 0.6, "Tasks keeps the earlier hand, not the more present one")
    }

    func testTheThresholdIsAFifthOfThePalmTriangleNotOfTheBox() {
        // 8 px apart: beyond 0.2 x 31.6 px = 6.3 px, though within 0.2 x the 72 px box diagonal.
        XCTAssertEqual(HandTracker.removeDuplicates([hand(), hand(shiftedBy: 8)], imageWidth: 100, imageHeight: 100).count, 2)
        XCTAssertEqual(HandTracker.removeDuplicates([hand(), hand(shiftedBy: 6)], imageWidth: 100, imageHeight: 100).count, 1)
    }

    func testTheThresholdScalesWithTheImageInPixels() {
        // The same normalised shift is twice the pixels in a 200 px wide image: 12 px, while the
        // baseline grows only to 40 px (threshold 8 px), its sides being partly vertical.
        XCTAssertEqual(HandTracker.removeDuplicates([hand(), hand(shiftedBy: 6)], imageWidth: 200, imageHeight: 100).count, 2)
    }

    func testHandsApartAreBothKept() {
        XCTAssertEqual(HandTracker.removeDuplicates([hand(), hand(shiftedBy: 45)], imageWidth: 100, imageHeight: 100).count, 2)
    }

    func region(_ x: Float, _ y: Float, size: Float = 0.2) -> RegionOfInterest {
        RegionOfInterest(xCenter: x, yCenter: y, width: size, height: size, rotation: 0)
    }

    func testTasksKeepsTrackedHandsAndAddsOnlyPalmsThatOverlapNone() {
        let tracked = [region(0.3, 0.5), region(0.32, 0.5)]          // two tracked regions, IoU 0.82: both stay
        let palms = [region(0.31, 0.5), region(0.7, 0.5), region(0.72, 0.5)]
        // The first palm overlaps a tracked hand; the second is new; the third overlaps the second.
        let kept = HandTracker.associate(tracked: tracked, palms: palms)
        XCTAssertEqual(kept, [region(0.3, 0.5), region(0.32, 0.5), region(0.7, 0.5)])
    }

    func testTasksClipsJoinedRegionsToTheHandCount() {
        // One tracked hand and two new palms, two hands allowed: the tracked one and the first palm.
        let kept = HandTracker.associate(tracked: [region(0.2, 0.5)], palms: [region(0.5, 0.5), region(0.8, 0.5)], limit: 2)
        XCTAssertEqual(kept, [region(0.2, 0.5), region(0.5, 0.5)])
    }

    func testTasksAddsAPalmAtIoUOneHalfOrLess() {
        // Boxes 0.2 wide offset by d have IoU (0.2 - d) / (0.2 + d): 0.48 at d = 0.07 (joins), 0.54 at
        // d = 0.06 (does not).
        XCTAssertEqual(HandTracker.associate(tracked: [region(0.3, 0.5)], palms: [region(0.37, 0.5)]).count, 2)
        XCTAssertEqual(HandTracker.associate(tracked: [region(0.3, 0.5)], palms: [region(0.36, 0.5)]).count, 1)
    }

    func testLegacyLetsLaterRegionsDisplaceEarlierOnes() {
        // Palms first, then tracked: the tracked region replaces the palm it overlaps, and of two
        // overlapping tracked regions only the later stays.
        let kept = HandTracker.associateLegacy([region(0.31, 0.5), region(0.7, 0.5), region(0.3, 0.5), region(0.32, 0.5)])
        XCTAssertEqual(kept, [region(0.7, 0.5), region(0.32, 0.5)])
    }
}
