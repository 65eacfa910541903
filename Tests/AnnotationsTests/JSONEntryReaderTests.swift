import XCTest
@testable import Annotations

/// The streaming JSON reader: elements with their lines and values, and where broken text stops it.
final class JSONEntryReaderTests: XCTestCase {
    func read(_ text: String, chunk: Int = 1 << 20) -> ([JSONElement], JSONProblem?) {
        read(Array(text.utf8), chunk: chunk)
    }

    func read(_ bytes: [UInt8], chunk: Int = 1 << 20) -> ([JSONElement], JSONProblem?) {
        var offset = 0
        var reader = JSONEntryReader(chunks: {
            guard offset < bytes.count else { return nil }
            defer { offset += chunk }
            return Array(bytes[offset..<min(offset + chunk, bytes.count)])
        })
        var out: [JSONElement] = []
        let problem = reader.read { out.append($0) }
        return (out, problem)
    }

    let sample = """
    [
      {"video": "a \\"b\\"\\u00e9\\ud83d\\udc4b.mp4", "start": -1.5e1, "end": 0,
       "x": [1, {"y": null}], "ok": true, "no": null},
      "not an object",
      {}
    ]
    """

    func testValuesAndLines() {
        let (elements, problem) = read(sample)
        XCTAssertNil(problem)
        XCTAssertEqual(elements.map(\.line), [2, 4, 5])
        let members = elements[0].members ?? []
        XCTAssertEqual(members.map(\.key), ["video", "start", "end", "x", "ok", "no"])
        XCTAssertEqual(members.map(\.value), [.text("a \"b\"é👋.mp4"), .number("-1.5e1"), .number("0"), .nested, .bool(true), .null])
        XCTAssertNil(elements[1].members)
        XCTAssertEqual(elements[2].members?.count, 0)
    }

    func testChunkBoundariesChangeNothing() {
        let whole = read(sample)
        for size in [1, 2, 3, 5] {
            let (elements, problem) = read(sample, chunk: size)
            XCTAssertEqual(elements, whole.0, "chunks of \(size)")
            XCTAssertNil(problem)
        }
    }

    func testBrokenTextNamesLineAndColumn() {
        XCTAssertEqual(read("[\n  {\"video\": \"a\" \"label\": \"x\"}\n]").1, .syntax(line: 2, column: 17, expected: "',' or '}' in an object"))
        XCTAssertEqual(read("[{\"a\": 1},]").1, .syntax(line: 1, column: 11, expected: "a value"))
        XCTAssertEqual(read("[{\"a\": 01}]").1, .syntax(line: 1, column: 8, expected: "a value"))
        XCTAssertEqual(read("[{\"a\": \"x\ny\"}]").1, .syntax(line: 1, column: 10, expected: "a control character written as an escape (\\n, \\t, \\u0000)"))
        XCTAssertEqual(read("[{\"a\": \"\\q\"}]").1, .syntax(line: 1, column: 10, expected: "an escape such as \\n, \\\" or \\u00e9"))
        XCTAssertEqual(read("[{\"a\": tru}]").1, .syntax(line: 1, column: 11, expected: "'true'"))
        XCTAssertEqual(read("[{\"a\": \"open").1, .syntax(line: 1, column: 13, expected: "a closing quote"))
        XCTAssertEqual(read("[] x").1, .syntax(line: 1, column: 4, expected: "the end of the file"))
        XCTAssertEqual(read("").1, .syntax(line: 1, column: 1, expected: "a JSON array"))
        XCTAssertEqual(read(String(repeating: "[", count: 1000)).1, .syntax(line: 1, column: 257, expected: "less nesting"))
    }

    func testRootMustBeAnArray() {
        XCTAssertEqual(read("{\"video\": \"a.mp4\"}").1, .rootNotArray)
        XCTAssertEqual(read(" 3 ").1, .rootNotArray)
    }

    func testInvalidUTF8InAString() {
        var bytes = Array("[\n {\"a\": \"ok\", \"b\": \"x".utf8)
        bytes += [0xC3, 0x28]
        bytes += Array("\"}]".utf8)
        XCTAssertEqual(read(bytes).1, .notUTF8(line: 2, column: 19))
    }

    func testOverlongStringKeepsItsStartAndLength() {
        let long = String(repeating: "é", count: JSONEntryReader.maxValueBytes)
        let (elements, problem) = read("[{\"video\": \"\(long)\"}]", chunk: 4096)
        XCTAssertNil(problem)
        guard case let .tooLong(head, characters)? = elements.first?.members?.first?.value else { return XCTFail("\(elements)") }
        XCTAssertEqual(characters, JSONEntryReader.maxValueBytes)
        XCTAssertTrue(head.hasPrefix("éé"))
    }

    /// What a JSON annotation file's two passes make of it.
    private struct Collected: AnnotationEntrySink {
        var log = DiagnosticLog()
        var names: [String] = []
        var entries: [RawEntry] = []
        mutating func header(_ names: [String]) { self.names = names }
        mutating func entry(_ e: RawEntry) { entries.append(e) }
    }

    /// A file rewritten between the check and the reading (an editor saving, a sync) is an error, never a
    /// trap on a key the header lacks, nor a shorter file read as whole.
    func testAFileThatChangesBetweenItsTwoPassesIsAnError() {
        let first = #"[{"video": "a.mp4", "label": "wave"}, {"video": "b.mp4", "label": "grab"}]"#
        let seconds = [
            "a key the first pass never saw": #"[{"video": "a.mp4", "label": "wave", "start": 0}, {"video": "b.mp4", "label": "grab"}]"#,
            "cut to one entry": #"[{"video": "a.mp4", "label": "wave"}]"#,
            "cut inside an entry": #"[{"video": "a.mp4", "label": "wave"}, {"video": "b.m"#,
            "a third entry": #"[{"video": "a.mp4", "label": "wave"}, {"video": "b.mp4", "label": "grab"}, {"video": "c.mp4"}]"#,
        ]
        for (what, second) in seconds {
            var passes = 0
            var sink = Collected()
            AnnotationFileReader.readJSON(chunks: {
                passes += 1
                return CSVRecordReader.once(Array((passes == 1 ? first : second).utf8))
            }, file: "labels.json", into: &sink)
            XCTAssertEqual(passes, 2, what)
            XCTAssertTrue(sink.log.kept.contains { $0.severity == .error && $0.message.contains("changed while it was read") },
                          "\(what): \(sink.log.kept.map(\.message))")
        }
        var passes = 0
        var same = Collected()
        AnnotationFileReader.readJSON(chunks: { passes += 1; return CSVRecordReader.once(Array(first.utf8)) }, file: "labels.json", into: &same)
        XCTAssertEqual(same.entries.count, 2)
        XCTAssertFalse(same.log.kept.contains { $0.severity == .error }, "\(same.log.kept.map(\.message))")
    }
}
