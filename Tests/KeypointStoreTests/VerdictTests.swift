import Foundation
import KeypointFormats
import KeypointStore
import Keypoints
import XCTest

/// `KeypointFolder.verdict`, the one rule `extract`, `status` and `export` use: each state from real
/// files on disk, and the order the checks are made in where two could apply.
final class VerdictTests: XCTestCase {
    var dir: URL!
    var folder: KeypointFolder!
    let asked = KeypointFile.Settings(model: "full", maxHands: 2, minDetectionConfidence: 0.5, minPresenceConfidence: 0.5,
                                      mode: "video", mirrored: false, smoothing: false, smoother: nil, rules: "tasks", pipeline: 2)
    let models = ["hand_landmark_full.tflite": "aa", "palm_detection_full.tflite": "bb"]

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("verdict-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("in"), withIntermediateDirectories: true)
        folder = KeypointFolder(dir.appendingPathComponent("kp"))
    }
    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    /// An input file (its bytes are not read) dated `age` seconds ago.
    func input(_ name: String, age: TimeInterval = 600) throws -> URL {
        let url = dir.appendingPathComponent("in/\(name)")
        try Data("not decoded here".utf8).write(to: url)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-age)], ofItemAtPath: url.path)
        return url
    }

    /// A keypoint file for `name`, made as asked unless changed by `edit`, dated `age` seconds ago.
    func keypoints(_ name: String, age: TimeInterval = 60, edit: (inout KeypointFile) -> Void = { _ in }) throws {
        var file = KeypointFile(source: name, width: 64, height: 48, fps: 10,
                                frames: [KeypointFile.Frame(i: 0, t: 0, hands: [])], tool: .handpose, settings: asked, models: models)
        file.video.decoder = "ffmpeg"
        edit(&file)
        let url = folder.keypointURL(for: name)
        try file.write(to: url)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-age)], ofItemAtPath: url.path)
    }

    func verdict(_ name: String, _ url: URL, formats: [OutputFormat] = [.json], models: [String: String]?? = .none) -> Verdict {
        let m: [String: String]? = models ?? self.models
        return folder.verdict(for: url, relative: name, asked: KeypointRequest(settings: asked, models: m, formats: formats))
    }

    func testEachStateFromFilesOnDisk() throws {
        let done = try input("done.mp4")
        try keypoints("done.mp4")
        XCTAssertEqual(verdict("done.mp4", done).state, .done)
        XCTAssertEqual(verdict("done.mp4", done).summary?.frames, 1)
        XCTAssertNotNil(verdict("done.mp4", done).file)

        XCTAssertEqual(verdict("missing.mp4", try input("missing.mp4")).state, .missing)

        let failed = try input("failed.mp4")
        FailureRecord(input: "failed.mp4", reason: "crashed (signal 11, SIGSEGV)").write(in: folder)
        let f = verdict("failed.mp4", failed)
        XCTAssertEqual(f.state, .failed)
        XCTAssertTrue(f.reason?.contains("SIGSEGV") == true, f.reason ?? "")

        let unreadable = try input("garbage.mp4")
        try FileManager.default.createDirectory(at: folder.root, withIntermediateDirectories: true)
        try Data("{\"schema\": 7".utf8).write(to: folder.keypointURL(for: "garbage.mp4"))
        XCTAssertEqual(verdict("garbage.mp4", unreadable).state, .unreadable)

        // An edited clip: the input is newer than its keypoints.
        let edited = try input("edited.mp4", age: 10)
        try keypoints("edited.mp4", age: 60)
        XCTAssertEqual(verdict("edited.mp4", edited).state, .stale)
        // An input that is gone cannot be vouched for.
        let gone = try input("gone.mp4")
        try keypoints("gone.mp4")
        try FileManager.default.removeItem(at: gone)
        XCTAssertEqual(verdict("gone.mp4", gone).state, .stale)

        let other = try input("other.mp4")
        try keypoints("other.mp4") { $0.settings?.maxHands = 1 }
        let o = verdict("other.mp4", other)
        XCTAssertEqual(o.state, .otherSettings)
        XCTAssertEqual(o.differences, [.init(field: .maxHands, recorded: "1", asked: "2")])
        XCTAssertEqual(o.reason, "maxHands: 1 (asked 2)")
        XCTAssertEqual(o.reason { "--\($0.rawValue)" }, "--maxHands 1 (asked 2)")
        let none = try input("none.mp4")
        try keypoints("none.mp4") { $0.settings = nil }
        XCTAssertEqual(verdict("none.mp4", none).state, .otherSettings)

        let otherModels = try input("models.mp4")
        try keypoints("models.mp4") { $0.models = ["hand_landmark_full.tflite": "cc", "palm_detection_full.tflite": "bb"] }
        XCTAssertEqual(verdict("models.mp4", otherModels).state, .otherModels)
        // Models not known here (status on a login node): not checked.
        XCTAssertEqual(verdict("models.mp4", otherModels, models: .some(nil)).state, .done)

        let damaged = try input("damaged.mp4")
        try keypoints("damaged.mp4") { $0.incomplete = .init(error: "frame 12: Invalid data", lastGoodFrame: 0) }
        let d = verdict("damaged.mp4", damaged)
        XCTAssertEqual(d.state, .incomplete)
        XCTAssertEqual(d.reason, "frame 12: Invalid data")
    }

    func testJPEGStillsReadBeforeLibjpegTurboAreMadeOtherwise() throws {
        for (name, decoder, expected) in [("old.jpg", nil, Verdict.State.otherSettings), ("old.JPEG", nil, .otherSettings),
                                          ("new.jpg", "libjpeg-turbo", .done), ("still.png", nil, .done)] as [(String, String?, Verdict.State)] {
            let url = try input(name)
            try keypoints(name) { $0.video.decoder = decoder }
            XCTAssertEqual(verdict(name, url).state, expected, name)
        }
    }

    func testCompanionFormatsAskedForMustBeBesideAndNewer() throws {
        let url = try input("clip.mp4")
        try keypoints("clip.mp4")
        XCTAssertEqual(verdict("clip.mp4", url, formats: [.json, .pose]).state, .missing)
        let pose = folder.url(for: "clip.mp4", format: .pose)
        try Data("pose".utf8).write(to: pose)
        XCTAssertEqual(verdict("clip.mp4", url, formats: [.json, .pose]).state, .done)
        // Older than the input: made for another version of the clip.
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-3600)], ofItemAtPath: pose.path)
        XCTAssertEqual(verdict("clip.mp4", url, formats: [.json, .pose]).state, .missing)
        XCTAssertEqual(verdict("clip.mp4", url).state, .done, "formats not asked for are not checked")
    }

    /// A companion whose size is not the one its keypoint file records was cut (an interrupted copy) or
    /// replaced: it is missing as asked, and the input is redone. Files that record no sizes (older ones) are not checked.
    func testACompanionOfAnotherSizeThanRecordedIsMissing() throws {
        let url = try input("clip.mp4")
        try keypoints("clip.mp4") { $0.outputs = ["pose": .init(bytes: 4)] }
        let pose = folder.url(for: "clip.mp4", format: .pose)
        try Data("pose".utf8).write(to: pose)
        XCTAssertEqual(verdict("clip.mp4", url, formats: [.json, .pose]).state, .done)
        for bytes in ["pos", "pose pose"] {
            try Data(bytes.utf8).write(to: pose)
            let v = verdict("clip.mp4", url, formats: [.json, .pose])
            XCTAssertEqual(v.state, .missing, bytes)
            XCTAssertEqual(v.reason, "its .pose file is \(bytes.utf8.count) bytes where its keypoint file records 4 (cut or replaced)")
        }
        // A link to a whole companion is judged by the file behind it; a folder in its place is no companion.
        let whole = dir.appendingPathComponent("elsewhere.pose")
        try Data("pose".utf8).write(to: whole)
        try FileManager.default.removeItem(at: pose)
        try FileManager.default.createSymbolicLink(at: pose, withDestinationURL: whole)
        XCTAssertEqual(verdict("clip.mp4", url, formats: [.json, .pose]).state, .done, "a link to a whole companion")
        try FileManager.default.removeItem(at: pose)
        try FileManager.default.createDirectory(at: pose, withIntermediateDirectories: false)
        XCTAssertEqual(verdict("clip.mp4", url, formats: [.json, .pose]).reason, "no .pose file beside its keypoints")
        try FileManager.default.removeItem(at: pose)
        try Data("pos".utf8).write(to: pose)
        try keypoints("clip.mp4")
        XCTAssertEqual(verdict("clip.mp4", url, formats: [.json, .pose]).state, .done, "no sizes recorded: not checked")
    }

    /// Another file put in the input's place with an older time (`cp -p`) is told apart by its size.
    func testAnInputOfAnotherSizeThanItsKeypointsRecordIsStale() throws {
        let url = try input("clip.mp4")
        let size = UInt64(try Data(contentsOf: url).count)
        try keypoints("clip.mp4") { $0.source.bytes = size }
        XCTAssertEqual(verdict("clip.mp4", url).state, .done)
        try keypoints("clip.mp4") { $0.source.bytes = size + 1 }
        let v = verdict("clip.mp4", url)
        XCTAssertEqual(v.state, .stale)
        XCTAssertEqual(v.reason, "the input is \(size) bytes, but its keypoints were made from one of \(size + 1) (another file in its place?)")
    }

    /// Where two checks could apply, the earlier one decides: a file made otherwise is redone whatever
    /// else is true of it, and a readable file outranks a failure record left by a later attempt.
    func testOrderOfTheChecks() throws {
        let both = try input("both.mp4")
        try keypoints("both.mp4") { $0.settings?.maxHands = 1; $0.incomplete = .init(error: "cut", lastGoodFrame: 0) }
        XCTAssertEqual(verdict("both.mp4", both).state, .otherSettings)
        let staleOther = try input("staleother.mp4", age: 10)
        try keypoints("staleother.mp4", age: 60) { $0.settings?.maxHands = 1 }
        XCTAssertEqual(verdict("staleother.mp4", staleOther).state, .stale)
        let kept = try input("kept.mp4")
        try keypoints("kept.mp4")
        FailureRecord(input: "kept.mp4", reason: "a later --overwrite attempt crashed").write(in: folder)
        XCTAssertEqual(verdict("kept.mp4", kept).state, .done)
        for state in Verdict.State.allCases {
            XCTAssertEqual(state.redoneByExtract, ![.done, .incomplete].contains(state), state.rawValue)
        }
    }

    /// An index line for a keypoint file of the same size and time stands in for reading it, except a
    /// JPEG's line from before decoders were recorded.
    func testCachedSummariesAreUsedOnlyWhenTheyCanDecide() throws {
        let url = try input("clip.mp4")
        try keypoints("clip.mp4")
        var cachedSummary: KeypointSummary?
        let first = folder.verdict(for: url, relative: "clip.mp4", asked: KeypointRequest(settings: asked, models: models))
        cachedSummary = first.summary
        cachedSummary?.frames = 99
        let second = folder.verdict(for: url, relative: "clip.mp4", asked: KeypointRequest(settings: asked, models: models)) { bytes, modified in
            bytes == first.summary?.bytes && modified == first.summary?.modified ? cachedSummary : nil
        }
        XCTAssertEqual(second.summary?.frames, 99, "the cached summary was used")
        XCTAssertNil(second.file)
        let jpeg = try input("a.jpg")
        try keypoints("a.jpg") { $0.video.decoder = "libjpeg-turbo" }
        let fromFile = folder.verdict(for: jpeg, relative: "a.jpg", asked: KeypointRequest(settings: asked, models: models))
        var old = fromFile.summary!
        old.decoder = nil
        let again = folder.verdict(for: jpeg, relative: "a.jpg", asked: KeypointRequest(settings: asked, models: models)) { _, _ in old }
        XCTAssertEqual(again.state, .done, "a cached line without a decoder is not trusted for a JPEG")
        XCTAssertNotNil(again.file)
    }
}
