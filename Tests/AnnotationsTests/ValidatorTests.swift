import Foundation
import XCTest
@testable import Annotations
import VideoIO

/// What the validator reads of each file: every image decoded, every clip opened, and with `deep`
/// every frame decoded.
final class ValidatorTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("validator-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    /// A clip of noise, so that its frames, not its header, make up most of the file.
    static func writeNoisyClip(_ url: URL, frames: Int = 40, size: Int = 64) throws {
        let writer = try VideoWriter(url: url, width: size, height: size, frameRate: Rational(20, 1))
        var state: UInt32 = 12345
        for _ in 0..<frames {
            var f = VideoFrame(width: size, height: size)
            for i in f.pixels.indices {
                state = state &* 1_664_525 &+ 1_013_904_223   // Numerical Recipes' LCG: cheap, repeatable noise
                f.pixels[i] = UInt8(truncatingIfNeeded: state >> 24)
            }
            try writer.append(f)
        }
        try writer.finish()
    }

    /// The first `share` of `source`'s bytes, as an interrupted copy leaves them.
    static func truncatedCopy(of source: URL, to url: URL, share: Double) throws {
        let data = try Data(contentsOf: source)
        try data.prefix(Int(Double(data.count) * share)).write(to: url)
    }

    func poseFolder() throws -> URL {
        let root = dir.appendingPathComponent("poses")
        let fm = FileManager.default
        for label in ["wave", "Background"] { try fm.createDirectory(at: root.appendingPathComponent(label), withIntermediateDirectories: true) }
        var frame = VideoFrame(width: 16, height: 16)
        for i in frame.pixels.indices { frame.pixels[i] = UInt8(i % 251) }
        try ImageWriter.writePNG(frame, to: root.appendingPathComponent("wave/good.png"))
        try ImageWriter.writePNG(frame, to: root.appendingPathComponent("Background/good.png"))
        try Data((0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) }).write(to: root.appendingPathComponent("wave/noise.jpg"))
        return root
    }

    func testImagesThatDoNotDecodeAreErrorsWhenOpened() throws {
        let root = try poseFolder()
        var set = AnnotationSource.load(labelledFolder: root, poses: true)
        XCTAssertEqual(set.poses.count, 3)
        var validator = Validator()
        validator.openImages = true
        validator.check(&set)
        XCTAssertEqual(set.errors.map(\.file), [root.appendingPathComponent("wave/noise.jpg").path], "\(set.diagnostics)")
        XCTAssertEqual(set.errors.first?.kind.name, "unreadable image")
        XCTAssertEqual(set.errors.first?.message.hasPrefix("image cannot be decoded: "), true)
        XCTAssertGreaterThan(set.errors.first?.message.count ?? 0, "image cannot be decoded: ".count + 3, "FFmpeg's reason is missing")

        var unopened = AnnotationSource.load(labelledFolder: root, poses: true)
        Validator().check(&unopened)
        XCTAssertEqual(unopened.errors, [], "without openImages only existence is checked")
    }

    func testTruncatedClipIsFoundByItsIndexAndDecodingSaysWhere() throws {
        let whole = dir.appendingPathComponent("whole.avi"), cut = dir.appendingPathComponent("cut.avi")
        try Self.writeNoisyClip(whole)
        try Self.truncatedCopy(of: whole, to: cut, share: 0.3)
        let csv = dir.appendingPathComponent("a.csv")
        try Data("video,label\nwhole.avi,wave\ncut.avi,Background\n".utf8).write(to: csv)

        var shallow = AnnotationSource.load(annotationFile: csv)
        Validator().check(&shallow)
        // Without decoding: the index the cut copy keeps points past its end.
        XCTAssertEqual(shallow.errors.filter { $0.kind.name == "corrupt clip" }.map(\.line), [3], "\(shallow.diagnostics)")
        XCTAssertEqual(shallow.errors.first { $0.kind.name == "corrupt clip" }?.message.hasPrefix("video 'cut.avi' is truncated"), true)

        var deep = AnnotationSource.load(annotationFile: csv)
        var validator = Validator()
        validator.deep = true
        validator.check(&deep)
        let damaged = deep.errors.filter { $0.kind.name == "corrupt clip" }
        XCTAssertEqual(damaged.map(\.line), [3], "only the cut clip: \(deep.diagnostics)")
        XCTAssertEqual(damaged.first?.message.hasPrefix("video 'cut.avi' is damaged: decoding stopped at frame "), true, "\(damaged)")
        let frame = damaged.first.flatMap { Int($0.message.split(separator: " ")[8].prefix { $0.isNumber }) }
        XCTAssertNotNil(frame)
        XCTAssertLessThan(frame ?? 40, 40, "decoding must stop before the clip's 40 frames")
    }
}
