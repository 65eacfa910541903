import Foundation
import XCTest
@testable import Annotations

/// ELAN files as ELAN saved them (Tests/Fixtures/annotations, with their provenance) and made-up
/// ones for the edge cases: tiers chosen by name or glob, times as ELAN places them (unaligned slots,
/// REF_ANNOTATIONs, TIME_ORIGIN), the clip found from the paths the file holds or by its unique name,
/// and every problem named with the tier, the annotation id and the XML line.
final class ElanReaderTests: XCTestCase {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Fixtures/annotations").standardizedFileURL
    var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("elan-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    /// A fixture copied into the test folder, beside an (empty) file standing for each clip named.
    func fixture(_ name: String, clips: [String] = []) throws -> URL {
        let to = dir.appendingPathComponent(name)
        try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent(name), to: to)
        for c in clips {
            let url = dir.appendingPathComponent(c)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            FileManager.default.createFile(atPath: url.path, contents: Data())
        }
        return to
    }

    func load(_ url: URL, tiers: [String] = [], map: [String: String] = [:], mediaRoot: URL? = nil, root: URL? = nil) -> AnnotationSet {
        var o = AnnotationOptions()
        o.tiers = tiers; o.labelMap = map; o.mediaRoot = mediaRoot
        return AnnotationSource.load(annotationFile: url, root: root, options: o)
    }

    func testFormatIsToldByContent() throws {
        let eaf = try fixture("pympi_fto.eaf")
        let renamed = dir.appendingPathComponent("annotations.csv")
        try FileManager.default.copyItem(at: eaf, to: renamed)
        XCTAssertEqual(AnnotationFormat.detect(renamed), .elan, "an .eaf saved under another name is still ELAN")
        XCTAssertEqual(AnnotationFormat.detect(head: Data("video,label\n".utf8), name: "a.csv"), .createMLCSV)
        XCTAssertEqual(AnnotationFormat.detect(head: Data("[{\"video\": \"a.mp4\"}]".utf8), name: "a.json"), .createMLJSON)
        XCTAssertEqual(AnnotationFormat.detect(head: Data("[{\"id\": 1, \"data\": {\"video\": \"a.mp4\"}, \"annotations\": []}]".utf8), name: "x.json"), .labelStudio)
    }

    /// ELAN's demo file: eleven tiers, so none is guessed; W-Words holds an unaligned slot (ts62), which
    /// ELAN places at 11705 ms, halfway between its own tier's neighbours (11470, 11940), not between
    /// the neighbours in TIME_ORDER (ts63 = 11840 belongs to another tier). The clip is found by the
    /// name in MEDIA_URL (file:///D:/Data/elan/elan-example1.mpg, another machine's path).
    func testELANsDemoFile() throws {
        let eaf = try fixture("poio-api_example.eaf", clips: ["elan-example1.mpg"])
        let all = load(eaf)
        XCTAssertTrue(all.segments.isEmpty)
        let choice = try XCTUnwrap(all.errors.first { $0.kind == .tierChoice })
        XCTAssertTrue(choice.message.contains("11 tiers hold annotations"), choice.message)
        XCTAssertTrue(choice.hint?.contains("'W-Words' (97 annotations, type 'words', parent 'W-Spch')") == true, choice.hint ?? "")

        let words = load(eaf, tiers: ["W-Words"])
        XCTAssertEqual(words.errors, [])
        XCTAssertEqual(words.segments.count, 97)
        XCTAssertEqual(words.segments.first?.videoPath, "elan-example1.mpg")
        let a57 = try XCTUnwrap(words.segments.first { $0.line == 485 })
        let a58 = try XCTUnwrap(words.segments.first { $0.line == 490 })
        XCTAssertEqual(a57.start!, 11.470, accuracy: 1e-9); XCTAssertEqual(a57.end!, 11.705, accuracy: 1e-9)
        XCTAssertEqual(a58.start!, 11.705, accuracy: 1e-9); XCTAssertEqual(a58.end!, 11.940, accuracy: 1e-9)
        XCTAssertEqual(a57.context, "tier 'W-Words', annotation a57")

        // A glob over four tiers; REF annotations (gesture meaning) take their parent's times.
        let k = load(eaf, tiers: ["K-*"])
        XCTAssertEqual(k.errors, [])
        XCTAssertEqual(k.segments.count, 12)
        XCTAssertEqual(k.segments.filter { $0.context?.hasPrefix("tier 'K-RGMe'") == true }.map { [$0.start!, $0.end!] }, [[23.52, 23.8]])
        // A REF tier whose parent has an unaligned slot: placed as the parent's own tier places it; an
        // empty value is an error naming the annotation and its line, not a class.
        let pos = load(eaf, tiers: ["W-POS"])
        XCTAssertEqual(pos.errors.map(\.location), [eaf.path + ":802"])
        XCTAssertTrue(pos.errors[0].message.contains("tier 'W-POS', annotation a120: empty value"), pos.errors[0].message)
        XCTAssertEqual(pos.segments.first { $0.context == "tier 'W-POS', annotation a154" }.map { [$0.start!, $0.end!] }, [11.47, 11.705])
        XCTAssertEqual(load(eaf, tiers: ["nothing*"]).errors.first?.kind, .tierChoice)
    }

    /// Symbolic_Subdivision: the words of an utterance split its time evenly in PREVIOUS_ANNOTATION order
    /// (integer milliseconds, as ELAN); RELATIVE_MEDIA_URL written as file:/./turkish.wav.
    func testSymbolicSubdivisionAndAnOldRelativeURL() throws {
        let eaf = try fixture("poio-api_turkish.eaf", clips: ["turkish.wav"])
        let morphs = load(eaf, tiers: ["P-Morph"])
        XCTAssertEqual(morphs.errors, [])
        XCTAssertEqual(morphs.segments.count, 126)
        XCTAssertEqual(morphs.segments.first?.video.lastPathComponent, "turkish.wav")
        XCTAssertEqual(Array(morphs.segments.prefix(3).map(\.label)), ["dün", "akşam", "koş"])
        XCTAssertEqual(morphs.segments[0].start!, 0.040, accuracy: 1e-9)
        XCTAssertEqual(morphs.segments[0].end!, morphs.segments[1].start!, accuracy: 1e-9)
        // Consecutive pieces of one parent share their boundaries and cover it.
        let words = load(eaf, tiers: ["P-Word"])
        XCTAssertEqual(words.segments[0].start, morphs.segments[0].start)
        XCTAssertEqual(words.segments[1].end, morphs.segments[1].end)
    }

    /// The clip's paths lead nowhere here (another machine's): named in the error with the place searched.
    func testAClipNotFoundNamesWhereItLooked() throws {
        let eaf = try fixture("pympi_fto.eaf")
        let set = load(eaf, tiers: ["a"])
        let e = try XCTUnwrap(set.errors.first)
        XCTAssertEqual(e.kind, .noSuchFile)
        XCTAssertTrue(e.message.contains("/home/marlub/Documents/BC-FULL/00/BC_00L_bre_C.wav") && e.message.contains("BC_00L_bre_C.wav' under"), e.message)
        XCTAssertEqual(e.line, 4)
    }

    /// A made-up file with each edge case at once.
    func testEdgeCases() throws {
        let eaf = dir.appendingPathComponent("session.eaf")
        try """
        <?xml version="1.0" encoding="UTF-8"?>
        <ANNOTATION_DOCUMENT AUTHOR="" DATE="2026-01-01T00:00:00+00:00" FORMAT="3.0" VERSION="3.0">
            <HEADER MEDIA_FILE="" TIME_UNITS="milliseconds">
                <MEDIA_DESCRIPTOR MEDIA_URL="file:///elsewhere/audio.wav" MIME_TYPE="audio/x-wav" RELATIVE_MEDIA_URL="./audio.wav"/>
                <MEDIA_DESCRIPTOR MEDIA_URL="file:///C:/Users/me/clips/take%201.mp4" MIME_TYPE="video/mp4" TIME_ORIGIN="500"/>
            </HEADER>
            <TIME_ORDER>
                <TIME_SLOT TIME_SLOT_ID="ts1" TIME_VALUE="1000"/>
                <TIME_SLOT TIME_SLOT_ID="ts2"/>
                <TIME_SLOT TIME_SLOT_ID="ts3" TIME_VALUE="2000"/>
                <TIME_SLOT TIME_SLOT_ID="ts4" TIME_VALUE="1500"/>
                <TIME_SLOT TIME_SLOT_ID="ts5" TIME_VALUE="3000"/>
                <TIME_SLOT TIME_SLOT_ID="ts6" TIME_VALUE="3000"/>
                <TIME_SLOT TIME_SLOT_ID="ts7" TIME_VALUE="4000"/>
                <TIME_SLOT TIME_SLOT_ID="ts8" TIME_VALUE="5000"/>
                <TIME_SLOT TIME_SLOT_ID="ts9"/>
            </TIME_ORDER>
            <TIER LINGUISTIC_TYPE_REF="gesture" TIER_ID="right hand">
                <ANNOTATION><ALIGNABLE_ANNOTATION ANNOTATION_ID="a1" TIME_SLOT_REF1="ts1" TIME_SLOT_REF2="ts2"><ANNOTATION_VALUE>wave</ANNOTATION_VALUE></ALIGNABLE_ANNOTATION></ANNOTATION>
                <ANNOTATION><ALIGNABLE_ANNOTATION ANNOTATION_ID="a2" TIME_SLOT_REF1="ts2" TIME_SLOT_REF2="ts3"><ANNOTATION_VALUE>Wave </ANNOTATION_VALUE></ALIGNABLE_ANNOTATION></ANNOTATION>
                <ANNOTATION><ALIGNABLE_ANNOTATION ANNOTATION_ID="a3" TIME_SLOT_REF1="ts4" TIME_SLOT_REF2="ts5"><ANNOTATION_VALUE>point</ANNOTATION_VALUE></ALIGNABLE_ANNOTATION></ANNOTATION>
                <ANNOTATION><ALIGNABLE_ANNOTATION ANNOTATION_ID="a4" TIME_SLOT_REF1="ts5" TIME_SLOT_REF2="ts6"><ANNOTATION_VALUE>point</ANNOTATION_VALUE></ALIGNABLE_ANNOTATION></ANNOTATION>
                <ANNOTATION><ALIGNABLE_ANNOTATION ANNOTATION_ID="a5" TIME_SLOT_REF1="ts7" TIME_SLOT_REF2="ts8"><ANNOTATION_VALUE>  </ANNOTATION_VALUE></ALIGNABLE_ANNOTATION></ANNOTATION>
                <ANNOTATION><ALIGNABLE_ANNOTATION ANNOTATION_ID="a6" TIME_SLOT_REF1="ts8" TIME_SLOT_REF2="ts9"><ANNOTATION_VALUE>noise</ANNOTATION_VALUE></ALIGNABLE_ANNOTATION></ANNOTATION>
            </TIER>
            <TIER LINGUISTIC_TYPE_REF="meaning" PARENT_REF="right hand" TIER_ID="meaning">
                <ANNOTATION><REF_ANNOTATION ANNOTATION_ID="a7" ANNOTATION_REF="a3"><ANNOTATION_VALUE>there</ANNOTATION_VALUE></REF_ANNOTATION></ANNOTATION>
            </TIER>
            <LINGUISTIC_TYPE LINGUISTIC_TYPE_ID="gesture" TIME_ALIGNABLE="true"/>
            <LINGUISTIC_TYPE CONSTRAINTS="Symbolic_Association" LINGUISTIC_TYPE_ID="meaning" TIME_ALIGNABLE="false"/>
            <CONSTRAINT DESCRIPTION="1-1 association with a parent annotation" STEREOTYPE="Symbolic_Association"/>
        </ANNOTATION_DOCUMENT>
        """.write(to: eaf, atomically: true, encoding: .utf8)
        // The video descriptor, not the audio one; its Windows path leads nowhere here, so the one clip
        // of its name under the media root; two of them are an error naming both.
        let clips = dir.appendingPathComponent("clips")
        try FileManager.default.createDirectory(at: clips.appendingPathComponent("day1"), withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: clips.appendingPathComponent("day1/take 1.mp4").path, contents: Data())
        let set = load(eaf, tiers: ["right*"], map: ["Wave": "wave", "noise": ""], mediaRoot: clips)
        XCTAssertEqual(set.segments.first?.videoPath, "clips/day1/take 1.mp4")
        // ts2 has no time: halfway between ts1 and ts3 on its tier; TIME_ORIGIN (500 ms) added.
        XCTAssertEqual(set.segments.map { [$0.start!, $0.end!] }, [[1.5, 2.0], [2.0, 2.5], [2.0, 3.5]])
        XCTAssertEqual(set.segments.map(\.label), ["wave", "wave", "point"], "Wave merged into wave; noise dropped")
        func problem(_ id: String) -> Diagnostic? { set.diagnostics.first { $0.message.contains("annotation \(id)") } }
        XCTAssertEqual(problem("a4")?.kind, .startNotBeforeEnd)   // zero length
        XCTAssertTrue(problem("a4")?.message.contains("tier 'right hand', annotation a4: zero length") == true)
        XCTAssertEqual(problem("a4")?.line, 22)
        XCTAssertEqual(problem("a5")?.kind, .emptyLabel)
        XCTAssertEqual(problem("a6")?.kind, .unaligned, "ts9 has no aligned slot after it")
        XCTAssertEqual(set.diagnostics.first { $0.kind == .overlap }?.message.contains("annotation a3 overlaps annotation a2"), true)
        let meaning = load(eaf, tiers: ["meaning"], mediaRoot: clips)
        XCTAssertEqual(meaning.segments.map { [$0.start!, $0.end!] }, [[2.0, 3.5]], "a REF annotation takes its parent's times")

        FileManager.default.createFile(atPath: clips.appendingPathComponent("take 1.mp4").path, contents: Data())
        let twice = load(eaf, tiers: ["right hand"], mediaRoot: clips)
        XCTAssertTrue(twice.segments.isEmpty)
        XCTAssertEqual(twice.errors.first?.kind, .mediaAmbiguous)
        XCTAssertTrue(twice.errors.first?.message.contains("clips/day1/take 1.mp4") == true && twice.errors.first?.message.contains("clips/take 1.mp4") == true)
        // A clip found outside the annotation root has no name for its keypoints.
        XCTAssertEqual(load(eaf, tiers: ["right hand"], mediaRoot: clips.appendingPathComponent("day1"), root: clips.appendingPathComponent("day1/x")).errors.first?.kind, .outsideRoot)
    }

    /// More annotations than one chunk of the reader's store (65,536) on a tier: every one read, with
    /// its own times, id and line, whether the store frees chunks as it goes (all slots aligned) or
    /// keeps them for a REF tier and an unaligned slot (then times depend on other annotations).
    func testManyAnnotationsAcrossChunks() throws {
        let n = 70_000
        func write(dependent: Bool) throws -> URL {
            var x = """
            <?xml version="1.0" encoding="UTF-8"?>
            <ANNOTATION_DOCUMENT FORMAT="3.0" VERSION="3.0">
             <HEADER TIME_UNITS="milliseconds"><MEDIA_DESCRIPTOR MEDIA_URL="file:///x/clip.mp4" MIME_TYPE="video/mp4" RELATIVE_MEDIA_URL="./clip.mp4"/></HEADER>
             <TIME_ORDER>

            """
            for i in 0..<n { x += "  <TIME_SLOT TIME_SLOT_ID=\"ts\(2 * i + 1)\" TIME_VALUE=\"\(i * 10)\"/><TIME_SLOT TIME_SLOT_ID=\"ts\(2 * i + 2)\" TIME_VALUE=\"\(i * 10 + 7)\"/>\n" }
            if dependent { x += "  <TIME_SLOT TIME_SLOT_ID=\"ts900001\"/><TIME_SLOT TIME_SLOT_ID=\"ts900002\" TIME_VALUE=\"\(n * 10 + 100)\"/>\n" }
            x += " </TIME_ORDER>\n <TIER LINGUISTIC_TYPE_REF=\"g\" TIER_ID=\"RH\">\n"
            for i in 0..<n {
                // Every tenth id is not of ELAN's `aN` form (files from other tools).
                let id = i % 10 == 3 ? "x-\(i)" : "a\(i + 1)"
                x += "  <ANNOTATION><ALIGNABLE_ANNOTATION ANNOTATION_ID=\"\(id)\" TIME_SLOT_REF1=\"ts\(2 * i + 1)\" TIME_SLOT_REF2=\"ts\(2 * i + 2)\"><ANNOTATION_VALUE>c\(i % 7)</ANNOTATION_VALUE></ALIGNABLE_ANNOTATION></ANNOTATION>\n"
            }
            if dependent {
                x += "  <ANNOTATION><ALIGNABLE_ANNOTATION ANNOTATION_ID=\"last\" TIME_SLOT_REF1=\"ts\(2 * n)\" TIME_SLOT_REF2=\"ts900001\"><ANNOTATION_VALUE>tail</ANNOTATION_VALUE></ALIGNABLE_ANNOTATION></ANNOTATION>\n"
                x += "  <ANNOTATION><ALIGNABLE_ANNOTATION ANNOTATION_ID=\"end\" TIME_SLOT_REF1=\"ts900001\" TIME_SLOT_REF2=\"ts900002\"><ANNOTATION_VALUE>tail</ANNOTATION_VALUE></ALIGNABLE_ANNOTATION></ANNOTATION>\n"
            }
            x += " </TIER>\n"
            if dependent {
                x += " <TIER LINGUISTIC_TYPE_REF=\"m\" PARENT_REF=\"RH\" TIER_ID=\"meaning\">\n"
                x += "  <ANNOTATION><REF_ANNOTATION ANNOTATION_ID=\"r1\" ANNOTATION_REF=\"a69999\"><ANNOTATION_VALUE>m</ANNOTATION_VALUE></REF_ANNOTATION></ANNOTATION>\n </TIER>\n"
            }
            x += "</ANNOTATION_DOCUMENT>\n"
            let url = dir.appendingPathComponent(dependent ? "dependent.eaf" : "plain.eaf")
            try x.write(to: url, atomically: true, encoding: .utf8)
            return url
        }
        FileManager.default.createFile(atPath: dir.appendingPathComponent("clip.mp4").path, contents: Data())
        for dependent in [false, true] {
            let set = load(try write(dependent: dependent), tiers: ["RH"])
            XCTAssertEqual(set.errorCount, 0, "\(set.errors.prefix(3))")
            XCTAssertEqual(set.segments.count, n + (dependent ? 2 : 0))
            for i in [0, 1, 3, 65_535, 65_536, 65_537, n - 1] {
                let s = set.segments[i]
                XCTAssertEqual(s.start, Double(i * 10) / 1000)
                XCTAssertEqual(s.end, Double(i * 10 + 7) / 1000)
                XCTAssertEqual(s.label, "c\(i % 7)")
                XCTAssertEqual(s.contextItem, i % 10 == 3 ? "x-\(i)" : "a\(i + 1)")
                XCTAssertEqual(s.line, n + 7 + (dependent ? 1 : 0) + i, "the annotation's XML line")
            }
            if dependent {
                // ts900001 has no time: halfway between ts140000 (699,997 ms) and ts900002 (700,100 ms).
                XCTAssertEqual(set.segments[n].end, Double(699_997 + (700_100 - 699_997) / 2) / 1000)
                XCTAssertEqual(load(dir.appendingPathComponent("dependent.eaf"), tiers: ["meaning"]).segments.map { [$0.start!, $0.end!] },
                               [[699.98, 699.987]], "the REF annotation's parent is in the tier's second chunk")
            }
        }
    }

    /// A dependent tier of 20,000 annotations referring to one parent, linked by PREVIOUS_ANNOTATION and
    /// written in reverse: each gets its share of the parent's time in link order. Each chain is ordered once
    /// (it was ordered once an annotation, with a linear search in each: about 10^12 steps, hours, here).
    func testALongChainOfReferringAnnotationsIsOrderedOnce() throws {
        let m = 20_000
        var x = """
        <?xml version="1.0" encoding="UTF-8"?>
        <ANNOTATION_DOCUMENT FORMAT="3.0" VERSION="3.0">
         <HEADER TIME_UNITS="milliseconds"><MEDIA_DESCRIPTOR MEDIA_URL="file:///x/clip.mp4" MIME_TYPE="video/mp4" RELATIVE_MEDIA_URL="./clip.mp4"/></HEADER>
         <TIME_ORDER><TIME_SLOT TIME_SLOT_ID="ts1" TIME_VALUE="0"/><TIME_SLOT TIME_SLOT_ID="ts2" TIME_VALUE="\(m)"/></TIME_ORDER>
         <TIER LINGUISTIC_TYPE_REF="g" TIER_ID="RH">
          <ANNOTATION><ALIGNABLE_ANNOTATION ANNOTATION_ID="a1" TIME_SLOT_REF1="ts1" TIME_SLOT_REF2="ts2"><ANNOTATION_VALUE>sign</ANNOTATION_VALUE></ALIGNABLE_ANNOTATION></ANNOTATION>
         </TIER>
         <TIER LINGUISTIC_TYPE_REF="m" PARENT_REF="RH" TIER_ID="parts">

        """
        for k in (0..<m).reversed() {
            let previous = k == 0 ? "" : " PREVIOUS_ANNOTATION=\"a\(k + 1)\""
            x += "  <ANNOTATION><REF_ANNOTATION ANNOTATION_ID=\"a\(k + 2)\" ANNOTATION_REF=\"a1\"\(previous)><ANNOTATION_VALUE>p\(k)</ANNOTATION_VALUE></REF_ANNOTATION></ANNOTATION>\n"
        }
        x += " </TIER>\n</ANNOTATION_DOCUMENT>\n"
        let url = dir.appendingPathComponent("chain.eaf")
        try x.write(to: url, atomically: true, encoding: .utf8)
        FileManager.default.createFile(atPath: dir.appendingPathComponent("clip.mp4").path, contents: Data())
        let set = load(url, tiers: ["parts"])
        XCTAssertEqual(set.errorCount, 0, "\(set.errors.prefix(3))")
        XCTAssertEqual(set.segments.count, m)
        for s in set.segments where ["p0", "p1", "p7777", "p\(m - 1)"].contains(s.label) {
            let k = Double(Int(s.label.dropFirst())!)
            XCTAssertEqual(s.start, k / 1000, s.label)
            XCTAssertEqual(s.end, (k + 1) / 1000, s.label)
        }
    }

    func testNotELANAndBrokenXML() throws {
        let bad = dir.appendingPathComponent("bad.eaf")
        try "<ANNOTATION_DOCUMENT>\n<TIME_ORDER>\n<TIME_SLOT TIME_SLOT_ID=\"ts1\" TIME_VALUE=\"10\">\n</ANNOTATION_DOCUMENT>\n".write(to: bad, atomically: true, encoding: .utf8)
        let set = load(bad)
        XCTAssertEqual(set.errors.first?.kind, .elanStructure)
        XCTAssertNotNil(set.errors.first?.line)
        XCTAssertTrue(set.segments.isEmpty)
    }

    func testLabelMapFromPairsAndFiles() throws {
        let file = dir.appendingPathComponent("map.txt")
        try "# merge spellings\nWave = wave\n\nnoise=\n".write(to: file, atomically: true, encoding: .utf8)
        XCTAssertEqual(try AnnotationOptions.labelMap([file.path, "hi=wave"]), ["Wave": "wave", "noise": "", "hi": "wave"])
        XCTAssertThrowsError(try AnnotationOptions.labelMap(["=x"]))
        XCTAssertThrowsError(try AnnotationOptions.labelMap([dir.appendingPathComponent("absent").path]))
    }

    /// All a `PrecheckedXMLInput` hands on, as XMLParser reads it, and its last answer (0 at the end, -1 stopped).
    func drain(_ input: PrecheckedXMLInput) -> (bytes: [UInt8], last: Int) {
        var out: [UInt8] = [], buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBufferPointer { input.read($0.baseAddress!, maxLength: $0.count) }
            if n <= 0 { return (out, n) }
            out += buffer[..<n]
        }
    }

    /// The parser is handed only bytes the pre-check has passed, from the one open the check read: a
    /// processing instruction past the first chunk stops the stream before that chunk reaches the parser, a
    /// file swapped at the path after the open is not what is parsed, and a file that cannot be read is an
    /// error, never an unchecked pass (the pre-check opened the path again, and passed what it could not open).
    func testTheParserIsHandedOnlyTheBytesThePreCheckPassed() throws {
        let chunk = AnnotationFileReader.chunkSize
        let url = dir.appendingPathComponent("late-pi.eaf")
        var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ANNOTATION_DOCUMENT>\n"
        while text.utf8.count < chunk + 100 { text += "<!-- filler filler filler filler filler filler filler filler -->\n" }
        let piLine = text.filter { $0 == "\n" }.count + 1
        text += "<?pi?>\n</ANNOTATION_DOCUMENT>\n"
        try text.write(to: url, atomically: true, encoding: .utf8)
        let late = PrecheckedXMLInput(handle: try XCTUnwrap(FileHandle(forReadingAtPath: url.path)))
        let (handed, last) = drain(late)
        XCTAssertEqual(last, -1)
        XCTAssertEqual(handed.count, chunk, "the first chunk, checked, and nothing of the one holding <?pi?>")
        XCTAssertEqual(late.problem, .processingInstruction(line: piLine))
        let set = load(url)
        XCTAssertEqual(set.errors.first?.line, piLine, "\(set.errors)")
        XCTAssertTrue(set.errors.first?.message.contains("processing instruction") == true, "\(set.errors)")

        // Opened, then another file put at its path: the bytes handed on are the file opened, all of them.
        let good = dir.appendingPathComponent("good.eaf"), bad = dir.appendingPathComponent("bad.eaf")
        let original = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ANNOTATION_DOCUMENT></ANNOTATION_DOCUMENT>\n"
        try original.write(to: good, atomically: true, encoding: .utf8)
        let opened = PrecheckedXMLInput(handle: try XCTUnwrap(FileHandle(forReadingAtPath: good.path)))
        try "<?xml version=\"1.0\"?>\n<?pi?><ANNOTATION_DOCUMENT/>\n".write(to: bad, atomically: true, encoding: .utf8)
        try FileManager.default.removeItem(at: good)
        try FileManager.default.moveItem(at: bad, to: good)
        let swapped = drain(opened)
        XCTAssertEqual(swapped.last, 0)
        XCTAssertEqual(swapped.bytes, Array(original.utf8))
        XCTAssertNil(opened.problem)

        // A descriptor that cannot be read (opened for writing): an error, and nothing handed on.
        let unreadable = PrecheckedXMLInput(handle: try XCTUnwrap(FileHandle(forWritingAtPath: good.path)))
        let none = drain(unreadable)
        XCTAssertEqual(none.last, -1)
        XCTAssertEqual(none.bytes, [])
        XCTAssertNotNil(unreadable.readError)
        XCTAssertNil(unreadable.problem)
    }

    /// A label map saved with CR LF line ends is read line by line (it was one line: "\r\n" is one
    /// Character, so the map was silently ignored), and a control character in a label or class is an
    /// error naming the map and line.
    func testALabelMapWithCRLFLinesAndControlCharacters() throws {
        let file = dir.appendingPathComponent("crlf.txt")
        try "# merge spellings\r\nWave = wave\r\n\r\nnoise=\r\n".write(to: file, atomically: true, encoding: .utf8)
        XCTAssertEqual(try AnnotationOptions.labelMap([file.path]), ["Wave": "wave", "noise": ""])
        try "Wave = wave\nbell\u{7}=ring\n".write(to: file, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try AnnotationOptions.labelMap([file.path])) { error in
            XCTAssertTrue("\(error)".contains("\(file.path):2"), "\(error)")
            XCTAssertTrue("\(error)".contains("control character"), "\(error)")
        }
        // A lone CR inside a line is a control character too, not a line break.
        try "a=b\rc=d\n".write(to: file, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try AnnotationOptions.labelMap([file.path])) { XCTAssertTrue("\($0)".contains(":1"), "\($0)") }
    }
}
