@testable import Extraction
import FileSystem
import Foundation
import HandLandmarks
import Keypoints
import Synchronization
import TestSupport
import VideoIO
import XCTest

/// The decoding thread stops when inference or writing has failed a clip, instead of decoding the
/// rest of it for nothing; and `FrameQueue.cancel` never leaves a producer blocked.
final class KeypointExtractionTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL

    struct SinkFailed: Error {}

    func testDecodingStopsWhenTheSinkFails() throws {
        let models = try handModelsFolder(root: Self.root)
        let clip = Self.root.appendingPathComponent("Samples/montage_0.mp4")
        let total = try VideoReader(url: clip).info.frameCount
        XCTAssertGreaterThanOrEqual(total, 60, "the clip must be long next to the queue's depth")
        let tracker = try HandTracker(models: try HandModels(directory: models, complexity: .full), options: HandTrackerOptions(), threads: 1)
        var written = 0
        var decoded: Int?
        XCTAssertThrowsError(try KeypointExtraction.run(clip, sourcePath: "montage_0.mp4", tracker: tracker, tool: .handpose,
                                                        decodeThreads: 1, progress: { _ in }, decoderEnded: { decoded = $0 }) { _ in
            written += 1
            if written == 2 { throw SinkFailed() }
        }) { XCTAssertTrue($0 is SinkFailed, "\($0)") }
        XCTAssertEqual(written, 2)
        // Frame 2 failed; the queue holds one frame and one more may be decoding: a few frames at most.
        let n = try XCTUnwrap(decoded, "the decoding thread had ended before run returned")
        XCTAssertGreaterThanOrEqual(n, 2)
        XCTAssertLessThanOrEqual(n, 5, "decoded \(n) of \(total) frames after the clip had failed")

        // The same clip to its end decodes every frame, and the count says so.
        var all: Int?
        _ = try KeypointExtraction.run(clip, sourcePath: "montage_0.mp4", tracker: tracker, tool: .handpose,
                                       decodeThreads: 1, progress: { _ in }, decoderEnded: { all = $0 }) { _ in }
        XCTAssertEqual(all, total)
    }

    /// A clip replaced (a copy moved over it) or grown (a recording still being written) while it is read is an
    /// error of that clip naming what happened, and leaves no keypoint file: one made of other bytes would be taken
    /// as up to date by every later run.
    func testAClipReplacedOrGrownWhileReadIsAnError() throws {
        let models = try handModelsFolder(root: Self.root)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("changed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let tracker = try HandTracker(models: try HandModels(directory: models, complexity: .full), options: HandTrackerOptions(), threads: 1)
        let clip = dir.appendingPathComponent("x.mp4"), out = dir.appendingPathComponent("x.mp4.hands.json")
        for (change, expected) in [("replace", "replaced by another file"), ("grow", "changed while it was read")] {
            try? FileManager.default.removeItem(at: clip)
            try FileManager.default.copyItem(at: Self.root.appendingPathComponent("Samples/actions/wave_0.mp4"), to: clip)
            XCTAssertThrowsError(try KeypointExtraction.extract(clip, sourcePath: "x.mp4", tracker: tracker, tool: .handpose, to: out, progress: { n in
                guard n == 1 else { return }
                if change == "replace" {
                    let other = dir.appendingPathComponent("other.mp4")
                    try? FileManager.default.copyItem(at: Self.root.appendingPathComponent("Samples/actions/grab_0.mp4"), to: other)
                    _ = rename(other.path, clip.path)
                } else {
                    let h = FileHandle(forWritingAtPath: clip.path)!
                    h.seekToEndOfFile(); h.write(Data(count: 4096)); h.closeFile()
                }
            })) { error in
                XCTAssertTrue("\(error)".contains(expected), "\(change): \(error)")
            }
            XCTAssertFalse(FileManager.default.fileExists(atPath: out.path), change)
        }
        // Untouched, the same clip is extracted.
        try FileManager.default.copyItem(at: Self.root.appendingPathComponent("Samples/actions/wave_0.mp4"), to: dir.appendingPathComponent("y.mp4"))
        _ = try KeypointExtraction.extract(dir.appendingPathComponent("y.mp4"), sourcePath: "y.mp4", tracker: tracker, tool: .handpose,
                                           to: dir.appendingPathComponent("y.mp4.hands.json"))
        XCTAssertEqual(try KeypointFile.load(dir.appendingPathComponent("y.mp4.hands.json")).source.bytes,
                       RegularFile.stamp(dir.appendingPathComponent("y.mp4").path)?.bytes)
    }

    func testCancelReleasesABlockedProducer() {
        let queue = FrameQueue(capacity: 1)
        let frame = VideoFrame(index: 0, time: 0, width: 1, height: 1, pixels: [0, 0, 0])
        XCTAssertTrue(queue.push(.frame(frame)))
        let blocked = DispatchSemaphore(value: 0)
        let second = Mutex<Bool?>(nil)
        let producer = Thread {
            let pushed = queue.push(.frame(frame))   // the queue is full: waits until cancelled
            second.withLock { $0 = pushed }
            blocked.signal()
        }
        producer.start()
        usleep(20_000)
        queue.cancel()
        blocked.wait()
        XCTAssertEqual(second.withLock { $0 }, false)
        XCTAssertFalse(queue.push(.end), "a cancelled queue takes nothing more")
    }
}
