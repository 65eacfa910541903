import Foundation
import XCTest
@testable import Annotations

/// One tier of an ELAN file rewritten in place, on files ELAN saved: read back, the tier holds exactly
/// the new annotations, every other tier and the rest of the file are as they were, ids and slots stay
/// unique, the header's lastUsedAnnotationId follows, and slots nothing uses any more are gone.
final class ElanTierEditTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("elan-edit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: dir.appendingPathComponent("clip.mp4").path, contents: Data())
    }

    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    func read(_ text: String, tier: String) throws -> AnnotationSet {
        let url = dir.appendingPathComponent("edited-\(UUID().uuidString).eaf")
        try text.write(to: url, atomically: true, encoding: .utf8)
        var o = AnnotationOptions()
        o.tiers = [tier]
        o.mediaRoot = dir
        return AnnotationSource.load(annotationFile: url, options: o)
    }

    func times(_ set: AnnotationSet) -> [[String]] { set.segments.map { [$0.label, "\($0.start!)", "\($0.end!)"] } }

    func testOneTierRewrittenTheRestKept() throws {
        // As ELAN saved it, but for its media, a recording on the annotator's machine: a clip here instead.
        let original = try String(contentsOf: ElanReaderTests.fixtures.appendingPathComponent("pympi_fto.eaf"), encoding: .utf8)
            .replacingOccurrences(of: #"RELATIVE_MEDIA_URL="[^"]*""#, with: #"RELATIVE_MEDIA_URL="./clip.mp4""#, options: .regularExpression)
        let before = try read(original, tier: "b")
        XCTAssertFalse(before.segments.isEmpty)
        let new = [ElanTierEdit.Annotation(value: "wave & <point>", start: 100, end: 900),
                   ElanTierEdit.Annotation(value: "grab", start: 50, end: 80),
                   ElanTierEdit.Annotation(value: "pinch", start: 9_000, end: 12_000)]
        let edited = try ElanTierEdit.replacing(tier: "a", in: original, with: new)

        let a = try read(edited, tier: "a")
        XCTAssertEqual(a.errors, [])
        XCTAssertEqual(times(a), [["grab", "0.05", "0.08"], ["wave & <point>", "0.1", "0.9"], ["pinch", "9.0", "12.0"]])
        XCTAssertEqual(times(try read(edited, tier: "b")), times(before), "the other tier untouched")
        // Ids and slots unique; the new ids above every old one, and the header says the highest.
        let ids = edited.matches(#"ANNOTATION_ID="([^"]+)""#), slots = edited.matches(#"TIME_SLOT_ID="([^"]+)""#)
        XCTAssertEqual(Set(ids).count, ids.count)
        XCTAssertEqual(Set(slots).count, slots.count)
        XCTAssertTrue(edited.contains(#"<PROPERTY NAME="lastUsedAnnotationId">10</PROPERTY>"#), "7 before, three added")
        // Slots that only tier a used are gone; every slot left is used.
        let used = Set(edited.matches(#"TIME_SLOT_REF[12]="([^"]+)""#))
        XCTAssertEqual(Set(slots), used)
        // Outside TIME_ORDER, the tier and the header's counter, not a byte changed.
        func outside(_ s: String) -> String {
            s.replacingOccurrences(of: #"<TIME_ORDER>[\s\S]*</TIME_ORDER>"#, with: "", options: .regularExpression)
                .replacingOccurrences(of: #"<TIER [^>]*TIER_ID="a">[\s\S]*?</TIER>"#, with: "", options: .regularExpression)
                .replacingOccurrences(of: #"lastUsedAnnotationId">\d+"#, with: "", options: .regularExpression)
        }
        XCTAssertEqual(outside(edited), outside(original))
        // In TIME_ORDER, the aligned slots in time order.
        let values = edited.matches(#"TIME_VALUE="(\d+)""#).map { Int($0)! }
        XCTAssertEqual(values, values.sorted())

        // An empty tier written as <TIER .../> gets its first annotations; a tier emptied is left empty.
        let filled = try ElanTierEdit.replacing(tier: "default", in: original, with: [ElanTierEdit.Annotation(value: "x", start: 0, end: 10)])
        XCTAssertEqual(times(try read(filled, tier: "default")), [["x", "0.0", "0.01"]])
        let emptied = try ElanTierEdit.replacing(tier: "a", in: original, with: [])
        XCTAssertTrue(try read(emptied, tier: "a").segments.isEmpty)
        XCTAssertEqual(times(try read(emptied, tier: "b")), times(before))
        XCTAssertThrowsError(try ElanTierEdit.replacing(tier: "nope", in: original, with: []))
        // What the edit would lose or misread is refused: annotations with a vocabulary reference, ids in
        // single quotes, a time slot written with content.
        for (from, to) in [(#"ANNOTATION_ID="a1""#, #"ANNOTATION_ID="a1" CVE_REF="cv1""#), (#"TIME_SLOT_ID="ts3""#, "TIME_SLOT_ID='ts3'"),
                           (#"<TIME_SLOT TIME_SLOT_ID="ts3" TIME_VALUE="1790"/>"#, #"<TIME_SLOT TIME_SLOT_ID="ts3" TIME_VALUE="1790"></TIME_SLOT>"#)] {
            let odd = original.replacingOccurrences(of: from, with: to)
            XCTAssertNotEqual(odd, original, from)
            XCTAssertThrowsError(try ElanTierEdit.replacing(tier: "a", in: odd, with: []), to)
        }
        XCTAssertThrowsError(try ElanTierEdit.replacing(tier: "a", in: original, with: [ElanTierEdit.Annotation(value: "x", start: 10, end: 10)]))
    }

    /// A tier other tiers depend on, or one taking its times from a parent, is not rewritten: the
    /// reason names the tiers.
    func testDependentTiersAreNotRewritten() throws {
        let eaf = dir.appendingPathComponent("example.eaf")
        try FileManager.default.copyItem(at: ElanReaderTests.fixtures.appendingPathComponent("poio-api_example.eaf"), to: eaf)
        FileManager.default.createFile(atPath: dir.appendingPathComponent("elan-example1.mpg").path, contents: Data())
        var o = AnnotationOptions()
        o.mediaRoot = dir
        o.tiers = ["W-Spch"]
        guard case .failure(let why) = AnnotationSource.elanEditTarget(eaf, options: o) else { return XCTFail("W-Spch has dependent tiers") }
        XCTAssertTrue(why.description.contains("depend") && why.description.contains("W-Spch"), why.description)
        o.tiers = ["W-Words"]
        guard case .failure(let parent) = AnnotationSource.elanEditTarget(eaf, options: o) else { return XCTFail("W-Words has a parent") }
        XCTAssertTrue(parent.description.contains("depends on tier"), parent.description)
        o.tiers = ["K-*"]
        guard case .failure(let two) = AnnotationSource.elanEditTarget(eaf, options: o) else { return XCTFail("two tiers read") }
        XCTAssertTrue(two.description.contains("tiers are read"), two.description)
    }

    func testIdsTooLargeToFollowAreRefused() throws {
        let original = try String(contentsOf: ElanReaderTests.fixtures.appendingPathComponent("pympi_fto.eaf"), encoding: .utf8)
        let new = [ElanTierEdit.Annotation(value: "grab", start: 50, end: 80)]
        XCTAssertNoThrow(try ElanTierEdit.replacing(tier: "a", in: original, with: new))
        // The header's counter, then an annotation's id, at the largest Int: the next id cannot be counted.
        let counter = original.replacingOccurrences(of: #"lastUsedAnnotationId">\d+"#, with: "lastUsedAnnotationId\">\(Int.max)", options: .regularExpression)
        XCTAssertNotEqual(counter, original)
        let id = original.replacingOccurrences(of: #"ANNOTATION_ID="a\d+""#, with: "ANNOTATION_ID=\"a\(Int.max)\"", options: .regularExpression)
        XCTAssertNotEqual(id, original)
        for hostile in [counter, id] {
            XCTAssertThrowsError(try ElanTierEdit.replacing(tier: "a", in: hostile, with: new)) {
                XCTAssertTrue("\($0)".contains("too large to number new ones"), "\($0)")
            }
        }
    }
}

private extension String {
    /// The first group of every match of `pattern`.
    func matches(_ pattern: String) -> [String] {
        let re = try! NSRegularExpression(pattern: pattern)
        let ns = self as NSString
        return re.matches(in: self, range: NSRange(location: 0, length: ns.length)).map { ns.substring(with: $0.range(at: 1)) }
    }
}
