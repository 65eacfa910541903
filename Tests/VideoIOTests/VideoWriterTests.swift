import Foundation
import XCTest
@testable import VideoIO

/// Each container the writer takes plays at the rate it was given, and image names get their format.
final class VideoWriterTests: XCTestCase {
    var dir: URL!
    override func setUpWithError() throws { dir = ClipFactory.temporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    func testEveryContainerKeepsTheFrameRate() throws {
        for ext in ["mp4", "mkv", "mov", "avi", "gif"] {
            let url = dir.appendingPathComponent("clip.\(ext)")
            let writer = try VideoWriter(url: url, width: 48, height: 32, frameRate: Rational(12, 1))
            for i in 0..<24 { try writer.append(ClipFactory.frame(index: i, width: 48, height: 32)) }
            try writer.finish()
            let reader = try VideoReader(url: url)
            var n = 0, last = 0.0
            while let f = try reader.nextFrame() { n += 1; last = f.time }
            XCTAssertEqual(n, 24, ext)
            // 24 frames at 12 fps: the last one shows at 23/12 s, not 24x sooner (AVI once played at 600 fps).
            XCTAssertEqual(last, 23.0 / 12, accuracy: 0.02, ext)
            XCTAssertEqual(reader.info.averageFrameRate, 12, accuracy: 0.2, ext)
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix(".") }, [], ext)
        }
    }

    func testUnknownContainersAreRefusedBeforeWriting() {
        XCTAssertThrowsError(try VideoWriter.check(dir.appendingPathComponent("x.webp")))
        XCTAssertThrowsError(try VideoWriter(url: dir.appendingPathComponent("x.flac"), width: 8, height: 8, frameRate: Rational(10, 1)))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), [])
    }

    func testImagesAreWrittenInTheFormatTheirNameSays() throws {
        let frame = ClipFactory.frame(index: 5, width: 683, height: 17)
        let jpg = dir.appendingPathComponent("a.jpg"), png = dir.appendingPathComponent("a.png")
        try ImageWriter.write(frame, to: jpg)
        try ImageWriter.write(frame, to: png)
        XCTAssertEqual(Array(try Data(contentsOf: jpg).prefix(3)), [0xFF, 0xD8, 0xFF])
        XCTAssertEqual(Array(try Data(contentsOf: png).prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        for url in [jpg, png] {
            let back = try XCTUnwrap(try VideoReader(url: url).nextFrame())
            XCTAssertEqual([back.width, back.height], [683, 17])
            // Colours survive (JPEG within its quantisation).
            let a = frame[300, 10], b = back[300, 10]
            XCTAssertEqual(Double(a.r), Double(b.r), accuracy: 12, url.lastPathComponent)
            XCTAssertEqual(Double(a.b), Double(b.b), accuracy: 12, url.lastPathComponent)
        }
        XCTAssertThrowsError(try ImageWriter.write(frame, to: dir.appendingPathComponent("a.gifx")))
    }
}
