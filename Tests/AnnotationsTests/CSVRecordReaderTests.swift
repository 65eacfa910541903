import XCTest
@testable import Annotations

/// The streaming CSV reader: fields, the line each record starts on, and what it refuses.
final class CSVRecordReaderTests: XCTestCase {
    /// Every record of `text`, read from chunks of `chunk` bytes.
    func records(_ text: String, chunk: Int = 1 << 20) -> [CSVRecord] {
        records(Array(text.utf8), chunk: chunk)
    }

    func records(_ bytes: [UInt8], chunk: Int = 1 << 20) -> [CSVRecord] {
        var offset = 0
        var reader = CSVRecordReader(chunks: {
            guard offset < bytes.count else { return nil }
            defer { offset += chunk }
            return Array(bytes[offset..<min(offset + chunk, bytes.count)])
        })
        var out: [CSVRecord] = []
        while let r = reader.next() { out.append(r) }
        return out
    }

    func testFieldsQuotingAndLines() {
        let text = "video,label\r\nclip.mp4,\"pinch, soft\"\r\n \"say \"\"hi\"\"\" ,x\n\"two\nlines\",y\rlast,\"\"\n"
        let r = records(text)
        XCTAssertEqual(r.map(\.fields), [["video", "label"], ["clip.mp4", "pinch, soft"], ["say \"hi\"", "x"], ["two\nlines", "y"], ["last", ""]])
        XCTAssertEqual(r.map(\.line), [1, 2, 3, 4, 6])
        XCTAssertTrue(r.allSatisfy { $0.problem == nil })
    }

    func testChunkBoundariesChangeNothing() {
        let text = "a,b\r\n\"x\r\ny\",\"q\"\"q\"\r\n\r\nc,d\rlast,\"é\""
        let whole = records(text)
        XCTAssertEqual(whole.count, 5)
        for size in 1...7 { XCTAssertEqual(records(text, chunk: size), whole, "chunks of \(size)") }
    }

    func testBlankLinesAreBlankRecordsOnTheirLines() {
        let r = records("a\n\n , \nb\n")
        XCTAssertEqual(r.map(\.line), [1, 2, 3, 4])
        XCTAssertEqual(r.map(\.isBlank), [false, true, true, false])
    }

    func testLastRecordWithoutNewlineAndTrailingComma() {
        XCTAssertEqual(records("a,b,").map(\.fields), [["a", "b", ""]])
        XCTAssertEqual(records("").count, 0)
    }

    func testDoubledQuoteInsideAnUnquotedValueIsOneQuote() {
        XCTAssertEqual(records("ab\"\"c,d\n").first?.fields, ["ab\"c", "d"])
    }

    func testStrayQuoteIsReportedAndReadingGoesOn() {
        let r = records("video,label\nclip.mp4,wa\"ve\"x\nclip.mp4,ok\n")
        XCTAssertEqual(r[1].problem, .strayQuote(line: 2, field: 2))
        XCTAssertEqual(r[1].fields, [])
        XCTAssertEqual(r[2].fields, ["clip.mp4", "ok"])
        XCTAssertEqual(r[2].line, 3)
    }

    func testTextAfterClosingQuote() {
        let r = records("a,\"b\"c,d\ne,f\n")
        XCTAssertEqual(r.first?.problem, .textAfterQuote(line: 1, field: 2))
        XCTAssertEqual(r.last?.fields, ["e", "f"])
    }

    func testUnclosedQuoteNamesTheLineItOpenedOn() {
        let r = records("a,b\nc,d\ne,\"never closed\nf,g\nh,i\n")
        XCTAssertEqual(r.count, 3)
        XCTAssertEqual(r.last?.problem, .unclosedQuote(line: 3, field: 2))
    }

    func testInvalidUTF8NamesLineFieldAndByte() {
        var bytes = Array("a,b\nok,".utf8)
        bytes += [0x61, 0x62, 0xFF, 0x63]
        bytes += Array("\nc,d\n".utf8)
        let r = records(bytes)
        XCTAssertEqual(r[1].problem, .notUTF8(line: 2, field: 2, byte: 2))
        XCTAssertEqual(r[2].fields, ["c", "d"])
    }

    func testOverlongValueKeepsOnlyItsStartAndLength() {
        let long = String(repeating: "é", count: CSVRecordReader.maxValueBytes)   // 2 bytes each
        let r = records("a,b\nx,\(long)\ny,z\n", chunk: 4096)
        guard case let .tooLong(line, field, head, characters)? = r[1].problem else { return XCTFail("\(String(describing: r[1].problem))") }
        XCTAssertEqual(line, 2)
        XCTAssertEqual(field, 2)
        XCTAssertEqual(characters, CSVRecordReader.maxValueBytes)
        XCTAssertLessThanOrEqual(head.utf8.count, 256)
        XCTAssertEqual(r[2].fields, ["y", "z"])
    }
}
