import BodyLandmarks
import Extraction
import Foundation
import HandLandmarks
import Keypoints
import TestSupport
import XCTest

/// Keypoints/keypoints.schema.json against real files: one `extract` makes from a sample clip and
/// image with the real models, MediaPipe's reference files when ../shared is present, and a broken
/// file the schema must refuse (so the check can fail).
final class KeypointSchemaTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL

    func testRealOutputsMatchTheSchema() throws {
        let python = Self.root.appendingPathComponent(".venv/bin/python")
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            print("SKIP: \(python.path) is absent; run `make setup`")
            throw Prerequisite.missing("no .venv")
        }
        let models = try handModelsFolder(root: Self.root)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("schema-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let handModels = try HandModels(directory: models, complexity: .full)
        var files: [URL] = []
        for (relative, mode) in [("actions/wave_0.mp4", HandTrackerOptions.Mode.video), ("poses/fist/fist_0.png", .image)] {
            var options = HandTrackerOptions()
            options.mode = mode
            let tracker = try HandTracker(models: handModels, options: options)
            let out = dir.appendingPathComponent((relative as NSString).lastPathComponent + ".hands.json")
            _ = try KeypointExtraction.extract(Self.root.appendingPathComponent("Samples/\(relative)"), sourcePath: relative,
                                               tracker: tracker, tool: .handpose, to: out)
            files.append(out)
        }
        // Files of extract --body (format version 2): a clip of rendered hands (every frame's bodies
        // empty), and a photo of a person from the shared corpus where it is present.
        let bodyModels = try BodyModels(directory: models)
        let body = try BodyTracker(models: bodyModels, options: BodyTrackerOptions())
        var bodyInputs = [(Self.root.appendingPathComponent("Samples/actions/wave_0.mp4"), "wave_0.mp4", HandTrackerOptions.Mode.video)]
        let person = Self.root.appendingPathComponent("../shared/corpus/images/mp_gesture_call_1.jpg").standardizedFileURL
        if FileManager.default.fileExists(atPath: person.path) { bodyInputs.append((person, "mp_gesture_call_1.jpg", .image)) }
        for (url, relative, mode) in bodyInputs {
            var options = HandTrackerOptions()
            options.mode = mode
            let tracker = try HandTracker(models: handModels, options: options)
            let out = dir.appendingPathComponent("body-" + relative + ".hands.json")
            _ = try KeypointExtraction.extract(url, sourcePath: relative, tracker: tracker, body: body, tool: .handpose, to: out)
            XCTAssertEqual(try KeypointFile.load(out).schema, KeypointFile.bodySchemaName)
            files.append(out)
        }
        // A copy with a hand of 20 landmarks must fail.
        var broken = try JSONSerialization.jsonObject(with: Data(contentsOf: files[0])) as! [String: Any]
        var frames = broken["frames"] as! [[String: Any]]
        let k = try XCTUnwrap(frames.firstIndex { !($0["hands"] as! [Any]).isEmpty }, "the sample clip has a hand")
        var hands = frames[k]["hands"] as! [[String: Any]]
        hands[0]["landmarks"] = Array((hands[0]["landmarks"] as! [Any]).dropLast())
        frames[k]["hands"] = hands
        broken["frames"] = frames
        let brokenURL = dir.appendingPathComponent("broken.hands.json")
        try JSONSerialization.data(withJSONObject: broken).write(to: brokenURL)

        let corpus = Self.root.appendingPathComponent("../shared/corpus").standardizedFileURL
        var references: [URL] = []
        for sub in ["reference", "reference_tasks"] {
            let folder = corpus.appendingPathComponent(sub)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            references += names.filter { $0.hasSuffix(".hands.json") }.sorted().prefix(3).map { folder.appendingPathComponent($0) }
        }
        if references.isEmpty { print("note: ../shared/corpus is absent; only handpose's own outputs are checked") }

        let script = """
        import json, sys, jsonschema
        schema = json.load(open(sys.argv[1]))
        jsonschema.Draft202012Validator.check_schema(schema)
        v = jsonschema.Draft202012Validator(schema)
        ok, bad = sys.argv[2].split('|'), sys.argv[3]
        for p in ok:
            errors = list(v.iter_errors(json.load(open(p))))
            assert not errors, (p, errors[0].message)
        errors = list(v.iter_errors(json.load(open(bad))))
        assert errors and 'landmarks' in list(errors[0].absolute_path), [e.message for e in errors]
        print('schema: %d files valid, the broken one refused: %s' % (len(ok), errors[0].message[:60]))
        """
        let p = Process()
        p.executableURL = python
        p.arguments = ["-c", script, Self.root.appendingPathComponent("Keypoints/keypoints.schema.json").path,
                       (files + references).map(\.path).joined(separator: "|"), brokenURL.path]
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = pipe
        try p.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        print(output)
        if output.contains("No module named 'jsonschema'") {
            print("SKIP: .venv has no jsonschema; run `make setup`")
            throw Prerequisite.missing("no jsonschema")
        }
        XCTAssertEqual(p.terminationStatus, 0, output)
    }
}
