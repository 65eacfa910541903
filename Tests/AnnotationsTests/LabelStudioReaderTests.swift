import Foundation
import XCTest
@testable import Annotations

/// Label Studio's video timeline export: results as Label Studio's ML backend test holds them
/// (Tests/Fixtures/annotations), in the export's layout; frames from 1, end included; the frame rate
/// from the project's labeling config, never guessed; upload and local-files paths mapped to clips.
final class LabelStudioReaderTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("ls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("videos"), withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    /// An export of the fixture's task: its annotation (the real result items), plus a cancelled one, a
    /// task whose video was uploaded (the 8-hex-digit prefix), and one on local files.
    func export() throws -> (URL, URL) {
        let payload = try JSONSerialization.jsonObject(with: Data(contentsOf: ElanReaderTests.fixtures.appendingPathComponent("ls-ml-backend_test_timeline_labels_1.json"))) as! [String: Any]
        let annotation = payload["annotation"] as! [String: Any]
        let project = payload["project"] as! [String: Any]
        let config = dir.appendingPathComponent("config.xml")
        try (project["label_config"] as! String).write(to: config, atomically: true, encoding: .utf8)
        for name in ["opossum_snow_short.mp4", "clip.mp4", "walk.mp4"] {
            FileManager.default.createFile(atPath: dir.appendingPathComponent("videos/\(name)").path, contents: Data())
        }
        let tasks: [[String: Any]] = [
            ["id": 427616, "data": ["video": "tests/opossum_snow_short.mp4"],
             "annotations": [annotation.merging(["updated_at": "2025-01-02T00:00:00Z"]) { $1 },
                             ["id": 1, "was_cancelled": true, "updated_at": "2025-03-01T00:00:00Z",
                              "result": [["type": "timelinelabels", "to_name": "video", "from_name": "videoLabels", "value": ["ranges": [["start": 1, "end": 2]], "timelinelabels": ["Car"]]]]]],
             "predictions": []],
            ["id": 7, "data": ["video": "/data/upload/42/1a2b3c4d-clip.mp4"], "file_upload": "1a2b3c4d-clip.mp4",
             "annotations": [["id": 9, "result": [["id": "x", "type": "timelinelabels", "to_name": "video", "from_name": "videoLabels",
                                                     "value": ["ranges": [["start": 25, "end": 25]], "timelinelabels": ["croquet_ball"]]]]]]],
            ["id": 8, "data": ["video": "/data/local-files/?d=videos%2Fwalk.mp4"], "annotations": [], "predictions": []],
        ]
        let url = dir.appendingPathComponent("project-42-export.json")
        try JSONSerialization.data(withJSONObject: tasks).write(to: url)
        return (url, config)
    }

    func load(_ url: URL, config: URL?, frameRate: Double? = nil) -> AnnotationSet {
        var o = AnnotationOptions()
        o.labelConfig = config; o.frameRate = frameRate
        return AnnotationSource.load(annotationFile: url, root: dir, options: o)
    }

    func testAnExportReadWithItsProjectsFrameRate() throws {
        let (url, config) = try export()
        XCTAssertEqual(AnnotationFormat.detect(url), .labelStudio)
        let set = load(url, config: config)
        XCTAssertEqual(set.errors, [])
        // framerate="25.0": frames 1-10 are [0, 0.4) s, 5-15 [0.16, 0.6); one frame, 25-25, is [0.96, 1.0).
        XCTAssertEqual(set.segments.map(\.label), ["Car", "croquet_ball", "croquet_ball"])
        XCTAssertEqual(set.segments.map(\.videoPath), ["videos/opossum_snow_short.mp4", "videos/opossum_snow_short.mp4", "videos/clip.mp4"])
        let times = set.segments.map { [$0.start!, $0.end!] }
        for (got, want) in zip(times, [[0, 0.4], [0.16, 0.6], [0.96, 1.0]]) {
            XCTAssertEqual(got[0], want[0], accuracy: 1e-12); XCTAssertEqual(got[1], want[1], accuracy: 1e-12)
        }
        XCTAssertTrue(set.segments[0].context?.contains("task 1 (id 427616), annotation 1478, result 1") == true, set.segments[0].context ?? "")
        XCTAssertTrue(set.warnings.contains { $0.message.contains("task 3 (id 8): no annotation and no prediction") })
    }

    /// A labeling config gets the pre-check ELAN files get: FoundationXML traps on a processing instruction
    /// without data, and reads declared entities as nothing. Each is an error naming the config and line.
    func testAConfigTheXMLReaderCannotTakeSafelyIsRefusedWithItsLine() throws {
        let (url, config) = try export()
        let video = "<Video name=\"video\" value=\"$video\" frameRate=\"25.0\"/>"
        let cases: [(String, Int, String)] = [
            ("<View>\n<?pi?>\(video)</View>", 2, "processing instruction"),
            ("<!DOCTYPE View [<!ENTITY r \"25.0\">]>\n<View><Video name=\"video\" value=\"$video\" frameRate=\"&r;\"/></View>", 1, "entity"),
            ("<View>\n\n<Header value=\"caf\u{E9}\"/>\(video)</View>", 3, "not UTF-8"),
        ]
        for (text, line, words) in cases {
            var data = Data(text.utf8)
            if words == "not UTF-8" { data = text.data(using: .isoLatin1)! }
            try data.write(to: config)
            let set = load(url, config: config)
            XCTAssertTrue(set.segments.isEmpty, words)
            let error = try XCTUnwrap(set.errors.first, words)
            XCTAssertEqual(error.file, config.path, words)
            XCTAssertEqual(error.line, line, words)
            XCTAssertTrue(error.message.contains(words), "\(words): \(error.message)")
        }
    }

    func testTheFrameRateIsNeverGuessed() throws {
        let (url, config) = try export()
        let none = load(url, config: nil)
        XCTAssertTrue(none.segments.isEmpty)
        XCTAssertEqual(none.errors.first?.kind, .frameRateUnknown)
        XCTAssertTrue(none.errors.first?.hint?.contains("--label-config") == true)
        // A config without frameRate (Label Studio would assume 24) is refused too.
        try "<View><TimelineLabels name=\"videoLabels\" toName=\"video\"/><Video name=\"video\" value=\"$video\"/></View>".write(to: config, atomically: true, encoding: .utf8)
        XCTAssertEqual(load(url, config: config).errors.first?.kind, .frameRateUnknown)
        // $fps reads it from each task's data; --frame-rate gives it directly.
        try "<View><Video name=\"video\" value=\"$video\" frameRate=\"$fps\"/></View>".write(to: config, atomically: true, encoding: .utf8)
        XCTAssertEqual(load(url, config: config).errors.first?.kind, .frameRateUnknown, "the tasks have no fps")
        XCTAssertEqual(load(url, config: nil, frameRate: 50).segments.first?.end, 0.2)
    }

    func testTwoClipsOfOneNameAreNotPicked() throws {
        let (url, config) = try export()
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("more"), withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: dir.appendingPathComponent("more/clip.mp4").path, contents: Data())
        let set = load(url, config: config)
        let e = try XCTUnwrap(set.errors.first { $0.kind == .mediaAmbiguous })
        XCTAssertTrue(e.message.hasPrefix("task 2 (id 7): 2 clips named 'clip.mp4'"), e.message)
    }
    /// The export is read one task at a time: a task's findings name the line it starts on, text that
    /// stops being JSON is reported where it stops (tasks are not read from a broken export), and a
    /// root object is read as one task.
    func testReadOneTaskAtATimeWithLines() throws {
        FileManager.default.createFile(atPath: dir.appendingPathComponent("videos/a.mp4").path, contents: Data())
        let task = { (id: Int, start: Int) in
            "{\"id\": \(id), \"data\": {\"video\": \"/data/upload/1/0123abcd-a.mp4\"},\n \"annotations\": [{\"id\": \(id), \"result\": [{\"id\": \"r\", \"type\": \"timelinelabels\", \"value\": {\"ranges\": [{\"start\": \(start), \"end\": 20}], \"timelinelabels\": [\"wave\"]}}]}]}"
        }
        let url = dir.appendingPathComponent("export.json")
        try "[\n\(task(1, 1)),\n\(task(2, 30)),\n\(task(3, 5))\n]\n".write(to: url, atomically: true, encoding: .utf8)
        let set = load(url, config: nil, frameRate: 10)
        XCTAssertEqual(set.segments.map { [$0.start!, $0.end!] }, [[0, 2], [0.4, 2]])
        XCTAssertEqual(set.segments.map(\.line), [2, 6], "each segment names its task's first line")
        let bad = try XCTUnwrap(set.errors.first { $0.kind == .startNotBeforeEnd })
        XCTAssertEqual(bad.line, 4)
        XCTAssertTrue(bad.message.hasPrefix("task 2 (id 2), annotation 2, result r: frames 30 to 20"), bad.message)

        try "[\n\(task(1, 1)),\n\(task(2, 1))\n\"oops\": 1]\n".write(to: url, atomically: true, encoding: .utf8)
        let broken = load(url, config: nil, frameRate: 10)
        XCTAssertTrue(broken.segments.isEmpty)
        XCTAssertEqual(broken.errors.map(\.kind), [.jsonSyntax])
        XCTAssertEqual(broken.errors.first?.line, 6)
        XCTAssertEqual(broken.errors.first?.column, 1)

        try task(9, 1).write(to: url, atomically: true, encoding: .utf8)
        XCTAssertEqual(load(url, config: nil, frameRate: 10).segments.count, 1, "a root object is one task")
    }

    /// An item of the wrong type in `annotations`, `ranges` or `timelinelabels`, and `true` as a frame, are
    /// each an error naming the file, the task's line and the result; the other items are read. (A cast of
    /// the whole array dropped every range of the result, without a word, and `true` read as frame 1.)
    func testItemsOfTheWrongTypeAreErrorsAndTheRestIsRead() throws {
        FileManager.default.createFile(atPath: dir.appendingPathComponent("videos/a.mp4").path, contents: Data())
        let url = dir.appendingPathComponent("export.json")
        try """
        [
        {"id": 1, "data": {"video": "/data/upload/1/0123abcd-a.mp4"}, "annotations": [7, {"id": 2, "result": [{"id": "r", "type": "timelinelabels",
         "value": {"ranges": [{"start": 1, "end": 10}, 5, {"start": true, "end": 20}], "timelinelabels": ["wave", 3]}}]}]}
        ]

        """.write(to: url, atomically: true, encoding: .utf8)
        let set = load(url, config: nil, frameRate: 10)
        XCTAssertEqual(set.segments.map { [$0.start!, $0.end!] }, [[0, 1]], "the good range is read, and only it")
        XCTAssertEqual(set.segments.map(\.label), ["wave"])
        let messages = set.errors.map(\.message)
        for expected in ["task 1 (id 1): annotations item 1 is not an object",
                         "task 1 (id 1), annotation 2, result r: ranges item 2 is not an object",
                         "task 1 (id 1), annotation 2, result r: a range whose start or end is true or false",
                         "task 1 (id 1), annotation 2, result r: timelinelabels item 2 is not a string"] {
            XCTAssertTrue(messages.contains { $0.hasPrefix(expected) }, "\(expected) in \(messages)")
        }
        XCTAssertEqual(set.errors.count, 4, "\(messages)")
        XCTAssertEqual(Set(set.errors.map(\.line)), [2], "each names its task's line")
        XCTAssertEqual(Set(set.errors.map(\.file)), [url.path])
        XCTAssertEqual(LabelStudioReader.number(NSNumber(value: 3)), 3)
        XCTAssertNil(LabelStudioReader.number(NSNumber(value: true)))
    }

    /// The labeling config is read once, and the bytes pre-checked are the bytes parsed: `videoTags` refuses
    /// what the pre-check refuses whoever calls it, and what cannot be read is refused, never passed.
    func testAConfigIsCheckedAndParsedFromTheSameBytes() throws {
        let video = "<Video name=\"video\" value=\"$video\" frameRate=\"25.0\"/>"
        XCTAssertEqual(LabelStudioReader.videoTags(Data("<View>\(video)</View>".utf8))?.first?.frameRate, "25.0")
        XCTAssertNil(LabelStudioReader.videoTags(Data("<View>\n<?pi?>\(video)</View>".utf8)))
        if case .success = LabelStudioReader.readConfig(dir.path) { XCTFail("a folder was read as a config") }
        let (url, _) = try export()
        let set = load(url, config: dir)
        XCTAssertTrue(set.segments.isEmpty)
        XCTAssertEqual(set.errors.first?.file, dir.path)
        XCTAssertTrue(set.errors.first?.message.contains("cannot read this labeling config: is a folder") == true, "\(set.errors)")
    }
}
