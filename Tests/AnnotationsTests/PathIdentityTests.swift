import FileSystem
import Foundation
import XCTest
@testable import Annotations

/// A clip is the file its path names, byte for byte: two names that differ only in Unicode normalisation are
/// two clips, a backslash in a Linux name is part of the name, and ELAN keeps a name's control characters.
final class PathIdentityTests: XCTestCase {
    var dir: URL!
    /// `café.mp4` as Linux tools write it (NFC) and as macOS does (NFD): two files here.
    let nfc = "caf\u{E9}.mp4", nfd = "cafe\u{301}.mp4"

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("paths-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }
    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    func testPathKeysCompareBytesNotCanonicalEquivalence() {
        XCTAssertEqual(nfc, nfd, "Swift's String equality, which the key must not use")
        XCTAssertNotEqual(PathKey(nfc), PathKey(nfd))
        XCTAssertEqual(Set([PathKey(nfc), PathKey(nfd), PathKey(nfc)]).count, 2)
        XCTAssertEqual(PathKey(nfc), PathKey(String(decoding: Array(nfc.utf8), as: UTF8.self)))
        XCTAssertTrue(PathKey("a/b") < PathKey("a/c") && PathKey("B") < PathKey("a"), "byte order")
    }

    func testTwoSpellingsOfOneNameAreTwoClips() throws {
        let segments = [
            Segment(videoFile: dir.path + "/" + nfc, videoPath: nfc, label: "wave", start: 0, end: 0.3, source: "a.csv", line: 2),
            Segment(videoFile: dir.path + "/" + nfd, videoPath: nfd, label: "wave", start: 0, end: 0.9, source: "a.csv", line: 3),
            Segment(videoFile: dir.path + "/" + nfc, videoPath: nfc, label: "grab", start: 0.1, end: 0.2, source: "a.csv", line: 4),
        ]
        let (clips, clipOf) = Validator.groupByClip(segments)
        XCTAssertEqual(clips.map(\.segments), [2, 1])
        XCTAssertEqual(clipOf, [0, 1, 0])
        XCTAssertTrue(clips[1].file.utf8.elementsEqual((dir.path + "/" + nfd).utf8))
        var set = AnnotationSet()
        set.segments = segments
        let (_, count) = set.classTotals(durations: [PathKey(dir.path + "/" + nfc): 0.4, PathKey(dir.path + "/" + nfd): 1.0])
        XCTAssertEqual(count, 2)
    }

    func testABackslashInANameIsTriedAsWrittenBeforeAsAWindowsPath() throws {
        for path in ["wave/back\\slash.mp4", "other/slash.mp4"] {
            let url = dir.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            FileManager.default.createFile(atPath: url.path, contents: Data())
        }
        let locator = MediaLocator(root: dir, mediaRoot: dir)
        guard case .found(let found) = locator.locate(written: ["wave/back\\slash.mp4"], relativeTo: dir.path) else { return XCTFail("not found") }
        XCTAssertEqual(found.relative, "wave/back\\slash.mp4")
        // A Windows path from the annotator's machine still finds its clip by name.
        guard case .found(let windows) = locator.locate(written: ["C:\\Users\\me\\slash.mp4"], relativeTo: dir.path) else { return XCTFail("not found") }
        XCTAssertEqual(windows.relative, "other/slash.mp4")
    }

    /// ELAN names its clip in attributes, where an XML reader turns a raw newline or tab into a space: written as
    /// character references, the relative URL still finds a clip so named once the folder has moved.
    func testElanKeepsControlCharactersOfAClipsName() throws {
        let before = dir.appendingPathComponent("before"), after = dir.appendingPathComponent("after")
        try FileManager.default.createDirectory(at: before, withIntermediateDirectories: true)
        let clip = before.appendingPathComponent("new\nline\tand\rreturn.mp4")
        FileManager.default.createFile(atPath: clip.path, contents: Data())
        let segments = [Segment(videoFile: clip.path, videoPath: clip.lastPathComponent, label: "wave", start: 0, end: 1, source: "", line: nil)]
        let eaf = ElanWriter.document(segments, clip: clip.path, savedAt: before.appendingPathComponent("a.eaf"))
        XCTAssertTrue(eaf.contains("RELATIVE_MEDIA_URL=\"./new&#10;line&#9;and&#13;return.mp4\"") || eaf.contains("new&#10;line&#9;and&#13;return.mp4"), eaf)
        try Data(eaf.utf8).write(to: before.appendingPathComponent("a.eaf"))
        try FileManager.default.moveItem(at: before, to: after)
        var o = AnnotationOptions()
        o.mediaRoot = after
        let set = AnnotationSource.load(annotationFile: after.appendingPathComponent("a.eaf"), root: after, options: o)
        XCTAssertEqual(set.errors, [])
        XCTAssertEqual(set.segments.map(\.videoPath), ["new\nline\tand\rreturn.mp4"])
    }

    /// A finding is one line whatever the file name holds: control characters are written as escapes.
    func testAFindingAboutAnOddNameIsOneLine() {
        XCTAssertEqual(oneLine("a\nb\tc\rd\u{1B}[2Je\u{7F}f\u{85}g.mp4"), "a\\nb\\tc\\rd\\u{1B}[2Je\\u{7F}f\\u{85}g.mp4")
        XCTAssertEqual(oneLine("café ✋.mp4"), "café ✋.mp4")
        let d = Diagnostic(.error, kind: .noSuchFile, file: "a\nb.csv", line: 3, "video 'x\ny.mp4' does not exist", hint: "look\tthere")
        XCTAssertEqual(d.description.split(separator: "\n").count, 2, d.description)
        XCTAssertTrue(d.description.contains("x\\ny.mp4") && d.description.contains("a\\nb.csv"), d.description)
    }
}
