@testable import Extraction
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
        let models = Self.root.appendingPathComponent("Models")
        guard FileManager.default.fileExists(atPath: models.appendingPathComponent("hand_landmark_full.tflite").path) else {
            print("SKIP: models absent in \(models.path); run `make setup`")
            throw Prerequisite.missing("models absent")
        }
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
