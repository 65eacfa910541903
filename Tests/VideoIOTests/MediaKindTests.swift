import Annotations
import Foundation
import XCTest
import VideoIO

/// One list of media extensions and one still-image rule: `extract`'s walk, the labelled folders of
/// `validate`/`export` and `VideoReader` must take, pass over and classify the same files.
final class MediaKindTests: XCTestCase {
    var dir: URL!
    override func setUp() { dir = ClipFactory.temporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    private func touch(_ url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: url.path, contents: Data("x".utf8)))
    }

    func testExtractionAndLabelledFoldersTakeTheSameFiles() throws {
        let unreadable = Array(MediaKind.unreadableImageExtensions.keys)
        let all = MediaKind.videoExtensions.union(MediaKind.imageExtensions).sorted() + unreadable + ["txt", "csv"]
        // Upper case too: extensions are compared lowercased everywhere.
        let names = all.map { "f_\($0).\($0)" } + ["upper.MP4", "upper.PNG", "upper.HEIC"]
        for name in names {
            try touch(dir.appendingPathComponent("clips/wave/\(name)"))
            try touch(dir.appendingPathComponent("stills/ok/\(name)"))
        }
        let found = try InputFiles.collect([dir.appendingPathComponent("clips").path], recursive: true)
        let extracted = Set(found.items.map { ($0.relative as NSString).lastPathComponent })
        let expectedVideos = Set(names.filter { MediaKind.isVideo(name: $0) })
        let expectedImages = Set(names.filter { MediaKind.isStillImage(name: $0) })
        XCTAssertEqual(extracted, expectedVideos.union(expectedImages))
        XCTAssertTrue(extracted.contains("f_wmv.wmv") && extracted.contains("f_ts.ts") && extracted.contains("f_mts.mts")
                      && extracted.contains("upper.MP4"))

        let actions = AnnotationSource.load(labelledFolder: dir.appendingPathComponent("clips"), poses: false)
        XCTAssertEqual(Set(actions.segments.map { $0.video.lastPathComponent }), expectedVideos)
        let poses = AnnotationSource.load(labelledFolder: dir.appendingPathComponent("stills"), poses: true)
        XCTAssertEqual(Set(poses.poses.map { $0.image.lastPathComponent }), expectedImages)
        // Every file `validate` accepts is one `extract` would take, and in the mode it reads it in.
        for s in poses.poses { XCTAssertTrue(InputFiles.isStillImage(s.image), s.image.path) }
        for s in actions.segments { XCTAssertFalse(InputFiles.isStillImage(s.video), s.video.path) }
    }

    func testHEICIsReportedByBothNotTaken() throws {
        // FFmpeg 5.1 cannot read HEIF: a HEIC pose was accepted by validate and then never extracted.
        XCTAssertFalse(MediaKind.isMedia(name: "photo.heic"))
        try touch(dir.appendingPathComponent("poses/ok/photo.heic"))
        try touch(dir.appendingPathComponent("poses/ok/photo.png"))
        let set = AnnotationSource.load(labelledFolder: dir.appendingPathComponent("poses"), poses: true)
        XCTAssertEqual(set.poses.map { $0.image.lastPathComponent }, ["photo.png"])
        let warned = set.log.kept.filter { $0.file.hasSuffix("photo.heic") }
        XCTAssertEqual(warned.count, 1, "\(set.log.kept)")
        XCTAssertTrue(warned.first?.message.contains("HEIC") == true, "\(warned)")

        let found = try InputFiles.collect([dir.appendingPathComponent("poses").path], recursive: true)
        XCTAssertEqual(found.items.map(\.relative), ["ok/photo.png"])
        XCTAssertEqual(found.skipped.map { ($0.path as NSString).lastPathComponent }, ["photo.heic"])
        XCTAssertEqual(found.skipped.first?.lost, false)
        XCTAssertEqual(found.otherFiles, 0, "a HEIC photo is said by name, not counted among other files")
    }

    func testReaderReportsStillImagesByTheSameRule() throws {
        // The same PNG bytes under an image name and under a clip name: FFmpeg's demuxer says "image"
        // for both, but extract tracks the second as a clip, and the reader must say what extract does.
        let frame = ClipFactory.frame(index: 3, width: 24, height: 16)
        let png = dir.appendingPathComponent("a.png")
        try ImageWriter.writePNG(frame, to: png)
        let asClip = dir.appendingPathComponent("a.mkv")
        try FileManager.default.copyItem(at: png, to: asClip)
        for url in [png, asClip] {
            let reader = try VideoReader(url: url)
            XCTAssertEqual(reader.info.isStillImage, MediaKind.isStillImage(url), url.lastPathComponent)
            XCTAssertEqual(reader.info.isStillImage, InputFiles.isStillImage(url), url.lastPathComponent)
        }
        XCTAssertTrue(try VideoReader(url: png).info.isStillImage)
        XCTAssertFalse(try VideoReader(url: asClip).info.isStillImage)
    }
}
