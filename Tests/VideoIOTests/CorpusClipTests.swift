import Foundation
import TestSupport
import VideoIO
import XCTest

/// Real clips from ../shared/corpus: frame counts and sizes must match what MediaPipe's run decoded.
final class CorpusClipTests: XCTestCase {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../shared/corpus").standardizedFileURL

    func testEveryCorpusClipDecodesToTheReferenceFrameCount() throws {
        let clips = Self.corpus.appendingPathComponent("clips")
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: clips.path), !names.isEmpty else {
            print("SKIP corpus clip tests: \(clips.path) is absent")
            throw Prerequisite.missing("shared corpus absent at \(clips.path)")
        }
        for name in names.sorted() {
            let ref = Self.corpus.appendingPathComponent("reference/\(name).hands.json")
            let json = try JSONSerialization.jsonObject(with: Data(contentsOf: ref)) as! [String: Any]
            let video = json["video"] as! [String: Int]
            let reader = try VideoReader(url: clips.appendingPathComponent(name))
            XCTAssertEqual(reader.info.width, video["width"], name)
            XCTAssertEqual(reader.info.height, video["height"], name)
            XCTAssertEqual(reader.info.frameCount, video["frames"], "\(name): probed count")
            var count = 0
            var last = -1.0
            while let f = try reader.nextFrame() {
                XCTAssertEqual(f.index, count)
                XCTAssertGreaterThan(f.time, last, "\(name): times must increase")
                last = f.time
                count += 1
            }
            XCTAssertEqual(count, video["frames"], "\(name): decoded count")
        }
    }
}
