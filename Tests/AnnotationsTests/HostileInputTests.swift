import FileSystem
import Foundation
import XCTest
@testable import Annotations

/// Input as an attacker or a careless user writes it (#45), through every annotation reader: numbers at
/// and past every range, every truncation point of real files, special files, duplicated columns, labels
/// with every class of character. A reader gives the whole result or an error naming the place, never a
/// crash and never a shorter result.
final class HostileInputTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        for clip in ["a.mp4", "b.mp4", "elan-example1.mpg", "turkish.wav", "opossum_snow_short.mp4"] {
            FileManager.default.createFile(atPath: dir.appendingPathComponent(clip).path, contents: Data())
        }
    }

    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    func write(_ name: String, _ text: String) throws -> URL {
        let url = dir.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url
    }

    func load(_ url: URL, frameRate: Double? = nil, tiers: [String] = []) -> AnnotationSet {
        var o = AnnotationOptions()
        o.frameRate = frameRate
        o.tiers = tiers
        o.mediaRoot = dir
        return AnnotationSource.load(annotationFile: url, root: dir, options: o)
    }

    // MARK: numbers

    /// Times in CSV and JSON: each either read as the number it is (inside InputRange.seconds) or an
    /// error naming the line; none traps or passes on a value no clip has.
    func testExtremeTimesAreReadOrRefusedNeverPassedOn() throws {
        let cases: [(text: String, accepted: Double?)] = [
            ("1e30", nil), ("9.3e15", nil), ("9223372036854775808", nil), ("1e400", nil), ("10000001", nil),
            ("-0", 0), ("0.0", 0), ("4.9e-324", 4.9e-324), ("2.5e1", 25), ("9999999", 9_999_999),
            ("NaN", nil), ("Infinity", nil), ("-1", nil), ("0x10", nil), ("1e", nil),
        ]
        for (k, c) in cases.enumerated() {
            // A value read as 0 is tried as the start (before an end of 1), any other as the end.
            let zero = c.accepted == 0
            let (start, end) = zero ? (c.text, "1") : ("0", c.text)
            let csv = load(try write("t\(k).csv", "video,label,start,end\na.mp4,wave,\(start),\(end)\n"))
            // In JSON as a number where JSON's grammar allows it, else as a string.
            let isNumber = c.text.range(of: #"^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$"#, options: .regularExpression) != nil
            let literal = isNumber ? c.text : "\"\(c.text)\""
            let json = load(try write("t\(k).json", "[{\"video\": \"a.mp4\", \"label\": \"wave\", \"start\": \(zero ? literal : "0"), \"end\": \(zero ? "1" : literal)}]"))
            let quoted = load(try write("q\(k).json", "[{\"video\": \"a.mp4\", \"label\": \"wave\", \"start\": \(zero ? "\"\(c.text)\"" : "0"), \"end\": \(zero ? "1" : "\"\(c.text)\"")}]"))
            for (name, set) in [("csv", csv), ("json", json), ("json string", quoted)] {
                // CSV keeps Create ML's time forms: no exponents.
                if let value = c.accepted, !(name == "csv" && c.text.contains("e")) {
                    XCTAssertEqual(set.errors, [], "\(c.text) in \(name)")
                    XCTAssertEqual(zero ? set.segments.first?.start : set.segments.first?.end, value, "\(c.text) in \(name)")
                } else {
                    XCTAssertFalse(set.errors.isEmpty, "\(c.text) in \(name) must be refused")
                    XCTAssertEqual(set.errors.first?.line, name == "csv" ? 2 : 1, "\(c.text) in \(name): the line is named")
                    XCTAssertTrue(set.segments.allSatisfy { ($0.end ?? 0) <= InputRange.seconds.upperBound }, "\(c.text) in \(name)")
                }
            }
        }
        // A JSON number, not a string, in exponent form.
        let number = load(try write("n.json", #"[{"video": "a.mp4", "label": "wave", "start": 0, "end": 9.3e15}]"#))
        XCTAssertEqual(number.errors.first?.kind, .badTime)
    }

    /// Label Studio ranges are frame numbers: 1e30, fractions and 2^63 are refused by the task's line.
    func testLabelStudioFrameNumbersOutOfRange() throws {
        // At 30 fps, frame 300,000,000 ends at 10^7 s, the limit itself; one more is past it.
        for (k, value) in ["1e30", "9.3e15", "9223372036854775808", "1.5", "-3", "1e14", "10000000000001", "300000001", "300000000"].enumerated() {
            let url = try write("ls\(k).json", """
            [{"id": 1, "data": {"video": "a.mp4"},
              "annotations": [{"id": 2, "result": [{"type": "timelinelabels", "to_name": "video", "value": {"ranges": [{"start": 1, "end": \(value)}], "timelinelabels": ["wave"]}}]}]}]
            """)
            let set = load(url, frameRate: 30)
            if value == "300000000" {
                XCTAssertEqual(set.errors, [], value)
                XCTAssertEqual(set.segments.first?.end, 10_000_000, value)
                continue
            }
            XCTAssertFalse(set.errors.isEmpty, value)
            XCTAssertTrue(set.segments.isEmpty, value)
            XCTAssertEqual(set.errors.first?.line, 1, value)
        }
        let rate = try write("rate.json", #"[{"id": 1, "data": {"video": "a.mp4", "fps": 1e300}, "annotations": [{"id": 2, "result": [{"type": "timelinelabels", "to_name": "video", "value": {"ranges": [{"start": 1, "end": 2}], "timelinelabels": ["wave"]}}]}]}]"#)
        let config = try write("config.xml", #"<View><Video name="video" value="$video" frameRate="$fps"/><TimelineLabels name="l" toName="video"><Label value="wave"/></TimelineLabels></View>"#)
        var o = AnnotationOptions()
        o.labelConfig = config
        o.mediaRoot = dir
        XCTAssertEqual(AnnotationSource.load(annotationFile: rate, root: dir, options: o).errors.first?.kind, .frameRateUnknown)
    }

    /// ELAN times are whole milliseconds; a TIME_VALUE or TIME_ORIGIN past Int64's reach, or past the
    /// range, is an error on its line, and the annotations using it are not also called slot-less.
    func testElanTimesOutOfRange() throws {
        for (k, value) in ["9223372036854775807", "99999999999999999999", "-5", "10000000001"].enumerated() {
            let set = load(try write("e\(k).eaf", elan(slots: ["0", value], origin: nil)))
            XCTAssertTrue(set.errors.contains { $0.line == 8 && $0.message.contains("TIME_VALUE") }, "\(value): \(set.errors)")
            XCTAssertEqual(set.segments, [], value)
            XCTAssertFalse(set.errors.contains { $0.message.contains("every tier is empty") || $0.message.contains("not in TIME_ORDER") }, value)
        }
        // Both ends of Int64: abs(Int64.min) traps, so the range is checked without it.
        for (k, value) in ["9223372036854775807", "-9223372036854775808"].enumerated() {
            let origin = load(try write("o\(k).eaf", elan(slots: ["0", "1000"], origin: value)))
            XCTAssertTrue(origin.errors.contains { $0.message.contains("TIME_ORIGIN") }, "\(value): \(origin.errors)")
            XCTAssertEqual(origin.errors.count, 1, "one error, not also 'names no media': \(origin.errors)")
            XCTAssertEqual(origin.segments, [], value)
        }
        let good = load(try write("g.eaf", elan(slots: ["0", "1000"], origin: "500")))
        XCTAssertEqual(good.errors, [])
        XCTAssertEqual(good.segments.map(\.end), [1.5])
    }

    func elan(slots: [String], origin: String?, value: String = "wave", tiers: [String] = ["labels"], doctype: String = "") -> String {
        var x = """
        <?xml version="1.0" encoding="UTF-8"?>\(doctype)
        <ANNOTATION_DOCUMENT AUTHOR="" DATE="2026-01-01T00:00:00+00:00" FORMAT="3.0" VERSION="3.0">
        <HEADER MEDIA_FILE="" TIME_UNITS="milliseconds">
        <MEDIA_DESCRIPTOR MEDIA_URL="file:///nowhere/a.mp4" MIME_TYPE="video/mp4" RELATIVE_MEDIA_URL="./a.mp4"\(origin.map { " TIME_ORIGIN=\"\($0)\"" } ?? "")/>
        </HEADER>
        <TIME_ORDER>

        """
        for (k, v) in slots.enumerated() { x += "<TIME_SLOT TIME_SLOT_ID=\"ts\(k + 1)\" TIME_VALUE=\"\(v)\"/>\n" }
        x += "</TIME_ORDER>\n"
        for (t, tier) in tiers.enumerated() {
            x += "<TIER LINGUISTIC_TYPE_REF=\"default-lt\" TIER_ID=\"\(tier)\">\n"
            x += "<ANNOTATION><ALIGNABLE_ANNOTATION ANNOTATION_ID=\"a\(t + 1)\" TIME_SLOT_REF1=\"ts1\" TIME_SLOT_REF2=\"ts2\"><ANNOTATION_VALUE>\(value)</ANNOTATION_VALUE></ALIGNABLE_ANNOTATION></ANNOTATION>\n"
            x += "</TIER>\n"
        }
        x += "<LINGUISTIC_TYPE LINGUISTIC_TYPE_ID=\"default-lt\" TIME_ALIGNABLE=\"true\"/>\n</ANNOTATION_DOCUMENT>\n"
        return x
    }

    // MARK: truncation

    /// Property over real files (the ELAN fixtures as ELAN saved them that name a clip handpose reads, Label Studio's export, and CSV and
    /// JSON files handpose writes): a file cut at any point gives its whole result or an error, never a
    /// shorter result. Small files are cut at every byte, large ones at 600 points spread over them.
    func testEveryTruncationIsWholeOrAnError() throws {
        let fixtures = ElanReaderTests.fixtures
        var files: [(name: String, data: Data, tiers: [String], frameRate: Double?)] = [
            ("poio-api_example.eaf", try Data(contentsOf: fixtures.appendingPathComponent("poio-api_example.eaf")), ["*"], nil),
            ("poio-api_turkish.eaf", try Data(contentsOf: fixtures.appendingPathComponent("poio-api_turkish.eaf")), ["*"], nil),
        ]
        let segments = (0..<40).map { k in
            Segment(videoFile: dir.appendingPathComponent(k % 2 == 0 ? "a.mp4" : "b.mp4").path, videoPath: k % 2 == 0 ? "a.mp4" : "b.mp4",
                    label: ["wave", "pinch, soft", "say \"hi\""][k % 3], start: Double(k), end: Double(k) + 0.75, source: "", line: nil)
        }
        files.append(("written.json", try AnnotationWriter.json(segments), [], nil))
        files.append(("tasks.json", try LabelStudioWriter.tasks(segments, frameRate: 30, modelVersion: "t"), [], 30))
        let eaf = ElanWriter.document(segments.filter { $0.videoPath == "a.mp4" }, clip: dir.appendingPathComponent("a.mp4").path,
                                      savedAt: dir.appendingPathComponent("x.eaf"))
        files.append(("written.eaf", Data(eaf.utf8), [], nil))
        for file in files {
            let whole = try write(file.name, String(decoding: file.data, as: UTF8.self))
            let full = load(whole, frameRate: file.frameRate, tiers: file.tiers)
            XCTAssertFalse(full.segments.isEmpty, "\(file.name): \(full.errors)")
            let bytes = [UInt8](file.data)
            // The last white space a writer appends may be cut without loss.
            let end = (bytes.lastIndex { ![0x20, 0x0A, 0x0D, 0x09].contains($0) } ?? 0) + 1
            let step = max(1, end / 600)
            var cuts = Array(stride(from: 0, to: end, by: step))
            cuts += (1...min(64, end)).map { end - $0 }   // every point near the end, where a cut looks most whole
            for cut in Set(cuts).sorted() {
                let url = try write("cut-" + file.name, String(decoding: bytes[..<cut], as: UTF8.self))
                let set = load(url, frameRate: file.frameRate, tiers: file.tiers)
                if set.errorCount == 0 {
                    XCTAssertEqual(set.segments.count, full.segments.count, "\(file.name) cut at byte \(cut) of \(bytes.count): a shorter result without an error")
                    XCTAssertEqual(set.segments.map(\.label), full.segments.map(\.label), "\(file.name) cut at \(cut)")
                }
            }
        }
    }

    /// CSV's own truncation mark: a file cut inside a quoted value is an error at the line it opened on.
    /// (A CSV cut at a line break is a shorter CSV that no reader can tell from a whole one.)
    func testCSVCutInsideAQuotedValueIsAnError() throws {
        let text = AnnotationWriter.csv([
            Segment(videoFile: "/x/a.mp4", videoPath: "a.mp4", label: "say \"hi\", then wave", start: 0, end: 1, source: "", line: nil),
            Segment(videoFile: "/x/a.mp4", videoPath: "a.mp4", label: "multi, part", start: 1, end: 2, source: "", line: nil),
        ])
        let bytes = Array(text.utf8)
        var inQuote = false
        for (k, b) in bytes.enumerated() {
            if b == UInt8(ascii: "\"") { inQuote.toggle() }
            guard inQuote else { continue }
            let set = load(try write("q.csv", String(decoding: bytes[...k], as: UTF8.self)))
            XCTAssertTrue(set.errors.contains { $0.kind == .csvSyntax }, "cut at byte \(k) inside a quoted value")
        }
    }

    /// The truncation issue's own case: 100 annotations cut after the 50th, tags left open.
    func testElanCutInHalfIsAnErrorNotFiftySegments() throws {
        let segments = (0..<100).map { k in
            Segment(videoFile: dir.appendingPathComponent("a.mp4").path, videoPath: "a.mp4", label: "l\(k)", start: Double(k), end: Double(k) + 1, source: "", line: nil)
        }
        let text = ElanWriter.document(segments, clip: dir.appendingPathComponent("a.mp4").path, savedAt: dir.appendingPathComponent("x.eaf"))
        let whole = load(try write("whole.eaf", text))
        XCTAssertEqual(whole.segments.count, 100)
        let fiftyFirst = text.range(of: "ANNOTATION_ID=\"a51\"")!.lowerBound
        let cut = load(try write("cut.eaf", String(text[..<fiftyFirst])))
        XCTAssertEqual(cut.segments, [])
        XCTAssertEqual(cut.errors.count, 1)
        XCTAssertTrue(cut.errors[0].message.contains("cut short"), cut.errors[0].message)
        XCTAssertNotNil(cut.errors[0].line)
    }

    // MARK: structure

    func testDuplicatedColumnIsAnError() throws {
        let set = load(try write("d.csv", "video,label,start,end,label\na.mp4,wave,0,1,pinch\n"))
        XCTAssertEqual(set.errors.map(\.kind), [.duplicateColumn])
        XCTAssertEqual(set.errors.first?.column, 5)
        XCTAssertEqual(set.segments, [])
        // A spreadsheet's trailing empty columns, or an unknown column twice, stay warnings.
        let trailing = load(try write("t.csv", "video,label,start,end,,\na.mp4,wave,0,1,,\n"))
        XCTAssertEqual(trailing.errors, [])
        XCTAssertEqual(trailing.segments.count, 1)
        XCTAssertEqual(load(try write("n.csv", "video,label,note,note\na.mp4,wave,x,y\n")).errors, [])
    }

    /// ELAN's messages: a declared entity, a long DOCTYPE, another encoding, a negative time.
    func testElanMessagesSayWhatIsWrong() throws {
        let entity = load(try write("ent.eaf", elan(slots: ["0", "1000"], origin: nil, value: "&w;", doctype: "<!DOCTYPE ANNOTATION_DOCUMENT [<!ENTITY w \"wave\">]>")))
        XCTAssertTrue(entity.errors.first?.message.contains("declares an entity") == true, "\(entity.errors)")
        XCTAssertEqual(entity.segments, [])
        let long = "<!DOCTYPE ANNOTATION_DOCUMENT [<!-- \(String(repeating: "x", count: 9000)) -->]>"
        let longSet = load(try write("long.eaf", elan(slots: ["0", "1000"], origin: nil, doctype: long)))
        XCTAssertEqual(AnnotationFormat.detect(dir.appendingPathComponent("long.eaf")), .elan)
        XCTAssertEqual(longSet.errors, [], "\(longSet.errors)")
        let renamed = dir.appendingPathComponent("long.txt")
        try FileManager.default.copyItem(at: dir.appendingPathComponent("long.eaf"), to: renamed)
        XCTAssertEqual(AnnotationFormat.detect(renamed), .elan)
        var latin1 = Data(elan(slots: ["0", "1000"], origin: nil, value: "caf").utf8)
        latin1.insert(0xE9, at: latin1.range(of: Data("caf<".utf8))!.lowerBound + 3)   // é in ISO-8859-1 in a UTF-8 file
        try latin1.write(to: dir.appendingPathComponent("latin1.eaf"))
        let encoding = load(dir.appendingPathComponent("latin1.eaf"))
        XCTAssertTrue(encoding.errors.first?.message.contains("encoding") == true, "\(encoding.errors)")
        XCTAssertFalse(encoding.errors.contains { $0.message.contains("NSXMLParserErrorDomain") })
        // A declared encoding: ASCII is UTF-8's subset and read; another is named.
        let ascii = load(try write("ascii.eaf", elan(slots: ["0", "1000"], origin: nil).replacingOccurrences(of: "encoding=\"UTF-8\"", with: "encoding='us-ascii'")))
        XCTAssertEqual(ascii.errors, [])
        let latin = load(try write("latin.eaf", elan(slots: ["0", "1000"], origin: nil).replacingOccurrences(of: "encoding=\"UTF-8\"", with: "encoding=\"ISO-8859-1\"")))
        XCTAssertTrue(latin.errors.first?.message.contains("'iso-8859-1'") == true, "\(latin.errors)")
    }

    /// Files the AnnotationFilesFuzz fuzzer found crashing the reader (FoundationXML traps on the first
    /// two; the third indexed tier -1): each an error on its line now.
    func testFilesTheFuzzerFoundAreErrors() throws {
        let pi = load(try write("pi.eaf", elan(slots: ["0", "1000"], origin: nil).replacingOccurrences(of: "<HEADER", with: "<?pi?>\n<HEADER")))
        XCTAssertEqual(pi.errors.first?.line, 3, "\(pi.errors)")
        XCTAssertTrue(pi.errors.first?.message.contains("processing instruction") == true, "\(pi.errors)")
        var name = Data(elan(slots: ["0", "1000"], origin: nil).utf8)
        name.insert(0xD8, at: name.range(of: Data("MEDIA_FILE".utf8))!.lowerBound + 3)
        try name.write(to: dir.appendingPathComponent("name.eaf"))
        let notUTF8 = load(dir.appendingPathComponent("name.eaf"))
        XCTAssertEqual(notUTF8.errors.first?.line, 3, "\(notUTF8.errors)")
        let outside = elan(slots: ["0", "1000"], origin: nil).replacingOccurrences(of: "</TIER>\n", with: "</TIER>\n<ANNOTATION><ALIGNABLE_ANNOTATION ANNOTATION_ID=\"a9\" TIME_SLOT_REF1=\"ts1\" TIME_SLOT_REF2=\"ts2\"><ANNOTATION_VALUE>x</ANNOTATION_VALUE></ALIGNABLE_ANNOTATION></ANNOTATION>\n")
        let set = load(try write("outside.eaf", outside))
        XCTAssertTrue(set.errors.contains { $0.message.contains("a9 lies outside any TIER") }, "\(set.errors)")
    }

    // MARK: labels

    /// One rule in every reader: a label with a control character, a line break or a noncharacter is
    /// an error on its line; outer spaces are trimmed; numbers are kept as written.
    func testLabelsWithEveryClassOfCharacter() throws {
        // A label longer than a CSV or JSON value may be is refused by every format alike (Label Studio and ELAN took it).
        let refused: [String] = ["a\u{0}b", "a\u{1}b", "a\u{9}b", "a\u{7F}b", "a\u{85}b", "a\u{2028}b", "a\u{FFFF}b", "a\u{9B}b",
                                 String(repeating: "a", count: LabelText.maxBytes + 1)]
        let accepted: [String] = ["wave", "pinch, soft", "say \"hi\"", "élan", "手を振る", "👋 wave", "a\u{200B}b", "R&D <x>",
                                  String(repeating: "é", count: LabelText.maxBytes / 2)]
        for (k, label) in (refused + accepted).enumerated() {
            let ok = accepted.contains(label)
            let json = String(decoding: try JSONSerialization.data(withJSONObject: [["video": "a.mp4", "label": label, "start": 0, "end": 1]]), as: UTF8.self)
            let csv = AnnotationWriter.csv([Segment(videoFile: "/x/a.mp4", videoPath: "a.mp4", label: label, start: 0, end: 1, source: "", line: nil)])
            let ls = String(decoding: try JSONSerialization.data(withJSONObject: [["id": 1, "data": ["video": "a.mp4"],
                "annotations": [["id": 2, "result": [["type": "timelinelabels", "to_name": "video", "value": ["ranges": [["start": 1, "end": 2]], "timelinelabels": [label]]]]]]]]), as: UTF8.self)
            let escaped = ElanWriter.escape(label)
            for (name, set) in [("csv", load(try write("l\(k).csv", csv))), ("json", load(try write("l\(k).json", json))),
                                ("label studio", load(try write("ls\(k).json", ls), frameRate: 30)),
                                ("elan", load(try write("l\(k).eaf", elan(slots: ["0", "1000"], origin: nil, value: escaped))))] {
                if ok {
                    XCTAssertEqual(set.errors, [], "\(name) \(label.debugDescription)")
                    XCTAssertEqual(set.segments.map(\.label), [label], "\(name) \(label.debugDescription)")
                } else {
                    XCTAssertEqual(set.segments, [], "\(name) \(label.debugDescription)")
                    XCTAssertFalse(set.errors.isEmpty, "\(name) \(label.debugDescription)")
                }
            }
            XCTAssertEqual(LabelText.problem(label) == nil, ok, label.debugDescription)
        }
        XCTAssertNotNil(LabelText.problemAsWritten(" wave"))
        XCTAssertNil(LabelText.problemAsWritten("wave"))
    }

    func testJSONNumbersAsLabelsKeepTheirText() throws {
        let set = load(try write("n.json", #"[{"video": "a.mp4", "label": 7, "start": 0, "end": 1}, {"video": "a.mp4", "label": 12345678901234567890, "start": 1, "end": 2}, {"video": "a.mp4", "label": 1.50, "start": 2, "end": 3}, {"video": "a.mp4", "label": true, "start": 3, "end": 4}]"#))
        XCTAssertEqual(set.errors, [])
        XCTAssertEqual(set.segments.map(\.label), ["7", "12345678901234567890", "1.50", "true"])
    }

    // MARK: special files

    /// A FIFO (no writer: opening it would wait for ever), a socket and /dev/zero named as annotation
    /// files: each named as what it is, none opened.
    func testSpecialFilesAreNamedNeverOpened() throws {
        for name in ["p.csv", "p.json", "p.eaf"] {
            let url = dir.appendingPathComponent(name)
            XCTAssertEqual(mkfifo(url.path, 0o644), 0)
            let set = load(url)
            XCTAssertTrue(set.errors.first?.message.contains("FIFO") == true, "\(name): \(set.errors)")
        }
        let link = dir.appendingPathComponent("zero.csv")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "/dev/zero")
        let zero = load(link)
        XCTAssertTrue(zero.errors.first?.message.contains("character device") == true, "\(zero.errors)")
        XCTAssertTrue(zero.errors.first?.message.contains("symbolic link") == true, "\(zero.errors)")
        XCTAssertThrowsError(try RegularFile.read(dir.appendingPathComponent("p.csv").path))
        XCTAssertNil(RegularFile.problem(dir.appendingPathComponent("a.mp4").path))
    }

    /// The race a check by name leaves: the file checked, then swapped for a FIFO before a library opens
    /// it by name. `RegularFile.pinned`'s name opens the file as it was checked, the FIFO never; a FIFO there
    /// from the start is refused before the body runs.
    func testAPinnedNameOpensTheFileAsCheckedNotASwappedFIFO() throws {
        let url = dir.appendingPathComponent("s.csv")
        try Data("as checked".utf8).write(to: url)
        let read = try RegularFile.pinned(url.path) { name -> String in
            XCTAssertNotEqual(name, url.path, "this machine has /proc")
            try FileManager.default.removeItem(at: url)
            XCTAssertEqual(mkfifo(url.path, 0o644), 0)
            let fd = open(name, O_RDONLY | O_NONBLOCK)
            defer { close(fd) }
            var st = stat()
            XCTAssertEqual(fstat(fd, &st), 0)
            XCTAssertEqual(st.st_mode & S_IFMT, S_IFREG)
            return String(decoding: FileHandle(fileDescriptor: fd).readDataToEndOfFile(), as: UTF8.self)
        }
        XCTAssertEqual(read, "as checked")
        var ran = false
        XCTAssertThrowsError(try RegularFile.pinned(url.path) { _ in ran = true }) { XCTAssertTrue("\($0)".contains("FIFO"), "\($0)") }
        XCTAssertFalse(ran)
    }

    // MARK: convert reads back

    /// CSV with overlapping segments on one clip, written as ELAN (overlaps on `labels-2`), reads back
    /// whole without --tier.
    func testOverlappingSegmentsWrittenAsElanReadBack() throws {
        let a = dir.appendingPathComponent("a.mp4").path
        let segments = [
            Segment(videoFile: a, videoPath: "a.mp4", label: "wave", start: 0, end: 2, source: "", line: nil),
            Segment(videoFile: a, videoPath: "a.mp4", label: "point", start: 1, end: 3, source: "", line: nil),
            Segment(videoFile: a, videoPath: "a.mp4", label: "grab", start: 1.5, end: 2.5, source: "", line: nil),
        ]
        let eaf = ElanWriter.document(segments, clip: a, savedAt: dir.appendingPathComponent("a.eaf"))
        XCTAssertTrue(eaf.contains("TIER_ID=\"labels-3\""))
        let set = load(try write("a.eaf", eaf))
        XCTAssertEqual(set.errors, [])
        XCTAssertEqual(Set(set.segments.map { "\($0.label) \($0.start!) \($0.end!)" }), ["wave 0.0 2.0", "point 1.0 3.0", "grab 1.5 2.5"])
        // Other tiers beside them still need --tier.
        XCTAssertTrue(ElanWriter.isLabelTier("labels-2"))
        XCTAssertFalse(ElanWriter.isLabelTier("labels-02"))
        XCTAssertFalse(ElanWriter.isLabelTier("labels-1"))
        XCTAssertFalse(ElanWriter.isLabelTier("labels2"))
    }
}
