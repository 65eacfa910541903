import Annotations
import Datasets
import Foundation
import Keypoints
import TestSupport
import XCTest

/// Augmentations: seeded, independent of where the clips are, each doing what it says.
final class AugmentationTests: XCTestCase {
    /// The same annotation and seed give the same augmented copies wherever the dataset's folder is.
    func testAugmentationDoesNotDependOnWhereTheClipsAre() throws {
        let f = keypointFile(times: (0..<30).map { Double($0) / 30 }, x: { _ in 0.2 })
        var settings = ExportSettings()
        settings.window = 30
        func copies(root: String) throws -> [[[HandSample?]]] {
            let segment = Segment(video: URL(fileURLWithPath: root + "/clips/fixture.mp4"), videoPath: "clips/fixture.mp4", label: "a",
                                  start: 0, end: 1, source: root + "/a.csv", line: 2)
            let base = try ExampleBuilder.actions([segment], classes: ["a"], settings: settings) { _ in f }
            return ExampleBuilder.augment(base, with: [.rotate(degrees: 15), .scale(fraction: 0.1)], copies: 2, seed: 7).map(\.frames)
        }
        let here = try copies(root: "/home/a/dataset"), there = try copies(root: "/scratch/job17/dataset")
        XCTAssertEqual(here.count, 3)
        XCTAssertEqual(here, there)
        XCTAssertNotEqual(here[1], here[0], "a copy must differ from its original")
    }

    func testAugmentationsAreSeededAndFlipSwapsHands() throws {
        let f = keypointFile(times: (0..<30).map { Double($0) / 30 }, x: { _ in 0.2 }, second: true)
        let segment = Segment(video: URL(fileURLWithPath: "/x/fixture.mp4"), videoPath: "fixture.mp4", label: "a", start: 0, end: 1, source: "a.csv", line: 2)
        var settings = ExportSettings()
        settings.window = 30
        settings.hand = .both
        let base = try ExampleBuilder.actions([segment], classes: ["a"], settings: settings) { _ in f }
        let flipped = ExampleBuilder.augment(base, with: [.flip], copies: 1, seed: 3)
        XCTAssertEqual(flipped.count, 2)
        let copy = flipped[1].frames[0]
        // Left slot now holds the mirrored right hand: x 0.2 -> 0.8.
        XCTAssertEqual(copy[0]?.chirality, .left)
        XCTAssertEqual(copy[0]!.joints[0].x, 0.8, accuracy: 1e-6)
        XCTAssertEqual(copy[1]!.joints[0].x, 0.3, accuracy: 1e-6)
        // A mirrored copy takes the paired label; copies without flip keep theirs.
        let relabelled = ExampleBuilder.augment(base, with: [.flip], copies: 1, seed: 3, flippedLabel: [0: (1, "b")])
        XCTAssertEqual(relabelled.map(\.label), [0, 1])
        // The record names the class y names (it said the original class before), and keeps where it came from.
        XCTAssertEqual(relabelled.map(\.manifest.label), ["a", "b"])
        XCTAssertEqual(relabelled[1].manifest.labelBeforeFlip, 0)
        XCTAssertEqual(ExampleBuilder.augment(base, with: [.rotate(degrees: 5)], copies: 1, seed: 3, flippedLabel: [0: (1, "b")]).map(\.label), [0, 0])
        let a = ExampleBuilder.augment(base, with: [.rotate(degrees: 15), .drop(probability: 0.3)], copies: 2, seed: 9)
        let b = ExampleBuilder.augment(base, with: [.rotate(degrees: 15), .drop(probability: 0.3)], copies: 2, seed: 9)
        XCTAssertEqual(a.map { $0.frames.map { $0.map { $0?.joints[3] } } }, b.map { $0.frames.map { $0.map { $0?.joints[3] } } })
    }

    func testScaleTranslateStretchAndParsing() throws {
        XCTAssertEqual(try Augmentation.parse("flip,rotate=15,scale=0.1,translate=0.05,drop=0.1,stretch=0.2").count, 6)
        XCTAssertThrowsError(try Augmentation.parse("spin=3"))
        XCTAssertThrowsError(try Augmentation.parse("rotate=abc"))
        XCTAssertThrowsError(try Augmentation.parse("rotate="), "an '=' without its number is no default")
        XCTAssertThrowsError(try Augmentation.parse("flip=2"), "flip takes no number")
        XCTAssertThrowsError(try Augmentation.parse(",,,"), "no augmentation is not an augmentation")
        XCTAssertThrowsError(try Augmentation.parse("rotate=15,rotate=30"), "one value each")
        let frames: [[HandSample?]] = (0..<10).map { [sample(0.3 + 0.01 * Float($0))] }
        var record = ExampleRecord(source: "c", label: "a", hand: "any")
        record.windowIndex = 0
        let base = Example(label: 0, frames: frames, manifest: record, clip: "c")
        for (aug, key) in [(Augmentation.scale(fraction: 0.2), "scale"), (.translate(fraction: 0.1), "translate_x"), (.stretch(fraction: 0.3), "speed")] {
            let out = ExampleBuilder.augment([base], with: [aug], copies: 1, seed: 4)
            let drawn = try XCTUnwrap(out[1].manifest.augmentation[key], "\(aug)")
            let x0 = out[1].frames[0][0]!.joints[0].x, x9 = out[1].frames[9][0]!.joints[0].x
            switch aug {
            case .scale: XCTAssertEqual(Double(x0), (0.3 - 0.5) * drawn + 0.5, accuracy: 1e-5)
            case .translate: XCTAssertEqual(Double(x0), 0.3 + drawn, accuracy: 1e-5)
            default:
                // Frame 9 plays source position min(9 * speed, 9).
                XCTAssertEqual(Double(x9), 0.3 + 0.01 * min(9 * drawn, 9), accuracy: 1e-5)
                XCTAssertEqual(x0, 0.3, accuracy: 1e-6)
            }
        }
    }
}
