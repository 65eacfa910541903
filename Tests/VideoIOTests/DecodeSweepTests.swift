import Foundation
import TestSupport
@testable import VideoIO
import XCTest

/// Decodes stills and clips of awkward sizes with a guard page right after every buffer handed to
/// FFmpeg: a write (or read) past a buffer's documented padding faults here at once. Before buffers were
/// aligned and padded, 200x200 and 683x384 JPEGs corrupted the heap and aborted whole runs.
final class DecodeSweepTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL
    var dir: URL!
    var guardWas = false

    override func setUpWithError() throws {
        dir = ClipFactory.temporaryDirectory()
        guardWas = FFmpegImageBuffer.guardPages
        FFmpegImageBuffer.guardPages = true
    }

    override func tearDown() {
        FFmpegImageBuffer.guardPages = guardWas
        try? FileManager.default.removeItem(at: dir)
    }

    static let widths = Array(1...64) + [683, 1001]
    static let heights = [1, 2, 3, 385]

    func testStillsOfEverySizeAndEncodingDecode() throws {
        let python = Self.root.appendingPathComponent(".venv/bin/python")
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            print("SKIP: .venv absent; run `make setup`")
            throw Prerequisite.missing(".venv absent")
        }
        let made = try run(python.path, [Self.root.appendingPathComponent("scripts/make_stills.py").path, dir.path,
                                         Self.widths.map(String.init).joined(separator: ","),
                                         Self.heights.map(String.init).joined(separator: ",")])
        guard made.status == 0 else {
            if made.output.contains("No module named 'PIL'") { print("SKIP: Pillow absent from .venv; run `make setup`"); throw Prerequisite.missing("Pillow absent") }
            return XCTFail("make_stills.py failed: \(made.output)")
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        XCTAssertEqual(files.count, Self.widths.count * Self.heights.count * 7)
        var checked = 0
        for name in files {
            let url = dir.appendingPathComponent(name)
            let size = name.split(separator: "_")[1].split(separator: ".")[0].split(separator: "x").map { Int($0)! }
            let reader = try VideoReader(url: url)
            guard let frame = try reader.nextFrame() else { XCTFail("\(name): no frame"); continue }
            XCTAssertEqual([frame.width, frame.height], size, name)
            XCTAssertNil(try reader.nextFrame(), name)
            // The gradient's top-left pixel is near black, the bottom-right red and green channels near full.
            if frame.width > 8 && frame.height > 8 {
                let last = frame[frame.width - 1, frame.height - 1]
                XCTAssertGreaterThan(Int(last.g), 180, name)
            }
            checked += 1
        }
        XCTAssertEqual(checked, files.count)
    }

    func testShortClipsOfAwkwardSizesDecode() throws {
        guard let ffmpeg = ["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            print("SKIP: the ffmpeg command is absent; run `make setup`")
            throw Prerequisite.missing("ffmpeg command absent")
        }
        // (encoder, pixel format, container, sizes): 4:2:0 needs even sizes; 4:4:4 and MJPEG take any.
        let plans: [(String, String, String, [(Int, Int)])] = [
            ("libx264", "yuv420p", "mp4", [(6, 360), (2, 2), (64, 2), (682, 384), (1000, 386)]),
            ("libx264", "yuv444p", "mkv", [(3, 3), (683, 385), (1001, 3), (1, 385)]),
            ("mpeg4", "yuv420p", "mp4", [(6, 360), (2, 2), (64, 2), (682, 384)]),
            ("mjpeg", "yuvj422p", "avi", [(6, 360), (3, 2), (683, 385), (1001, 1)]),
            ("mjpeg", "yuvj420p", "mov", [(6, 360), (200, 200), (683, 384), (35, 17)]),
        ]
        var decoded = 0
        for (codec, pixfmt, container, sizes) in plans {
            for (w, h) in sizes {
                let url = dir.appendingPathComponent("\(codec)_\(pixfmt)_\(w)x\(h).\(container)")
                let made = try run(ffmpeg, ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=10",
                                            "-vf", "scale=\(w):\(h)", "-frames:v", "7", "-c:v", codec, "-pix_fmt", pixfmt, "-strict", "-1", url.path])
                guard made.status == 0 else {
                    if made.output.contains("Unknown encoder") { print("SKIP: \(codec) not in this FFmpeg"); continue }
                    XCTFail("ffmpeg could not write \(url.lastPathComponent): \(made.output)"); continue
                }
                let reader = try VideoReader(url: url)
                var n = 0
                while let f = try reader.nextFrame() {
                    XCTAssertEqual([f.width, f.height], [w, h], url.lastPathComponent)
                    n += 1
                }
                XCTAssertEqual(n, 7, url.lastPathComponent)
                decoded += 1
            }
        }
        XCTAssertGreaterThan(decoded, 15)
    }

    /// Every column is decoded: swscale's YUV-to-RGB loops convert 8 pixels at a time and, in a row too
    /// tight for the rounded-up width, left the last `width % 8` columns unwritten (340-pixel clips kept 4
    /// columns of stale memory, and their keypoints changed from run to run). A solid red clip must be
    /// red to its last column, in every even width from 330 to 346 and in 4:2:0 and 4:2:2.
    func testTheLastColumnsAreDecodedInEveryWidth() throws {
        guard let ffmpeg = ["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            print("SKIP: the ffmpeg command is absent; run `make setup`")
            throw Prerequisite.missing("ffmpeg command absent")
        }
        for (codec, pixfmt, container) in [("mpeg4", "yuv420p", "mp4"), ("mjpeg", "yuvj422p", "avi")] {
            for w in stride(from: 330, through: 346, by: 2) {
                let url = dir.appendingPathComponent("red_\(pixfmt)_\(w).\(container)")
                let made = try run(ffmpeg, ["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=red:size=\(w)x64:rate=10",
                                            "-frames:v", "2", "-c:v", codec, "-q:v", "2", "-pix_fmt", pixfmt, url.path])
                XCTAssertEqual(made.status, 0, made.output)
                let reader = try VideoReader(url: url)
                while let f = try reader.nextFrame() {
                    XCTAssertEqual([f.width, f.height], [w, 64], url.lastPathComponent)
                    for y in [0, 31, 63] where y < f.height {
                        for x in max(0, f.width - 9)..<f.width {
                            let p = f[x, y]
                            XCTAssertTrue(p.r > 200 && p.g < 60 && p.b < 60, "\(url.lastPathComponent) frame \(f.index) (\(x), \(y)) is \(p), not red")
                        }
                    }
                }
            }
        }
    }

    /// The buffer itself: rows aligned, the padding usable, the byte after it inaccessible.
    func testGuardPageSitsRightAfterThePadding() throws {
        let buffer = FFmpegImageBuffer(rowBytes: 683 * 3, rows: 3)
        XCTAssertEqual(buffer.lineSize % FFmpegImageBuffer.alignment, 0)
        XCTAssertEqual(Int(bitPattern: buffer.base) % FFmpegImageBuffer.alignment, 0)
        let end = buffer.base + buffer.lineSize * buffer.rows + FFmpegImageBuffer.padding
        (end - 1).pointee = 7   // the last padding byte is ours
        XCTAssertFalse(isReadable(end), "the page after the padding must be inaccessible")
        XCTAssertTrue(isReadable(end - 1))
    }

    /// Whether `p` may be read, asked without touching it: a pipe write copies from it, or fails with EFAULT.
    private func isReadable(_ p: UnsafeMutablePointer<UInt8>) -> Bool {
        var fds: [Int32] = [0, 0]
        pipe(&fds)
        defer { close(fds[0]); close(fds[1]) }
        return write(fds[1], p, 1) == 1   // EFAULT for an inaccessible page
    }

    private func run(_ tool: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        try ClipFactory.run(tool, arguments)
    }
}
