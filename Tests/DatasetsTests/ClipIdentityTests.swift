import Annotations
import Datasets
import Foundation
import Keypoints
import TestSupport
import XCTest

/// Segments meet the keypoints of the clip their path names, byte for byte.
final class ClipIdentityTests: XCTestCase {
    /// `café.mp4` in NFC and in NFD are two files on Linux (equal as Swift `String`s): each segment's windows
    /// come from its own clip's keypoints, not from the first of the two asked for.
    func testTwoSpellingsOfOneNameGiveTheirOwnKeypoints() throws {
        let nfc = "caf\u{E9}.mp4", nfd = "cafe\u{301}.mp4"
        let files = [Array(nfc.utf8): keypointFile(times: (0..<10).map { Double($0) / 10 }, x: { _ in 0.2 }),
                     Array(nfd.utf8): keypointFile(times: (0..<10).map { Double($0) / 10 }, x: { _ in 0.7 })]
        var settings = ExportSettings()
        settings.window = 5
        let segments = [nfc, nfd].map {
            Segment(video: URL(fileURLWithPath: "/d/" + $0), videoPath: $0, label: "a", start: 0, end: 0.5, source: "a.csv", line: 2)
        }
        let examples = try ExampleBuilder.actions(segments, classes: ["a"], settings: settings) { files[Array($0.videoPath.utf8)]! }
        XCTAssertEqual(examples.count % 2, 0)
        let half = examples.count / 2
        XCTAssertGreaterThan(half, 0)
        for (k, e) in examples.enumerated() {
            XCTAssertEqual(e.frames[0][0]!.joints[0].x, k < half ? 0.2 : 0.7, accuracy: 1e-6, "example \(k)")
        }
    }
}
