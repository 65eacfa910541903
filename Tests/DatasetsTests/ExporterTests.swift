import Datasets
import Foundation
import Keypoints
import XCTest

/// The exporter as a library: the part named train is augmented wherever it is listed, dataset.json
/// reads back as the typed manifest, and refusals leave nothing behind.
final class ExporterTests: XCTestCase {
    var dir: URL!
    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("exporter-\(UUID().uuidString)")
    }
    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    /// Four clips of each of two classes, two windows each.
    func examples() -> [Example] {
        (0..<2).flatMap { label in
            (0..<4).flatMap { c in
                (0..<2).map { w -> Example in
                    var record = ExampleRecord(source: "class\(label)/clip\(c).mp4", label: "c\(label)", hand: "any")
                    record.windowIndex = w
                    let frames: [[HandSample?]] = (0..<3).map { _ in [sample(0.2 + 0.1 * Float(c))] }
                    return Example(label: label, frames: frames, manifest: record, clip: record.source)
                }
            }
        }
    }

    func exporter(split: String, augment: String = "flip") throws -> Exporter {
        var settings = ExportSettings()
        settings.window = 3
        settings.split = try SplitPart.parse(split)
        settings.augment = try Augmentation.parse(augment)
        settings.copies = 1
        settings.seed = 7
        return Exporter(settings: settings, tool: .init(name: "handpose", version: "test"), command: "export test")
    }

    func records(_ part: String) throws -> [ExampleRecord] {
        try String(contentsOf: dir.appendingPathComponent("\(part)/manifest.jsonl"), encoding: .utf8).split(separator: "\n")
            .map { try JSONDecoder().decode(ExampleRecord.self, from: Data($0.utf8)) }
    }

    func testOnlyThePartNamedTrainIsAugmentedThoughValIsListedFirst() throws {
        let (parts, manifest) = try exporter(split: "val=0.5,train=0.5")
            .write(examples(), classes: ["c0", "c1"], frames: 3, kind: "actions", emptyHint: "", to: dir, replace: false)
        XCTAssertEqual(parts.map(\.name), ["val", "train"])
        XCTAssertTrue(try records("val").allSatisfy { $0.copy == nil && $0.split == "val" })
        let train = try records("train")
        XCTAssertEqual(train.filter { $0.copy == 1 }.count, train.count / 2, "one mirrored copy per training example")
        XCTAssertEqual(parts[1].shape, [train.count, 3, 3, 21])
        // Clips go to one part only.
        XCTAssertTrue(Set(try records("val").map(\.source)).isDisjoint(with: Set(train.map(\.source))))
        let stored = try DatasetManifest.load(dir)
        XCTAssertEqual(stored, manifest)
        XCTAssertEqual(stored.augmentedPart, "train")
        XCTAssertEqual(stored.settings.augment, [.flip])
        XCTAssertEqual(stored.counts["val"], ["c0": 4, "c1": 4])
    }

    func testRefusalsWriteNothing() throws {
        // Three parts from four clips a class is fine; eight parts is not.
        XCTAssertThrowsError(try exporter(split: "train=0.125," + (2...8).map { "p\($0)=0.125" }.joined(separator: ","))
            .write(examples(), classes: ["c0", "c1"], frames: 3, kind: "actions", emptyHint: "", to: dir, replace: false)) { error in
            guard case ExportError.emptyPart = error else { return XCTFail("\(error)") }
        }
        var flip = try exporter(split: "train=0.5,val=0.5")
        flip.settings.flipLabels = ["c0": "nope", "nope": "c0"]
        XCTAssertThrowsError(try flip.write(examples(), classes: ["c0", "c1"], frames: 3, kind: "actions", emptyHint: "", to: dir, replace: false)) {
            XCTAssertEqual($0 as? ExportError, .unknownFlipLabel(name: "nope", classes: ["c0", "c1"]))
        }
        var part = try exporter(split: "train=0.5,val=0.5")
        part.augmentPart = "training"
        XCTAssertThrowsError(try part.write(examples(), classes: ["c0", "c1"], frames: 3, kind: "actions", emptyHint: "", to: dir, replace: false))
        XCTAssertThrowsError(try part.write([], classes: ["c0", "c1"], frames: 3, kind: "actions", emptyHint: "none", to: dir, replace: false))
        // Copies past the machine's memory (here a small one): refused before any is made.
        var copies = try exporter(split: "train=0.5,val=0.5")
        copies.settings.copies = 10_000
        copies.memory = 10_000_000
        XCTAssertThrowsError(try copies.write(examples(), classes: ["c0", "c1"], frames: 3, kind: "actions", emptyHint: "", to: dir, replace: false)) {
            guard case ExportError.tooLarge = $0 else { return XCTFail("\($0)") }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.path))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.deletingLastPathComponent().path)
                        .filter { $0.hasPrefix("." + dir.lastPathComponent) }, [], "no staging folder left")
    }
}
