import Foundation
import XCTest
@testable import Annotations
import VideoIO

/// Every rule of the annotation checks, with its message and position.
final class AnnotationTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("ann-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        // A 3-second, 10 fps clip.
        let w = try VideoWriter(url: dir.appendingPathComponent("clip.mp4"), width: 32, height: 32, frameRate: Rational(10, 1))
        for _ in 0..<30 { try w.append(VideoFrame(width: 32, height: 32)) }
        try w.finish()
    }

    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    func run(_ name: String, _ text: String, window: Int? = nil) -> AnnotationSet {
        let url = dir.appendingPathComponent(name)
        try! Data(text.utf8).write(to: url)
        var set = AnnotationSource.load(annotationFile: url)
        Validator(window: window, fps: 10).check(&set)
        return set
    }

    func find(_ set: AnnotationSet, _ fragment: String, file: StaticString = #filePath, line: UInt = #line) -> Diagnostic? {
        let d = set.diagnostics.first { $0.message.contains(fragment) }
        XCTAssertNotNil(d, "no diagnostic containing '\(fragment)' in \(set.diagnostics.map(\.description))", file: file, line: line)
        return d
    }

    func testTimeFormats() {
        XCTAssertEqual(TimeValue.parse("3"), 3)
        XCTAssertEqual(TimeValue.parse("3.14"), 3.14)
        XCTAssertEqual(TimeValue.parse("01:30"), 90)
        XCTAssertEqual(TimeValue.parse("01:30.5"), 90.5)
        XCTAssertEqual(TimeValue.parse("1:02:03"), 3723)
        XCTAssertEqual(TimeValue.parse("1:59:5.8")!, 7145.8, accuracy: 1e-9)
        XCTAssertEqual(TimeValue.parse("8:3.2")!, 483.2, accuracy: 1e-9)
        XCTAssertEqual(TimeValue.parse(" 2 "), 2)
        XCTAssertEqual(TimeValue.parse("-1"), -1)
        for bad in ["", "abc", "1:2:3:4", "1.2:3", "1:", ":3", "1e3", "."] { XCTAssertNil(TimeValue.parse(bad), bad) }
    }

    func testCleanCSVWithSpacesBOMAndCRLF() {
        let set = run("a.csv", "\u{FEFF}video, label, start, end\r\nclip.mp4, wave, 0, 1.5\r\n\"clip.mp4\",\"pinch, soft\",00:01.5,3\r\nclip.mp4,Background,0,3\r\n")
        XCTAssertEqual(set.errors, [])
        XCTAssertEqual(set.segments.count, 3)
        XCTAssertEqual(set.segments[1].label, "pinch, soft")
        XCTAssertEqual(set.segments[1].start, 1.5)
        XCTAssertEqual(set.segments[1].line, 3)
        XCTAssertEqual(set.classes, ["Background", "pinch, soft", "wave"])
    }

    func testMissingColumnAndUnknownColumn() {
        let set = run("b.csv", "video,Label,start,end\nclip.mp4,wave,0,1\n")
        let d = find(set, "missing required column 'label'")
        XCTAssertEqual(d?.line, 1)
        XCTAssertEqual(d?.severity, .error)
        XCTAssertEqual(find(set, "unknown column 'Label'")?.hint, "column names are case-sensitive: did you mean 'label'?")
    }

    func testStartEndOnSomeRowsOnly() {
        let set = run("c.csv", "video,label,start,end\nclip.mp4,wave,0,1\nclip.mp4,wave,,\n")
        let d = find(set, "'start' is missing here but given on other rows")
        XCTAssertEqual(d?.line, 3)
        XCTAssertEqual(d?.column, 3)
    }

    func testValueErrors() {
        let set = run("d.csv", """
        video,label,start,end
        ,wave,0,1
        clip.mp4,,0,1
        clip.mp4,wave,abc,1
        clip.mp4,wave,-1,1
        clip.mp4,wave,2,1
        ../outside.mp4,wave,0,1
        missing.mp4,wave,0,1
        clip.mp4,wave,0,9
        clip.mp4,"a,b",0,1,extra
        """)
        XCTAssertEqual(find(set, "empty video")?.line, 2)
        XCTAssertEqual(find(set, "empty label")?.line, 3)
        let t = find(set, "cannot read 'abc' as a time")
        XCTAssertEqual(t?.line, 4); XCTAssertEqual(t?.column, 3)
        XCTAssertEqual(find(set, "start is negative (-1)")?.line, 5)
        XCTAssertEqual(find(set, "start 2.000s is not before end 1.000s")?.line, 6)
        XCTAssertEqual(find(set, "'../outside.mp4' points outside the video folder")?.line, 7)
        XCTAssertEqual(find(set, "video 'missing.mp4' does not exist")?.line, 8)
        XCTAssertEqual(find(set, "end 9.000s is beyond the clip's duration 3.000s")?.line, 9)
        XCTAssertEqual(find(set, "has 5 fields; the header has 4")?.line, 10)
    }

    func testAPathInTheWrongCaseNamesTheFileOnDisk() {
        let set = run("case.csv", "video,label,start,end\nClip.MP4,wave,0,1\nother.mp4,wave,0,1\n")
        XCTAssertEqual(find(set, "video 'Clip.MP4' does not exist")?.hint, "did you mean 'clip.mp4'? Paths are case-sensitive on Linux")
        XCTAssertEqual(find(set, "video 'other.mp4' does not exist")?.hint, "paths are relative to the annotation file's folder unless --root is given")
    }

    func testEndWithinOneFrameIsAccepted() {
        let set = run("e.csv", "video,label,start,end\nclip.mp4,wave,0,3.05\nclip.mp4,Background,0,3\n")
        XCTAssertEqual(set.errors, [])
    }

    func testWarnings() {
        let set = run("f.csv", """
        video,label,start,end
        clip.mp4,wave,0,2
        clip.mp4,wave,0,2
        clip.mp4,Wave ,1,3
        clip.mp4,pinch,0,0.5
        clip.mp4,wave,2,3
        clip.mp4,wave,0,1
        clip.mp4,wave,1,2
        clip.mp4,wave,0.5,1
        """, window: 10)
        XCTAssertEqual(set.errors, [])
        XCTAssertEqual(find(set, "duplicate of line 2")?.line, 3)
        XCTAssertNotNil(find(set, "overlaps line"))
        XCTAssertNotNil(find(set, "labels 'Wave', 'wave' differ only by case or spaces"))
        XCTAssertEqual(find(set, "shorter than the 10-frame window")?.line, 5)
        XCTAssertNotNil(find(set, "class 'pinch' has 1 examples"))
        XCTAssertNotNil(find(set, "no 'Background' class"))
    }

    func testJSONWithNumbersStringsAndLines() {
        let set = run("g.json", """
        [
          {"video": "clip.mp4", "label": " wave", "start": 0, "end": "00:01.5"},
          {"video": "clip.mp4", "label": "Background",
           "start": "1.5", "end": 3}
        ]
        """)
        XCTAssertEqual(set.errors, [])
        XCTAssertEqual(set.segments.map(\.label), ["wave", "Background"])
        XCTAssertEqual(set.segments.map(\.line), [2, 3])
        XCTAssertEqual(set.segments[0].end, 1.5)
    }

    func testBrokenJSONNamesThePosition() {
        let set = run("h.json", "[\n  {\"video\": \"clip.mp4\" \"label\": \"x\"}\n]\n")
        let d = find(set, "not valid JSON")
        XCTAssertEqual(d?.line, 2)
    }

    func testBrokenCSVQuoteNamesTheLine() {
        let set = run("i.csv", "video,label\nclip.mp4,wave\nclip.mp4,wa\"ve\"x\n")
        XCTAssertEqual(find(set, "cannot parse this CSV line")?.line, 3)
    }

    func testUTF16IsRefused() throws {
        let url = dir.appendingPathComponent("u.csv")
        try "video,label\nclip.mp4,wave\n".data(using: .utf16)!.write(to: url)
        let set = AnnotationSource.load(annotationFile: url)
        XCTAssertEqual(set.errors.first?.message, "the file is UTF-16; annotation files must be UTF-8")
    }

    func testRootOption() throws {
        let sub = dir.appendingPathComponent("notes")
        try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
        let url = sub.appendingPathComponent("a.csv")
        try Data("video,label\nclip.mp4,Background\n".utf8).write(to: url)
        var set = AnnotationSource.load(annotationFile: url, root: dir)
        Validator().check(&set)
        XCTAssertEqual(set.errors, [])
        XCTAssertEqual(set.segments.first?.video.lastPathComponent, "clip.mp4")
    }

    func testLabelledFoldersAndFiles() throws {
        let fm = FileManager.default
        for label in ["wave", "Background"] {
            try fm.createDirectory(at: dir.appendingPathComponent("data/\(label)"), withIntermediateDirectories: true)
            try fm.copyItem(at: dir.appendingPathComponent("clip.mp4"), to: dir.appendingPathComponent("data/\(label)/one.mp4"))
        }
        try fm.copyItem(at: dir.appendingPathComponent("clip.mp4"), to: dir.appendingPathComponent("data/Pinch.3.mp4"))
        let set = AnnotationSource.load(labelledFolder: dir.appendingPathComponent("data"), poses: false)
        XCTAssertEqual(set.classes, ["Background", "Pinch", "wave"])
        XCTAssertEqual(set.segments.count, 3)
    }

    func testHeaderOnlyCSVAndEmptyJSONAreErrors() {
        for (name, text) in [("h.csv", "video,label,start,end\n"), ("h2.csv", "\u{FEFF}video,label\r\n\r\n"), ("h.json", "[ ]")] {
            let set = run(name, text)
            XCTAssertEqual(set.errorCount, 1, name)
            XCTAssertEqual(set.errors.first?.message.hasPrefix("no segments: the "), true, "\(name): \(set.diagnostics)")
        }
        XCTAssertEqual(run("h.csv", "video,label\n").errors.first?.message, "no segments: the file has a header but no rows")
        XCTAssertEqual(run("e.csv", "").errors.first?.message, "the file is empty; expected a header line such as 'video,label,start,end'")
    }

    func testLongValuesAreQuotedShortInEveryMessage() {
        let long = String(repeating: "x", count: 50_000), x40 = String(repeating: "x", count: 40)
        let set = run("long.csv", """
        video,label,start,end,\(long)
        \(long).mp4,wave,\(long),1,a
        \(long),\(long),0,1,b
        clip.mp4,\(String(repeating: "y", count: 70_000)),0,1,c
        clip.mp4,Background,0,1,d
        clip.mp4,Background,1,2,e
        clip.mp4,Background,0.5,1,f
        clip.mp4,Background,1.5,2,g
        clip.mp4,Background,2,3,h
        """)
        XCTAssertGreaterThanOrEqual(set.diagnostics.count, 5, "\(set.diagnostics.map(\.message))")
        for d in set.diagnostics {
            XCTAssertLessThan(d.message.count + (d.hint ?? "").count, 400, d.message.prefix(200) + "...")
        }
        XCTAssertNotNil(find(set, "unknown column '\(x40)…' (50,000 characters) is ignored"))
        XCTAssertNotNil(find(set, "cannot read '\(x40)…' (50,000 characters) as a time"))
        XCTAssertNotNil(find(set, "video '\(x40)…' (50,000 characters) does not exist"))
        XCTAssertNotNil(find(set, "class '\(x40)…' (50,000 characters) has 1 examples"))
        XCTAssertEqual(find(set, "(70,000 characters) is too long for a path, label or time")?.line, 4)
    }

    func testRepeatedFindingsAreCappedAndCounted() throws {
        var text = "video,label,start,end\n"
        for i in 0..<1000 { text += "gone\(i).mp4,wave,\(i % 2 == 0 ? "x" : "1"),2\n" }
        let url = dir.appendingPathComponent("many.csv")
        try Data(text.utf8).write(to: url)
        var set = AnnotationSource.load(annotationFile: url, maxDiagnosticsPerKind: 5)
        Validator().check(&set)
        XCTAssertEqual(set.errorCount, 1000)   // 500 unreadable times, 500 missing clips
        XCTAssertEqual(set.errors.count, 10)
        XCTAssertEqual(set.errors.filter { $0.message.contains("does not exist") }.map(\.line), [3, 5, 7, 9, 11])
        XCTAssertEqual(set.log.omitted.map(\.count), [495, 495])
        XCTAssertEqual(set.log.omitted.map(\.kind.name), ["unreadable time", "no such file"])
    }

    func testAClipNamedByManyRowsIsOpenedOnceAndReportedOnce() throws {
        var text = "video,label\n"
        for _ in 0..<10_000 { text += "gone.mp4,wave\n" }
        let set = run("same.csv", text)
        let missing = set.errors.filter { $0.message.contains("does not exist") }
        XCTAssertEqual(missing.map(\.line), [2])
        XCTAssertEqual(missing.first?.message.hasSuffix("10,000 rows name it, this is the first"), true, "\(missing)")
    }

    func testPathsResolveUnderTheirFolderOnly() {
        XCTAssertEqual(AnnotationSource.resolve("a/./b/../c.mp4", basePath: "/data/set"), "/data/set/a/c.mp4")
        XCTAssertEqual(AnnotationSource.resolve("/data/set/x//y.mp4", basePath: "/data/set"), "/data/set/x/y.mp4")
        XCTAssertNil(AnnotationSource.resolve("../set2/c.mp4", basePath: "/data/set"))
        XCTAssertNil(AnnotationSource.resolve("/data/setx/c.mp4", basePath: "/data/set"))
        XCTAssertNil(AnnotationSource.resolve("../../../../etc/passwd", basePath: "/data/set"))
        XCTAssertEqual(AnnotationSource.resolve("c.mp4", basePath: "/"), "/c.mp4")
        // The base folder itself is no clip, "/" included.
        XCTAssertNil(AnnotationSource.resolve(".", basePath: "/data/set"))
        XCTAssertNil(AnnotationSource.resolve(".", basePath: "/"))
        XCTAssertNil(AnnotationSource.resolve("a/..", basePath: "/"))
        // Folders compared by bytes: a base named in NFC does not hold the path under its NFD twin, another
        // folder on Linux (as `String`'s canonical `hasPrefix` had it), nor the other way round.
        let nfc = "/data/caf\u{E9}", nfd = "/data/cafe\u{301}"
        XCTAssertNil(AnnotationSource.resolve(nfd + "/x.mp4", basePath: nfc))
        XCTAssertNil(AnnotationSource.resolve(nfc + "/x.mp4", basePath: nfd))
        XCTAssertEqual(AnnotationSource.resolve("x.mp4", basePath: nfd), nfd + "/x.mp4")
    }

    /// A row's clip is named as the file writes it with `.`, `..` and doubled slashes resolved: relative paths
    /// under the annotation folder, absolute ones absolute. Three spellings of one relative path are one name.
    func testAClipWrittenSeveralWaysHasOneName() throws {
        let text = "video,label,start,end\n./clip.mp4,wave,0,1\nclip.mp4,wave,1,2\nb/..//clip.mp4,wave,2,3\n\(dir.path)/./clip.mp4,wave,0,1\n"
        let set = run("names.csv", text)
        XCTAssertEqual(set.errors.count, 0, "\(set.errors)")
        XCTAssertEqual(set.segments.map(\.videoPath), ["clip.mp4", "clip.mp4", "clip.mp4", dir.path + "/clip.mp4"])
        XCTAssertEqual(Set(set.segments.map(\.videoFile)), [dir.path + "/clip.mp4"])
    }

    func testSegmentKeepsItsEncodedForm() throws {
        let s = Segment(video: URL(fileURLWithPath: "/x/a b.mp4"), videoPath: "a b.mp4", label: "wave", start: nil, end: 2, source: "f.csv", line: 3)
        XCTAssertEqual(s.videoFile, "/x/a b.mp4")
        XCTAssertEqual(s.video, URL(fileURLWithPath: "/x/a b.mp4", isDirectory: false))
        let data = try JSONEncoder().encode(s)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        XCTAssertEqual(Set(object?.keys.map { $0 } ?? []), ["video", "videoPath", "label", "end", "source", "line"])
        XCTAssertEqual(try JSONDecoder().decode(Segment.self, from: data), s)
    }

    /// Findings of `kind`, kept or only counted.
    func total(_ set: AnnotationSet, _ kind: Diagnostic.Kind) -> Int {
        set.diagnostics.filter { $0.kind == kind }.count + set.log.omitted.filter { $0.kind == kind }.reduce(0) { $0 + $1.count }
    }

    /// Overlaps are found in one pass and said once a segment, with the earlier segment of another label
    /// that reaches furthest: 20,000 rows of distinct labels over one span made one warning for each pair
    /// (200 million, and the check never finished).
    func testOverlapsAreOneWarningASegment() throws {
        var text = "video,label,start,end\n"
        for i in 0..<20_000 { text += "clip.mp4,c\(i),0,2\n" }
        let url = dir.appendingPathComponent("overlaps.csv")
        try Data(text.utf8).write(to: url)
        var set = AnnotationSource.load(annotationFile: url, maxDiagnosticsPerKind: 5)
        Validator(fps: 10).check(&set)
        XCTAssertEqual(total(set, .overlap), 19_999)
        let first = try XCTUnwrap(set.warnings.first { $0.kind == .overlap })
        XCTAssertEqual(first.line, 3)
        XCTAssertEqual(first.message, "overlaps line 2 (0.000s-2.000s of 'clip.mp4') with a different label ('c1' vs 'c0')")
        // The furthest-reaching segment has the same label: the furthest of another label is the one named.
        let nested = run("nested.csv", "video,label,start,end\nclip.mp4,a,0,3\nclip.mp4,b,0.5,1\nclip.mp4,a,0.8,2\n")
        XCTAssertEqual(nested.warnings.filter { $0.kind == .overlap }.map { "\($0.line ?? 0): \($0.message.prefix(15))" },
                       ["3: overlaps line 2", "4: overlaps line 3"])
    }

    /// A JSON file whose every entry has a key of its own is read with a slot per column read, not per key
    /// (80,000 such entries never finished), and names 20 unknown keys and counts the rest.
    func testAKeyOfItsOwnOnEveryEntryIsCountedNotAColumnEach() throws {
        var text = "[\n"
        for i in 0..<20_000 { text += (i == 0 ? "" : ",\n") + "{\"video\": \"clip.mp4\", \"label\": \"wave\", \"start\": 0, \"end\": 1, \"k\(i)\": 1}" }
        text += "\n]\n"
        let url = dir.appendingPathComponent("keys.json")
        try Data(text.utf8).write(to: url)
        let set = AnnotationSource.load(annotationFile: url)
        XCTAssertEqual(set.errors, [])
        XCTAssertEqual(set.segments.count, 20_000)
        XCTAssertEqual(total(set, .unknownColumn), AnnotationFileReader.unknownKeysNamed + 1)
        XCTAssertNotNil(find(set, "unknown column 'k0' is ignored"))
        XCTAssertNotNil(find(set, "19,980 more unknown columns (keys) are ignored"))
    }

    /// A key given twice in one JSON entry is an error for a column read (which one counts?), and the entry
    /// is not read; an unknown key twice is left to the unknown-column warning. (The last one was kept silently.)
    func testAColumnGivenTwiceInAJSONEntryIsAnError() {
        let set = run("twice.json", """
        [
          {"video": "clip.mp4", "label": "wave", "label": "grab", "start": 0, "end": 1},
          {"video": "clip.mp4", "label": "Background", "start": 1, "end": 2, "note": 1, "note": 2}
        ]
        """)
        XCTAssertEqual(set.errors.map(\.kind), [.duplicateColumn])
        XCTAssertEqual(set.errors.first?.line, 2)
        XCTAssertEqual(set.errors.first?.message, "entry 1 gives 'label' twice")
        XCTAssertEqual(set.segments.map(\.label), ["Background"])
    }

    func testLargeFile() {
        var text = "video,label,start,end\n"
        for i in 0..<100_000 { text += "clip.mp4,\(i % 2 == 0 ? "wave" : "Background"),\(Double(i % 20) * 0.1),\(Double(i % 20) * 0.1 + 0.5)\n" }
        let start = Date()
        let set = run("big.csv", text)
        print(String(format: "100,000-row annotation file parsed and validated in %.2f s", Date().timeIntervalSince(start)))
        XCTAssertEqual(set.segments.count, 100_000)
        XCTAssertEqual(set.errors, [])
    }
}

/// The committed example files parse and validate against Samples/.
final class ExampleFileTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL

    func testExamplesValidateAgainstSamples() {
        let samples = Self.root.appendingPathComponent("Samples")
        for name in ["times.csv", "no_times.csv", "numbers_and_strings.json"] {
            var set = AnnotationSource.load(annotationFile: Self.root.appendingPathComponent("Annotations/\(name)"), root: samples)
            Validator().check(&set)
            XCTAssertEqual(set.errors, [], name)
            XCTAssertFalse(set.segments.isEmpty, name)
        }
        var columns = AnnotationColumns()
        columns.video = "clip"; columns.label = "action"; columns.start = "from"; columns.end = "to"
        var set = AnnotationSource.load(annotationFile: Self.root.appendingPathComponent("Annotations/custom_columns.csv"), root: samples, columns: columns)
        Validator().check(&set)
        XCTAssertEqual(set.errors, [])
        XCTAssertEqual(set.segments.count, 3)
        var samplesSet = AnnotationSource.load(annotationFile: samples.appendingPathComponent("annotations.csv"))
        Validator().check(&samplesSet)
        XCTAssertEqual(samplesSet.errors, [])
        XCTAssertEqual(samplesSet.classes.count, 7)
    }
}
