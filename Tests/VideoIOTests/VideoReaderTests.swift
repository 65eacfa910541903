import CFFmpeg
import Foundation
import TestSupport
@testable import VideoIO
import XCTest

final class VideoReaderTests: XCTestCase {
    var dir: URL!
    override func setUp() { dir = ClipFactory.temporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    func testFramesComeBackInOrderWithTheirTimes() throws {
        let url = try ClipFactory.write(dir.appendingPathComponent("a.mp4"), frames: 40)
        let reader = try VideoReader(url: url)
        XCTAssertEqual(reader.info.frameCount, 40)
        XCTAssertFalse(reader.info.frameCountIsEstimate)
        XCTAssertEqual(reader.info.averageFrameRate, 25, accuracy: 0.01)
        XCTAssertEqual(reader.info.width, 96)
        XCTAssertEqual(reader.info.height, 64)
        let frames = try ClipFactory.readAll(url)
        XCTAssertEqual(frames.count, 40)
        for (i, f) in frames.enumerated() {
            XCTAssertEqual(f.index, i)
            XCTAssertEqual(ClipFactory.drawnIndex(f), i, "pixels of frame \(i)")
            XCTAssertEqual(f.time, Double(i) / 25, accuracy: 1e-3)
        }
    }

    func testNTSCRate() throws {
        let url = try ClipFactory.write(dir.appendingPathComponent("ntsc.mp4"), frames: 30, rate: Rational(rate: 29.97))
        let reader = try VideoReader(url: url)
        XCTAssertEqual(reader.info.averageFrameRate, 30000.0 / 1001, accuracy: 1e-3)
        let frames = try ClipFactory.readAll(url)
        XCTAssertEqual(frames.count, 30)
        XCTAssertEqual(frames[29].time, 29 * 1001 / 30000.0, accuracy: 1e-4)
    }

    func testVariableRateKeepsRealTimestamps() throws {
        let times = [0, 0.04, 0.1, 0.13, 0.3, 0.31, 0.5, 0.9, 0.95, 1.2]
        let url = try ClipFactory.write(dir.appendingPathComponent("vfr.mkv"), frames: times.count, times: times)
        let frames = try ClipFactory.readAll(url)
        XCTAssertEqual(frames.map(\.index), Array(0..<times.count))
        for (f, t) in zip(frames, times) { XCTAssertEqual(f.time, t, accuracy: 2e-3) }
    }

    func testOddSizes() throws {
        let url = try ClipFactory.write(dir.appendingPathComponent("odd.mp4"), frames: 5, width: 97, height: 51)
        let frames = try ClipFactory.readAll(url)
        XCTAssertEqual(frames.count, 5)
        XCTAssertEqual(frames[0].width, 97)
        XCTAssertEqual(frames[0].height, 51)
        XCTAssertEqual(frames.map(ClipFactory.drawnIndex), [0, 1, 2, 3, 4])
    }

    func testRotationMetadataIsApplied() throws {
        let url = try ClipFactory.write(dir.appendingPathComponent("portrait.mp4"), frames: 3, width: 96, height: 64, rotation: 90)
        let reader = try VideoReader(url: url)
        XCTAssertEqual(reader.info.rotation, 90)
        XCTAssertEqual(reader.info.width, 64)
        XCTAssertEqual(reader.info.height, 96)
        let f = try XCTUnwrap(reader.nextFrame())
        XCTAssertEqual(f.width, 64)
        XCTAssertEqual(f.height, 96)
        // Turned clockwise, the source's top-left block (bit 0 of index 0: dark) lands top-right,
        // and the index blocks run down the right edge.
        let unrotated = f.oriented(exif: 8)
        XCTAssertEqual(unrotated.width, 96)
        XCTAssertEqual(ClipFactory.drawnIndex(unrotated), 0)
        let second = try XCTUnwrap(reader.nextFrame()).oriented(exif: 8)
        XCTAssertEqual(ClipFactory.drawnIndex(second), 1)
    }

    /// Frames are read with the YUV matrix and range the clip declares, as FFmpeg's scale filter reads
    /// them and so OpenCV's FFmpeg back end (MediaPipe's users' decoder): pixel for pixel the same as
    /// `ffmpeg -pix_fmt rgb24`. swscale's own default (BT.601, limited) was up to 16 levels off on
    /// BT.709 footage, which moved keypoints on HD clips.
    func testDeclaredColourSpaceIsReadAsFFmpegReadsIt() throws {
        let ffmpeg = try ffmpegCommand()
        let dir = ClipFactory.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for (space, range) in [("bt709", "tv"), ("smpte170m", "tv"), ("bt709", "pc"), ("bt2020nc", "tv")] {
            let clip = dir.appendingPathComponent("\(space)-\(range).mkv")
            let made = try ClipFactory.run(ffmpeg, ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=96x64:rate=5", "-frames:v", "2",
                                                               "-pix_fmt", "yuv420p", "-colorspace", space, "-color_range", range,
                                                               "-c:v", "ffv1", clip.path])
            XCTAssertEqual(made.status, 0, made.output)
            let raw = dir.appendingPathComponent("\(space)-\(range).rgb")
            let dumped = try ClipFactory.run(ffmpeg, ["-v", "error", "-i", clip.path, "-f", "rawvideo", "-pix_fmt", "rgb24", raw.path])
            XCTAssertEqual(dumped.status, 0, dumped.output)
            let expected = [UInt8](try Data(contentsOf: raw))
            let frames = try ClipFactory.readAll(clip)
            XCTAssertEqual(frames.count, 2)
            XCTAssertEqual(expected.count, 2 * 96 * 64 * 3)
            let ours = frames.flatMap(\.pixels)
            let worst = zip(ours, expected).map { abs(Int($0) - Int($1)) }.max() ?? -1
            XCTAssertEqual(worst, 0, "\(space) \(range): largest difference from ffmpeg's RGB")
        }
    }

    func testSeekIsFrameAccurate() throws {
        let url = try ClipFactory.write(dir.appendingPathComponent("seek.mp4"), frames: 90, rate: Rational(30, 1))
        let reader = try VideoReader(url: url)
        for (start, end) in [(1.0, 1.5), (0.0, 0.2), (2.5, 10.0), (1.37, 1.41)] {
            let frames = try reader.frames(from: start, to: end)
            let expected = Array(Int((start * 30).rounded(.up))..<min(90, Int((end * 30).rounded(.up))))
            XCTAssertEqual(frames.map(\.index), expected, "range \(start)..<\(end)")
            XCTAssertEqual(frames.map(ClipFactory.drawnIndex), expected, "pixels for \(start)..<\(end)")
        }
    }

    func testStillImageReadsAsOneFrame() throws {
        let url = dir.appendingPathComponent("still.png")
        try ImageWriter.writePNG(ClipFactory.frame(index: 5, width: 33, height: 21), to: url)
        let reader = try VideoReader(url: url)
        XCTAssertTrue(reader.info.isStillImage)
        XCTAssertEqual(reader.info.frameCount, 1)
        let frames = try ClipFactory.readAll(url)
        XCTAssertEqual(frames.count, 1)
        XCTAssertEqual(frames[0].pixels, ClipFactory.frame(index: 5, width: 33, height: 21).pixels, "PNG is lossless")
    }

    func testMissingFile() {
        XCTAssertThrowsError(try VideoReader(url: dir.appendingPathComponent("nope.mp4"))) { error in
            XCTAssertEqual(error as? VideoError, .fileNotFound(path: dir.appendingPathComponent("nope.mp4").path))
        }
    }

    /// FFmpeg opens a file by name. The name it is given is that of the regular file as checked, so a
    /// FIFO put at the path after the check (here: past the check, as the swap would be) is refused, never
    /// waited on; a clip opened so reads as itself.
    func testFFmpegOpensTheFileAsCheckedNeverAFIFO() throws {
        let fifo = dir.appendingPathComponent("swapped.mp4")
        XCTAssertEqual(mkfifo(fifo.path, 0o644), 0)
        var ctx: UnsafeMutablePointer<AVFormatContext>? = nil
        XCTAssertThrowsError(try VideoReader.openInput(&ctx, fifo.path)) { error in
            XCTAssertTrue("\(error)".contains("FIFO") && "\(error)".contains(fifo.path), "\(error)")
        }
        XCTAssertNil(ctx)
        XCTAssertThrowsError(try VideoReader.scanPTS(path: fifo.path)) { XCTAssertTrue("\($0)".contains("FIFO"), "\($0)") }
        let clip = try ClipFactory.write(dir.appendingPathComponent("real.mp4"), frames: 3)
        XCTAssertEqual(try VideoReader.scanPTS(path: clip.path).count, 3)
        let reader = try VideoReader(url: clip)
        XCTAssertEqual(reader.info.path, clip.path)
        XCTAssertEqual(reader.info.frameCount, 3)
    }

    func testRandomBytesAreNotAVideo() throws {
        let url = dir.appendingPathComponent("noise.mp4")
        // The same bytes every run (xorshift from a fixed seed): the system's random bytes were, now and then,
        // a file some demuxer takes for audio ("no video stream"), which made the test fail by chance.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        try Data((0..<20_000).map { _ in
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return UInt8(truncatingIfNeeded: state >> 32)
        }).write(to: url)
        XCTAssertThrowsError(try VideoReader(url: url)) { error in
            guard case .notAVideo(let path, _)? = error as? VideoError else { return XCTFail("\(error)") }
            XCTAssertEqual(path, url.path)
        }
    }

    /// A file named as a clip that is really a list of other files (FFmpeg's concatenation script, an HLS
    /// playlist) is not a video: read, it would put another file's frames in this file's output.
    func testAListOfOtherFilesIsNotAVideo() throws {
        try ClipFactory.write(dir.appendingPathComponent("other.mp4"), frames: 5)
        let lists = [
            "concat.mp4": "ffconcat version 1.0\nfile 'other.mp4'\n",
            "playlist.mp4": "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1.0,\nother.mp4\n#EXT-X-ENDLIST\n",
            "playlist.m3u8.mov": "#EXTM3U\n#EXTINF:1.0,\nfile:\(dir.path)/other.mp4\n#EXT-X-ENDLIST\n",
        ]
        for (name, text) in lists {
            let url = dir.appendingPathComponent(name)
            try Data(text.utf8).write(to: url)
            XCTAssertThrowsError(try ClipFactory.readAll(url), name) { error in
                guard case .notAVideo(let path, _)? = error as? VideoError else { return XCTFail("\(name): \(error)") }
                XCTAssertEqual(path, url.path)
            }
        }
        XCTAssertEqual(try ClipFactory.readAll(dir.appendingPathComponent("other.mp4")).count, 5, "the listed clip itself reads")
    }

    /// An image whose name looks like a numbered pattern is read as itself, not as the sequence of other
    /// images the pattern would name.
    func testAnImageNamedLikeAPatternIsReadAsItself() throws {
        let own = ClipFactory.frame(index: 3, width: 24, height: 16)
        try ImageWriter.writePNG(own, to: dir.appendingPathComponent("shot%d.png"))
        for i in 0..<3 { try ImageWriter.writePNG(ClipFactory.frame(index: 100 + i, width: 24, height: 16), to: dir.appendingPathComponent("shot\(i).png")) }
        let frames = try ClipFactory.readAll(dir.appendingPathComponent("shot%d.png"))
        XCTAssertEqual(frames.count, 1)
        XCTAssertTrue(frames.first?.pixels == own.pixels, "the pixels of shot%d.png itself")
    }

    /// The rules for frames without a usable timestamp keep every time inside the range later stages
    /// turn into integers: a damaged header's rate cannot make a step of 1e300 s, and a run of steps
    /// past 10^7 s is refused, not handed on.
    func testDamagedTimestampsStayInRange() {
        XCTAssertEqual(VideoReader.frameStep(average: 30, nominal: 25), 1.0 / 30)
        XCTAssertEqual(VideoReader.frameStep(average: 1e-300, nominal: 25), 1.0 / 25)
        XCTAssertEqual(VideoReader.frameStep(average: .nan, nominal: 1e300), 1.0 / 25)
        XCTAssertLessThanOrEqual(VideoReader.frameStep(average: 0.001, nominal: 0), 1000)
        XCTAssertEqual(VideoReader.repairedTime(nil, after: nil, step: 0.04), 0)
        XCTAssertEqual(VideoReader.repairedTime(1.0, after: 0.5, step: 0.04), 1.0)
        XCTAssertEqual(VideoReader.repairedTime(0.4, after: 0.5, step: 0.04), 0.54)
        XCTAssertEqual(VideoReader.repairedTime(-0.08, after: nil, step: 0.04), -0.08, "a B-frame before the start keeps its time")
        XCTAssertNil(VideoReader.repairedTime(nil, after: 9_999_999.99, step: 0.04))
        XCTAssertNil(VideoReader.repairedTime(nil, after: 1e7, step: 1000))
    }

    func testTruncatedClipGivesFramesThenError() throws {
        let full = try ClipFactory.write(dir.appendingPathComponent("full.mp4"), frames: 60)
        let data = try Data(contentsOf: full)
        let cut = dir.appendingPathComponent("cut.mp4")
        try data.prefix(data.count * 6 / 10).write(to: cut)
        let reader = try VideoReader(url: cut)
        var frames: [VideoFrame] = []
        do {
            while let f = try reader.nextFrame() { frames.append(f) }
            XCTFail("a truncated clip must end in an error, got \(frames.count) frames")
        } catch let error as VideoError {
            XCTAssertEqual(error.path, cut.path)
            XCTAssertTrue(error.description.contains("cut.mp4"))
        }
        XCTAssertGreaterThan(frames.count, 4)
        XCTAssertLessThan(frames.count, 60)
        XCTAssertEqual(frames.map(ClipFactory.drawnIndex), Array(0..<frames.count))
    }

    /// Matroska, WebM and GIF list no frame count, and FFmpeg ends a copy of one cut at a block boundary
    /// as if it were whole: the Segment's declared size and the GIF trailer tell a cut file from a short one.
    func testCutMatroskaWebMAndGIFEndInAnError() throws {
        let ffmpeg = try ffmpegCommand()
        for container in ["mkv", "webm", "gif"] {
            let full = dir.appendingPathComponent("full.\(container)")
            let made = try ClipFactory.run(ffmpeg, ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=96x64:rate=10", "-frames:v", "30", "-y", full.path])
            XCTAssertEqual(made.status, 0, made.output)
            let data = try Data(contentsOf: full)
            XCTAssertNil(try VideoReader(url: full).info.cutShort, container)
            XCTAssertEqual(try ClipFactory.readAll(full).count, 30, container)
            // Bytes after the declared end (padding a copy tool left, or junk that reads as an element) are no cut.
            for (name, tail) in [("zeros", Data(repeating: 0, count: 64)), ("junk", Data("GARBAGE junk\n".utf8)), ("two", Data("GA".utf8))] {
                let padded = dir.appendingPathComponent("padded-\(name).\(container)")
                try (data + tail).write(to: padded)
                XCTAssertNil(try VideoReader(url: padded).info.cutShort, "\(container) \(name)")
                XCTAssertEqual(try ClipFactory.readAll(padded).count, 30, "\(container) \(name)")
            }

            // Cut in the middle, and (GIF) right before its one-byte trailer, after the last frame.
            for (name, keep) in [("half", data.count / 2), ("last", data.count - 1)] where container == "gif" || name == "half" {
                let cut = dir.appendingPathComponent("\(name).\(container)")
                try data.prefix(keep).write(to: cut)
                let reader = try VideoReader(url: cut)
                XCTAssertNotNil(reader.info.cutShort, "\(container) \(name): the cut is seen without decoding")
                var frames = 0
                do {
                    while try reader.nextFrame() != nil { frames += 1 }
                    XCTFail("\(container) \(name): a cut file must end in an error, not as a clip of \(frames) frames")
                } catch let error as VideoError {
                    XCTAssertEqual(error.path, cut.path)
                    XCTAssertTrue(error.description.contains("truncated"), error.description)
                }
                XCTAssertLessThanOrEqual(frames, 30)
                if container != "gif" {
                    // A span read after a seek that runs into the cut-away part is an error too; one before it is not.
                    XCTAssertThrowsError(try VideoReader(url: cut).frames(from: 0.5, to: 2.9), "\(container): span into the cut") { error in
                        guard case VideoError.cutShort = error else { return XCTFail("\(container): \(error)") }
                    }
                    XCTAssertEqual(try VideoReader(url: cut).frames(from: 0, to: 0.5).count, 5, container)
                }
            }
        }
    }

    /// The ffmpeg command, or a skip saying it is absent.
    func ffmpegCommand() throws -> String {
        guard let ffmpeg = ["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            print("SKIP: the ffmpeg command is absent; run `make setup`")
            throw Prerequisite.missing("ffmpeg command absent")
        }
        return ffmpeg
    }

    /// Reads `url` to its end: the frames read and the error that ended the read, if one did.
    func readToEnd(_ url: URL) -> (frames: Int, error: VideoError?) {
        var frames = 0
        do {
            let reader = try VideoReader(url: url)
            while try reader.nextFrame() != nil { frames += 1 }
            return (frames, nil)
        } catch let error as VideoError { return (frames, error) } catch { XCTFail("\(error)"); return (frames, nil) }
    }

    /// A transport stream has no index and its demuxer resyncs past a damaged stretch without an error: the
    /// video PID's broken continuity counter is what tells. A copy cut part way through a packet (188 bytes, or
    /// 192 in M2TS) is cut short. Both end in an error after every frame that could be read.
    func testTransportStreamDamagedOrCutEndsInAnErrorNotAShorterClip() throws {
        let ffmpeg = try ffmpegCommand()
        for (name, extra, packet) in [("whole.ts", [String](), 188), ("whole.m2ts", ["-f", "mpegts", "-mpegts_m2ts_mode", "1"], 192)] {
            let whole = dir.appendingPathComponent(name)
            let made = try ClipFactory.run(ffmpeg, ["-v", "error", "-f", "lavfi", "-i", "testsrc=size=64x48:rate=10", "-frames:v", "40",
                                                    "-c:v", "mpeg2video", "-g", "5", "-bf", "0"] + extra + ["-y", whole.path])
            XCTAssertEqual(made.status, 0, made.output)
            let data = try Data(contentsOf: whole)
            XCTAssertEqual(data.count % packet, 0, name)
            let read = readToEnd(whole)
            XCTAssertNil(read.error, "\(name): the whole file reads whole, with no complaint")
            XCTAssertEqual(read.frames, 40, name)

            // 3,000 bytes zeroed in the middle, from a packet's start: about 16 packets of the video lost.
            var zeroed = data
            let middle = data.count / 2 / packet * packet
            zeroed.replaceSubrange(middle..<(middle + 3000), with: Data(repeating: 0, count: 3000))
            let damaged = dir.appendingPathComponent("damaged-" + name)
            try zeroed.write(to: damaged)
            let d = readToEnd(damaged)
            XCTAssertEqual(d.error?.path, damaged.path, "\(name): a damaged stream must end in an error, not as a clip of \(d.frames) frames")
            XCTAssertTrue(d.error?.description.contains("continuity counter") ?? false, d.error?.description ?? "no error")
            XCTAssertGreaterThan(d.frames, 0, "the frames around the damage are delivered")

            // Cut 77 bytes into a packet, two thirds of the way.
            let cutAt = data.count * 2 / 3 / packet * packet + 77
            let cut = dir.appendingPathComponent("cut-" + name)
            try data.prefix(cutAt).write(to: cut)
            XCTAssertNotNil(try VideoReader(url: cut).info.cutShort, name)
            let c = readToEnd(cut)
            XCTAssertEqual(c.error?.path, cut.path, "\(name): a cut copy must end in an error, not as a clip of \(c.frames) frames")
            XCTAssertTrue(c.error?.description.contains("77 bytes into a \(packet)-byte transport stream packet") ?? false, c.error?.description ?? "no error")
            XCTAssertGreaterThan(c.frames, 0)
            XCTAssertLessThan(c.frames, 40)
        }
    }

    /// FLV: a copy cut inside a tag ends without the tag's size after it; one cut between two tags falls short
    /// of the size onMetaData states; a damaged stretch makes the demuxer skip to the next tag it can find.
    /// Each ends in an error after every frame that could be read.
    func testFLVDamagedOrCutEndsInAnErrorNotAShorterClip() throws {
        let ffmpeg = try ffmpegCommand()
        let whole = dir.appendingPathComponent("whole.flv")
        let made = try ClipFactory.run(ffmpeg, ["-v", "error", "-f", "lavfi", "-i", "testsrc=size=64x48:rate=10", "-frames:v", "40",
                                                "-g", "5", "-y", whole.path])
        XCTAssertEqual(made.status, 0, made.output)
        let data = try Data(contentsOf: whole)
        XCTAssertNil(DeclaredLength.flvShortfall(try XCTUnwrap(DeclaredLength.FileBytes(FileHandle(forReadingFrom: whole)))))
        let read = readToEnd(whole)
        XCTAssertNil(read.error, "the whole file reads whole, with no complaint")
        XCTAssertEqual(read.frames, 40)
        // The tags' ends, walked from the header (9 bytes, then PreviousTagSize0).
        let bytes = [UInt8](data)
        var ends: [Int] = [], at = 13
        while at + 11 <= bytes.count {
            let size = Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
            at += 11 + size + 4
            ends.append(at)
        }
        XCTAssertEqual(ends.last, bytes.count)
        // Writers that count a tag's size as its data and 10, or its data alone (FFmpeg's demuxer takes both), and a
        // last tag of a type FFmpeg skips (AMF3 data, 15): whole files, read whole.
        for (name, counted) in [("ten.flv", 10), ("data.flv", 0)] {
            var other = bytes
            for (k, end) in ends.enumerated() {
                let tag = k == 0 ? 13 : ends[k - 1]
                let size = Int(bytes[tag + 1]) << 16 | Int(bytes[tag + 2]) << 8 | Int(bytes[tag + 3])
                withUnsafeBytes(of: UInt32(size + counted).bigEndian) { other.replaceSubrange((end - 4)..<end, with: $0) }
            }
            let url = dir.appendingPathComponent(name)
            try Data(other).write(to: url)
            let r = readToEnd(url)
            XCTAssertNil(r.error, "\(name): \(r.error?.description ?? "")")
            XCTAssertEqual(r.frames, 40, name)
        }
        let amf3 = dir.appendingPathComponent("amf3-last.flv")
        try (data + Data([15, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 0, 0, 0, 14])).write(to: amf3)
        XCTAssertNil(readToEnd(amf3).error)
        let boundary = ends[ends.count * 2 / 3]
        let cases: [(String, Data, String)] = [
            ("inside-a-tag.flv", data.prefix(boundary + 20), "ends inside an FLV tag"),
            ("between-tags.flv", data.prefix(boundary), "FLV metadata states \(data.count) bytes"),
            // Zeroed from the middle tag's last size on (zeroed within a tag's data, the frame is damaged, not lost).
            ("zeroed.flv", { var d = data; let m = ends[ends.count / 2] - 4; d.replaceSubrange(m..<(m + 600), with: Data(repeating: 0, count: 600)); return d }(),
             "tag whose sizes disagree"),
        ]
        for (name, bytes, expected) in cases {
            let url = dir.appendingPathComponent(name)
            try bytes.write(to: url)
            let r = readToEnd(url)
            XCTAssertEqual(r.error?.path, url.path, "\(name) must end in an error, not as a clip of \(r.frames) frames")
            XCTAssertTrue(r.error?.description.contains(expected) ?? false, "\(name): \(r.error?.description ?? "no error")")
            XCTAssertGreaterThan(r.frames, 0, name)
            XCTAssertLessThan(r.frames, 40, name)
        }
    }

    /// MPEG-PS (`.mpg`) has no index or declared end: a copy cut inside a packet shows only as a packet the
    /// demuxer read short, which libavformat logs ("Packet corrupt"). ASF (`.wmv`) states its size in its header.
    /// Each cut copy ends in an error after every frame that could be read; the whole files read whole.
    func testMPEGProgramStreamAndASFCutShortEndInAnErrorNotAShorterClip() throws {
        let ffmpeg = try ffmpegCommand()
        for (name, codec, expected) in [("whole.mpg", "mpeg1video", "read a packet shorter than it declares"),
                                         ("whole.wmv", "wmv2", "its ASF header states")] {
            let whole = dir.appendingPathComponent(name)
            // 25 fps: MPEG-1 takes only the standard rates.
            let made = try ClipFactory.run(ffmpeg, ["-v", "error", "-f", "lavfi", "-i", "testsrc=size=64x48:rate=25", "-frames:v", "40",
                                                    "-c:v", codec, "-g", "5", "-y", whole.path])
            XCTAssertEqual(made.status, 0, made.output)
            XCTAssertEqual(try ClipFactory.readAll(whole).count, 40, "\(name): the whole file reads whole, with no complaint")
            let data = try Data(contentsOf: whole)
            let cut = dir.appendingPathComponent("cut-" + name)
            try data.prefix(data.count * 2 / 3 + 77).write(to: cut)
            var frames = 0
            do {
                let reader = try VideoReader(url: cut)
                while try reader.nextFrame() != nil { frames += 1 }
                XCTFail("\(name): a cut copy must end in an error, not as a clip of \(frames) frames")
            } catch let error as VideoError {
                XCTAssertEqual(error.path, cut.path)
                XCTAssertTrue(error.description.contains(expected), "\(name): \(error.description)")
            }
            XCTAssertGreaterThan(frames, 0, name)
            XCTAssertLessThan(frames, 40, name)
        }
        // MPEG-PS with sound, cut inside an audio packet: the video after the cut is lost as well.
        let sound = dir.appendingPathComponent("sound.mpg")
        let made = try ClipFactory.run(ffmpeg, ["-v", "error", "-f", "lavfi", "-i", "testsrc=size=64x48:rate=25", "-f", "lavfi", "-i",
                                                "sine=frequency=440:sample_rate=44100", "-frames:v", "100", "-t", "4",
                                                "-c:v", "mpeg1video", "-c:a", "mp2", "-y", sound.path])
        XCTAssertEqual(made.status, 0, made.output)
        XCTAssertEqual(readToEnd(sound).frames, 100)
        XCTAssertNil(readToEnd(sound).error, "the whole file reads whole, with no complaint")
        let probed = try ClipFactory.run("/usr/bin/env", ["ffprobe", "-v", "error", "-select_streams", "a:0", "-show_entries", "packet=pos,size",
                                                          "-of", "csv=p=0", sound.path])
        XCTAssertEqual(probed.status, 0, probed.output)
        let audio = probed.output.split(separator: "\n").compactMap { line -> (Int, Int)? in
            let f = line.split(separator: ","), size = f.first.flatMap { Int($0) }, pos = f.dropFirst().first.flatMap { Int($0) }
            return size.flatMap { s in pos.map { ($0, s) } }
        }
        let (position, size) = try XCTUnwrap(audio.dropFirst(audio.count * 2 / 3).first, probed.output)
        let cut = dir.appendingPathComponent("cut-in-audio.mpg")
        try Data(try Data(contentsOf: sound).prefix(position + size / 2)).write(to: cut)
        let r = readToEnd(cut)
        XCTAssertTrue(r.error?.description.contains("read a packet") ?? false, r.error?.description ?? "no error: \(r.frames) frames read as whole")
        XCTAssertLessThan(r.frames, 100)
    }

    /// A display matrix that mirrors the picture (a flip, or a quarter turn with one) turns frames upright as
    /// FFmpeg's own command line shows them; `av_display_rotation_get` alone read a left-right mirror as a half
    /// turn and an up-down one as none. All eight matrices of quarter turns and flips, written into an mp4's
    /// track header, against `ffmpeg -i` (which applies them) frame for frame.
    func testMirroringDisplayMatricesTurnFramesAsFFmpegDoes() throws {
        let ffmpeg = try ffmpegCommand()
        let source = dir.appendingPathComponent("upright.mp4")
        let made = try ClipFactory.run(ffmpeg, ["-v", "error", "-f", "lavfi", "-i", "testsrc=size=64x48:rate=10", "-frames:v", "3",
                                                "-c:v", "libx264", "-pix_fmt", "yuv444p", "-qp", "0", "-y", source.path])
        XCTAssertEqual(made.status, 0, made.output)
        let original = try Data(contentsOf: source)
        // tkhd, version 0: the 3x3 matrix starts 48 bytes into the box (a b u / c d v / x y w, 16.16 and 2.30).
        let tkhd = try XCTUnwrap(original.range(of: Data("tkhd".utf8))).lowerBound - 4
        XCTAssertEqual(original[tkhd + 8], 0, "a version 0 track header")
        let one: Int32 = 0x10000
        // (a, b, c, d), the orientation they mean (fftools' reading), and whether width and height swap.
        let matrices: [([Int32], Int, Bool)] = [([one, 0, 0, one], 1, false), ([-one, 0, 0, one], 2, false), ([-one, 0, 0, -one], 3, false),
                                                ([one, 0, 0, -one], 4, false), ([0, one, one, 0], 5, true), ([0, one, -one, 0], 6, true),
                                                ([0, -one, -one, 0], 7, true), ([0, -one, one, 0], 8, true)]
        for (m, orientation, swapped) in matrices {
            var data = original
            for (k, offset) in [0, 4, 12, 16].enumerated() {
                withUnsafeBytes(of: m[k].bigEndian) { data.replaceSubrange((tkhd + 48 + offset)..<(tkhd + 52 + offset), with: $0) }
            }
            let clip = dir.appendingPathComponent("m\(orientation).mp4")
            try data.write(to: clip)
            let reference = dir.appendingPathComponent("m\(orientation).rgb")
            let shown = try ClipFactory.run(ffmpeg, ["-v", "error", "-i", clip.path, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-y", reference.path])
            XCTAssertEqual(shown.status, 0, shown.output)
            let expected = try Data(contentsOf: reference)
            let reader = try VideoReader(url: clip)
            XCTAssertEqual([reader.info.width, reader.info.height], swapped ? [48, 64] : [64, 48], "matrix \(m)")
            XCTAssertEqual(reader.info.mirrored, [2, 4, 5, 7].contains(orientation), "matrix \(m)")
            XCTAssertEqual(VideoReader.displayOrientation(m.count == 4 ? [m[0], m[1], 0, m[2], m[3], 0, 0, 0, 0x4000_0000] : m), orientation)
            let frame = try XCTUnwrap(reader.nextFrame())
            XCTAssertEqual(frame.pixels.count, expected.count, "matrix \(m)")
            let mean = Double(zip(frame.pixels, expected).map { abs(Int($0) - Int($1)) }.reduce(0, +)) / Double(max(expected.count, 1))
            // The same picture differs by swscale's rounding (under 2 levels on average); turned wrong, by tens.
            XCTAssertLessThan(mean, 3, "matrix \(m): as FFmpeg shows it")
        }
    }

    /// A GIF whose frames state no delay (no Graphic Control Extension after the first, as some writers leave
    /// it) is shown at 10 cs a frame by the demuxer, as browsers show it, while the duration FFmpeg states sums
    /// the stated delays: 0.1 s for six frames reaching 0.6 s, which made `validate` refuse segments inside the
    /// clip. The duration is the frames' span.
    func testAGIFsDurationCoversItsFrames() throws {
        let ffmpeg = try ffmpegCommand()
        let written = dir.appendingPathComponent("delays.gif")
        let made = try ClipFactory.run(ffmpeg, ["-v", "error", "-f", "lavfi", "-i", "testsrc=size=64x48:rate=10", "-frames:v", "6", "-y", written.path])
        XCTAssertEqual(made.status, 0, made.output)
        // Every Graphic Control Extension (21 F9 04, 8 bytes) but the first removed.
        let bytes = [UInt8](try Data(contentsOf: written))
        var out: [UInt8] = [], i = 0, seen = 0
        while i < bytes.count {
            if i + 8 <= bytes.count, bytes[i] == 0x21, bytes[i + 1] == 0xF9, bytes[i + 2] == 0x04 {
                seen += 1
                if seen > 1 { i += 8; continue }
            }
            out.append(bytes[i]); i += 1
        }
        XCTAssertEqual(seen, 6)
        let gif = dir.appendingPathComponent("no-delays.gif")
        try Data(out).write(to: gif)
        let reader = try VideoReader(url: gif)
        let frames = try ClipFactory.readAll(gif)
        XCTAssertEqual(frames.count, 6)
        XCTAssertEqual(reader.info.frameCount, 6)
        let last = try XCTUnwrap(frames.last).time
        XCTAssertEqual(last, 0.5, accuracy: 1e-6)
        XCTAssertGreaterThan(reader.info.duration, last, "the duration reaches past the last frame's time")
    }

    /// Matroska damaged in the middle (a bad sector, a broken copy: bytes zeroed inside a block) with its
    /// declared sizes intact: FFmpeg's demuxer logs the damage and ends the stream there, as if the file ended,
    /// and nothing else tells (no frame count, the declared end is the file's). What it logged makes the read
    /// end in an error after every frame it could give, never a shorter clip read as whole.
    func testMatroskaDamagedInTheMiddleEndsInAnErrorNotAShorterClip() throws {
        guard let ffmpeg = ["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }),
              let ffprobe = ["/usr/bin/ffprobe", "/usr/local/bin/ffprobe"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            print("SKIP: the ffmpeg and ffprobe commands are absent; run `make setup`")
            throw Prerequisite.missing("ffmpeg command absent")
        }
        let full = dir.appendingPathComponent("whole.mkv")
        let made = try ClipFactory.run(ffmpeg, ["-v", "error", "-f", "lavfi", "-i", "testsrc=size=64x48:rate=10", "-frames:v", "20",
                                                "-pix_fmt", "yuv420p", "-g", "5", "-bf", "0", "-y", full.path])
        XCTAssertEqual(made.status, 0, made.output)
        XCTAssertEqual(try ClipFactory.readAll(full).count, 20, "the whole file reads whole, with no complaint")
        let probed = try ClipFactory.run(ffprobe, ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pos,size", "-of", "compact=p=0", full.path])
        XCTAssertEqual(probed.status, 0, probed.output)
        // Lines of `size=N|pos=M`, in whichever order ffprobe gives the two.
        let packets = probed.output.split(separator: "\n").map { line in
            Dictionary(line.split(separator: "|").compactMap { field -> (String, Int)? in
                let kv = field.split(separator: "=")
                return kv.count == 2 ? Int(kv[1]).map { (String(kv[0]), $0) } : nil
            }, uniquingKeysWith: { a, _ in a })
        }.filter { $0["pos"] != nil && $0["size"] != nil }
        XCTAssertEqual(packets.count, 20, probed.output)
        // The eighth frame's block zeroed.
        let (size, position) = (packets[7]["size"]!, packets[7]["pos"]!)
        var data = try Data(contentsOf: full)
        data.replaceSubrange(position..<(position + size), with: Data(repeating: 0, count: size))
        let damaged = dir.appendingPathComponent("damaged.mkv")
        try data.write(to: damaged)
        let reader = try VideoReader(url: damaged)
        XCTAssertNil(reader.info.cutShort, "nothing in the file's sizes says it is short")
        var frames = 0
        do {
            while try reader.nextFrame() != nil { frames += 1 }
            XCTFail("a damaged file must end in an error, not as a clip of \(frames) frames")
        } catch let error as VideoError {
            XCTAssertEqual(error.path, damaged.path)
            XCTAssertTrue(error.description.contains("demuxer met damaged data") && error.description.contains("EBML"), error.description)
        }
        XCTAssertGreaterThan(frames, 0, "the frames before the damage are delivered")
        XCTAssertLessThan(frames, 20)
    }

    /// A streamed Matroska file (`-live 1`: sizes unknown, as a pipe or a live recording writes them) states
    /// no duration and no end: its duration comes from its packets, and a cut inside an element is found.
    func testAStreamedMatroskaFileHasADurationAndItsCutIsFound() throws {
        let ffmpeg = try ffmpegCommand()
        for container in ["mkv", "webm"] {
            let full = dir.appendingPathComponent("live.\(container)")
            let made = try ClipFactory.run(ffmpeg, ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=96x64:rate=10", "-frames:v", "30",
                                                   "-live", "1", "-y", full.path])
            XCTAssertEqual(made.status, 0, made.output)
            let whole = try VideoReader(url: full)
            XCTAssertNil(whole.info.cutShort, container)
            XCTAssertEqual(whole.info.duration, 3.0, accuracy: 0.001, "\(container): from its packets (30 frames at 10 fps)")
            XCTAssertEqual(try ClipFactory.readAll(full).count, 30, container)
            let data = try Data(contentsOf: full)
            let cut = dir.appendingPathComponent("live-cut.\(container)")
            try data.prefix(data.count / 2).write(to: cut)
            let reader = try VideoReader(url: cut)
            XCTAssertTrue(reader.info.cutShort?.contains("streamed segment") == true, "\(container): \(reader.info.cutShort ?? "nil")")
            XCTAssertThrowsError(try { while try reader.nextFrame() != nil {} }(), container) { error in
                guard case VideoError.cutShort = error else { return XCTFail("\(container): \(error)") }
            }
        }
    }

    func testASegmentOfUnknownSizeIsWalkedAndAKnownOneCompared() throws {
        // EBML header (an empty one), then a Segment whose size is all ones: "unknown", as a live recording writes.
        let bytes: [UInt8] = [0x1A, 0x45, 0xDF, 0xA3, 0x80, 0x18, 0x53, 0x80, 0x67, 0xFF, 0xEC, 0x81, 0x00]
        let url = dir.appendingPathComponent("live.mkv")
        try Data(bytes).write(to: url)
        XCTAssertNil(DeclaredLength.shortfall(path: url.path, container: "matroska,webm"))
        // The same with a size of 100 bytes that the file does not hold.
        var sized = bytes
        sized[9] = 0x80 | 100
        try Data(sized).write(to: url)
        XCTAssertEqual(DeclaredLength.shortfall(path: url.path, container: "matroska,webm"),
                       "its Matroska segment declares 100 bytes, 97 more than the file holds")
    }

    func testMemoryStaysFlatOverALongClip() throws {
        let url = try ClipFactory.write(dir.appendingPathComponent("long.mp4"), frames: 600, width: 320, height: 240)
        let reader = try VideoReader(url: url)
        var count = 0
        var rssAt100 = 0
        while let _ = try reader.nextFrame() {
            count += 1
            if count == 100 { rssAt100 = residentBytes() }
        }
        XCTAssertEqual(count, 600)
        // 500 more frames of 230 KB each would be 115 MB if kept; allow 20 MB of noise.
        XCTAssertLessThan(residentBytes() - rssAt100, 20 << 20)
    }

    private func residentBytes() -> Int {
        guard let s = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
              let pages = Int(s.split(separator: " ")[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
    /// FFmpeg's bare -1 from a demuxer or decoder is bad data, not errno EPERM ("Operation not
    /// permitted", which av_strerror makes of it); other codes keep FFmpeg's own words.
    func testDecodingErrorsAreNotPermissionErrors() {
        XCTAssertEqual(ffmpegMessage(-1), "Operation not permitted", "what av_strerror says of -1")
        XCTAssertFalse(decodingMessage(-1).contains("permitted"))
        XCTAssertTrue(decodingMessage(-1).contains("does not decode"))
        let invalid = -Int32(bitPattern: UInt32(0x41444E49))   // AVERROR_INVALIDDATA, FFERRTAG('I','N','D','A')
        XCTAssertEqual(decodingMessage(invalid), ffmpegMessage(invalid))
        XCTAssertEqual(decodingMessage(invalid), "Invalid data found when processing input")
    }
}
