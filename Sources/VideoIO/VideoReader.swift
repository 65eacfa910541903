import CFFmpeg
import FileSystem
import Foundation

/// Decodes a clip's frames in order, as RGB, through FFmpeg.
///
/// Timestamps are repaired so they strictly increase: a frame with no timestamp, or one not
/// later than the frame before it, gets the previous time plus one nominal frame duration.
public final class VideoReader {
    public private(set) var info: VideoInfo
    public var path: String { info.path }

    private var format: UnsafeMutablePointer<AVFormatContext>?
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    private let stream: UnsafeMutablePointer<AVStream>
    private let streamIndex: Int32
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var scaler: OpaquePointer?
    /// What the scaler was made for: source size, pixel format, colour space and range.
    private var scalerKey: (width: Int32, height: Int32, format: Int32, space: Int32, range: Int32) = (0, 0, -1, -1, -1)
    /// swscale's destination, kept while the frame size stays.
    private var destination: FFmpegImageBuffer?

    private let timeBase: Double
    private let startPTS: Int64
    private let frameDuration: Double
    /// Packets the container lists for the stream (0 when it does not say).
    private let containerFrames: Int
    private var packetsRead = 0
    private var hasSeeked = false
    private var nextIndex = 0
    private var lastTime: Double?
    private var inputEnded = false
    private var finished = false
    /// Every packet's presentation timestamp, sorted: the frame index of any timestamp. Built on first seek.
    private var ptsIndex: [Int64]?
    /// A JPEG still decoded by libjpeg-turbo (see `JPEGStill`), handed out by the first `nextFrame`.
    private var jpegStill: JPEGStill.Decoded?
    /// The EXIF orientation (1-8) each decoded frame is turned upright by: the stream's display matrix, or a
    /// still's own orientation (1 for a JPEG still, which libjpeg-turbo's path turns upright itself).
    private let orientation: Int
    /// Time spent decoding so far, for `bench extract --profile`.
    public private(set) var timings = Timings()
    /// The demuxer's complaints about the file, from open to close (`DemuxerDamage`).
    private let damage = DemuxerDamage()
    /// The file FFmpeg reads, as it was when opened: a caller compares it with the path's at the end
    /// (`RegularFile.stamp`) to tell a file replaced or rewritten while it was read.
    public private(set) var opened: RegularFile.Stamp?

    /// Where `nextFrame`'s time went: reading and decoding packets, and converting frames to RGB.
    public struct Timings: Sendable {
        public var decode: Duration = .zero
        public var convert: Duration = .zero
        public init() {}
    }

    /// Opens `url`. `threads` 0 lets FFmpeg choose (frame and slice threads over all cores).
    public init(url: URL, threads: Int = 0) throws {
        quietFFmpegLogs()
        let path = url.path
        guard FileManager.default.fileExists(atPath: path) else { throw VideoError.fileNotFound(path: path) }
        // FFmpeg would open a FIFO and wait on it for ever (or read /dev/zero for ever): inputs are regular files.
        if let problem = RegularFile.problem(path) { throw VideoError.unreadable(path: path, ffmpeg: problem) }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw VideoError.unreadable(path: path, ffmpeg: "permission denied")
        }
        var ctx: UnsafeMutablePointer<AVFormatContext>? = nil
        var rc = try Self.openInput(&ctx, path, damage: damage, stamp: &opened)
        guard rc >= 0, let ctx else { throw VideoError.notAVideo(path: path, ffmpeg: ffmpegMessage(rc)) }
        format = ctx
        rc = avformat_find_stream_info(ctx, nil)
        guard rc >= 0 else {
            Self.closeInput(&format)
            throw VideoError.notAVideo(path: path, ffmpeg: ffmpegMessage(rc))
        }
        var decoder: UnsafePointer<AVCodec>? = nil
        let best = av_find_best_stream(ctx, AVMEDIA_TYPE_VIDEO, -1, -1, &decoder, 0)
        if best < 0 {
            Self.closeInput(&format)
            if best == AVERROR_DECODER_NOT_FOUND_CODE {
                throw VideoError.unsupportedCodec(path: path, codec: "unknown")
            }
            throw VideoError.noVideoStream(path: path)
        }
        streamIndex = best
        stream = ctx.pointee.streams[Int(best)]!
        let par = stream.pointee.codecpar!
        guard let decoder else {
            let name = String(cString: avcodec_get_name(par.pointee.codec_id))
            Self.closeInput(&format)
            throw VideoError.unsupportedCodec(path: path, codec: name)
        }
        guard let cc = avcodec_alloc_context3(decoder) else {
            Self.closeInput(&format)
            throw VideoError.unreadable(path: path, ffmpeg: "out of memory")
        }
        codec = cc
        avcodec_parameters_to_context(cc, par)
        if threads == 0 { cffmpeg_enable_threads(cc) } else { cc.pointee.thread_count = Int32(threads) }
        cc.pointee.pkt_timebase = stream.pointee.time_base
        rc = avcodec_open2(cc, decoder, nil)
        guard rc >= 0 else {
            let name = String(cString: avcodec_get_name(par.pointee.codec_id))
            avcodec_free_context(&codec)
            Self.closeInput(&format)
            throw VideoError.unsupportedCodec(path: path, codec: "\(name): \(ffmpegMessage(rc))")
        }
        packet = av_packet_alloc()
        frame = av_frame_alloc()

        let tb = stream.pointee.time_base
        timeBase = Double(tb.num) / Double(max(tb.den, 1))
        startPTS = stream.pointee.start_time == cffmpeg_nopts() ? 0 : stream.pointee.start_time

        let containerName = String(cString: ctx.pointee.iformat.pointee.name)
        // By the file's extension (`MediaKind`), the rule `extract` chooses image or video tracking by; a
        // rule of FFmpeg's demuxer names here could report as a clip a file tracked as an image.
        let still = MediaKind.isStillImage(url)
        let avg = still ? 0 : Rational(stream.pointee.avg_frame_rate).value
        let nominal = still ? 0 : Rational(stream.pointee.r_frame_rate).value
        frameDuration = Self.frameStep(average: avg, nominal: nominal)
        let rateForSteps = 1 / frameDuration

        var duration = 0.0
        if still {
        } else if stream.pointee.duration != cffmpeg_nopts() && stream.pointee.duration > 0 {
            duration = Double(stream.pointee.duration) * timeBase
        } else if ctx.pointee.duration != cffmpeg_nopts() && ctx.pointee.duration > 0 {
            duration = Double(ctx.pointee.duration) / Double(AV_TIME_BASE)
        }
        containerFrames = still ? 1 : Int(max(stream.pointee.nb_frames, 0))
        var count = containerFrames
        var estimate = false
        // A GIF's frame count comes with a duration summed from its stated delays, but the demuxer shows a frame
        // whose delay is 0 or 1 cs for 10 cs (as browsers do), so its frames reach past that duration: a GIF's
        // packets are scanned too (a GIF is small), as a file with no count is.
        if count == 0 || (!still && containerName == "gif") {
            if let scanned = try? Self.scanPTS(path: path) {
                if count == 0 { count = scanned.count }
                // A streamed file (Matroska written to a pipe) states no duration, and such a GIF states less than
                // its frames span: the packets' times give it, so that segments past the clip's end are still
                // found and segments within it are not refused. For any file scanned (Matroska, TS and PS list no
                // count) the duration is at least the frames' span, which moves a stated one by a frame at most.
                if let first = scanned.first, let last = scanned.last {
                    let span = Double(last) * timeBase - Double(first) * timeBase + frameDuration
                    if span.isFinite, InputRange.seconds.contains(span), span > duration { duration = span }
                }
            } else if count == 0 {
                // From the container's header: checked, as any number from a file (a hostile duration is no count).
                count = InputRange.int(duration * rateForSteps, in: InputRange.frames) ?? 0
                estimate = true
            }
        }

        var matrix = [Int32](repeating: 0, count: 9)
        var orientation = cffmpeg_stream_display_matrix(stream, &matrix) == 1 ? Self.displayOrientation(matrix) : 1
        var w = Int(par.pointee.width), h = Int(par.pointee.height)
        let pixfmt = av_get_pix_fmt_name(AVPixelFormat(par.pointee.format)).map { String(cString: $0) } ?? "unknown"
        let codecName = String(cString: avcodec_get_name(par.pointee.codec_id))
        var stillOrientation: Int? = nil
        // A still in a format that can carry an EXIF orientation is read for it (a BMP, say, is not read twice).
        if still, ["mjpeg", "png", "apng", "webp", "tiff"].contains(codecName), let data = try? RegularFile.read(path) {
            if codecName == "mjpeg", let decoded = JPEGStill.decode(data) {
                // Decoded upright already.
                jpegStill = decoded
                stillOrientation = decoded.orientation
                (w, h) = (decoded.frame.width, decoded.frame.height)
                orientation = 1
            } else {
                // Any other still (PNG, WebP, TIFF, a CMYK JPEG) is turned upright here, after FFmpeg decodes it.
                stillOrientation = StillOrientation.read(data)
                orientation = stillOrientation ?? 1
            }
        }
        self.orientation = orientation
        let (rotation, mirrored) = Self.turn(orientation)
        info = VideoInfo(
            path: path, container: containerName,
            codec: String(cString: avcodec_get_name(par.pointee.codec_id)), pixelFormat: pixfmt,
            width: orientation < 5 ? w : h, height: orientation < 5 ? h : w, rotation: rotation, mirrored: mirrored,
            averageFrameRate: avg, nominalFrameRate: nominal, duration: duration,
            frameCount: count, frameCountIsEstimate: estimate, isStillImage: still,
            framesPastEndOfFile: still ? 0 : Self.indexedFramesPastEnd(stream, fileSize: ctx.pointee.pb.map { avio_size($0) } ?? -1),
            decoder: jpegStill == nil ? "ffmpeg" : "libjpeg-turbo",
            exifOrientation: stillOrientation)
        if info.framesPastEndOfFile > 0 {
            info.cutShort = "the file ends before the frame data its container indexes"
        } else if !still {
            info.cutShort = DeclaredLength.shortfall(path: path, container: containerName)
        }
    }

    /// Index entries (frames) whose data the container places beyond the file's last byte.
    static func indexedFramesPastEnd(_ stream: UnsafeMutablePointer<AVStream>, fileSize: Int64) -> Int {
        guard fileSize > 0 else { return 0 }
        var missing = 0
        for i in 0..<avformat_index_get_entries_count(stream) {
            guard let e = avformat_index_get_entry(stream, i) else { continue }
            if e.pointee.pos >= 0 && e.pointee.size >= 0 && e.pointee.pos > fileSize - Int64(e.pointee.size) { missing += 1 }
        }
        return missing
    }

    deinit {
        sws_freeContext(scaler)
        av_frame_free(&frame)
        av_packet_free(&packet)
        avcodec_free_context(&codec)
        Self.closeInput(&format)
    }

    /// The next frame in presentation order, or nil at the end of the clip.
    public func nextFrame() throws -> VideoFrame? {
        if let still = jpegStill {
            if nextIndex > 0 { return nil }
            nextIndex = 1
            return still.frame
        }
        let start = ContinuousClock.now, converting = timings.convert
        defer { timings.decode += ContinuousClock.now - start - (timings.convert - converting) }
        return try decodeNext()
    }

    /// All frames whose time lies in `[start, end)`, frame-accurately: seeks to the keyframe
    /// before `start`, decodes forward and drops the frames before it.
    public func frames(from start: Double, to end: Double) throws -> [VideoFrame] {
        if let still = jpegStill {
            guard start <= 1e-6, end > 1e-9 else { return [] }
            return [still.frame]
        }
        try seek(to: start)
        var out: [VideoFrame] = []
        var last: Double?
        while let f = try decodeNext() {
            last = f.time
            if f.time < start - 1e-6 { continue }
            if f.time >= end - 1e-9 { return out }
            out.append(f)
        }
        // The file ended inside the span: in a cut file, past its last frame lies what was cut away.
        if let reason = info.cutShort, (last ?? start) + frameDuration < end - 1e-6 {
            throw VideoError.cutShort(path: path, framesDecoded: max(nextIndex, 0), reason: reason)
        }
        return out
    }

    /// Positions the reader so that `nextFrame()` continues from the keyframe at or before `seconds`.
    public func seek(to seconds: Double) throws {
        if jpegStill != nil { nextIndex = 0; return }
        guard let format, let codec else { return }
        if ptsIndex == nil { ptsIndex = (try? Self.scanPTS(path: path)) ?? [] }
        let offset = InputRange.int64(max(seconds, 0) / timeBase, in: 0...9e18, rounding: .down) ?? 0
        let (target, overflow) = startPTS.addingReportingOverflow(offset)
        if overflow { throw VideoError.invalidFrame(path: path, reason: "a seek to \(seconds) s lies beyond what the clip's time base can say") }
        var rc = av_seek_frame(format, streamIndex, target, AVSEEK_FLAG_BACKWARD)
        if rc < 0 { rc = av_seek_frame(format, streamIndex, startPTS, AVSEEK_FLAG_BACKWARD) }
        if rc < 0 { throw VideoError.unreadable(path: path, ffmpeg: "seek failed: \(ffmpegMessage(rc))") }
        avcodec_flush_buffers(codec)
        inputEnded = false
        finished = false
        lastTime = nil
        nextIndex = -1   // resolved from the first decoded frame's timestamp
        packetsRead = 0
        hasSeeked = true
    }

    // MARK: decoding

    private func decodeNext() throws -> VideoFrame? {
        guard let codec, let frame, let packet, let format else { return nil }
        while !finished {
            let rc = avcodec_receive_frame(codec, frame)
            if rc == 0 {
                let start = ContinuousClock.now
                defer {
                    av_frame_unref(frame)
                    timings.convert += ContinuousClock.now - start
                }
                return try convert(frame)
            }
            if rc == cffmpeg_error_eof() { finished = true; break }
            if rc != cffmpeg_error_eagain() {
                finished = true
                throw VideoError.corrupt(path: path, frame: max(nextIndex, 0), time: lastTime, ffmpeg: decodingMessage(rc))
            }
            if inputEnded { finished = true; break }
            // Feed one more packet of our stream.
            let r = av_read_frame(format, packet)
            if r < 0 {
                inputEnded = true
                avcodec_send_packet(codec, nil)
                if r != cffmpeg_error_eof() {
                    finished = true
                    throw VideoError.corrupt(path: path, frame: max(nextIndex, 0), time: lastTime, ffmpeg: decodingMessage(r))
                }
                continue
            }
            defer { av_packet_unref(packet) }
            guard packet.pointee.stream_index == streamIndex else { continue }
            packetsRead += 1
            let s = avcodec_send_packet(codec, packet)
            if s < 0 && s != cffmpeg_error_eagain() {
                finished = true
                throw VideoError.corrupt(path: path, frame: max(nextIndex, 0), time: lastTime, ffmpeg: decodingMessage(s))
            }
        }
        // A container that lists more packets than the file holds, or declares an end past the file's, was cut short.
        if nextIndex >= 0, !hasSeeked {
            if containerFrames > 1, packetsRead < containerFrames {
                throw VideoError.truncated(path: path, framesDecoded: nextIndex, framesExpected: containerFrames)
            }
            if let reason = info.cutShort { throw VideoError.cutShort(path: path, framesDecoded: nextIndex, reason: reason) }
            // A demuxer that met damaged data may end the stream there as if the file ended (Matroska does, the
            // rest of the cluster and every cluster after it lost): with no frame count or declared end to
            // compare, what it logged is the only sign, and a shorter clip read as a whole one is what must
            // not happen. Said at the end, after every frame it could read (where the damage lies it does not
            // say: it may have found it while probing the file's start).
            if damage.errors > 0, Self.demuxersEndingAtDamage.contains(info.container) {
                throw VideoError.corrupt(path: path, frame: nextIndex, time: lastTime,
                                         ffmpeg: "the \(info.container) demuxer met damaged data (\(damage.first)) and ended the stream there or skipped it, so frames may be missing")
            }
            // An FLV tag whose sizes disagree is skipped, with what follows up to the next tag found.
            if info.container == "flv", damage.resyncs > 0 {
                throw VideoError.corrupt(path: path, frame: nextIndex, time: lastTime,
                                         ffmpeg: "the FLV demuxer found a tag whose sizes disagree (damaged data) and skipped to the next tag it could find, so frames are missing")
            }
            // A transport stream resyncs past a damaged or missing stretch without an error; the video PID's
            // continuity counter is what shows packets of the video were lost (a stream spliced without its
            // discontinuity flag shows the same, and is said the same way: frames may be missing there too).
            // (Where it broke the demuxer does not say: it may have read past the damage while probing the start.)
            if info.container == "mpegts", damage.gaps(pid: stream.pointee.id) > 0 {
                throw VideoError.corrupt(path: path, frame: nextIndex, time: lastTime,
                                         ffmpeg: "the transport stream's video (PID \(stream.pointee.id)) has a break in its packets' continuity counter: packets were lost there, so frames are missing or damaged (or two recordings were joined without marking it)")
            }
            // A packet of the video read shorter than it declares (the file cut inside it) or marked damaged by the
            // demuxer: any container (MPEG-PS, cut, shows nothing else). The MPEG-PS demuxer marks a packet only when
            // the file ends inside it, so one of any stream (audio, cut) is a cut file, and the video after the cut
            // is lost with it.
            if damage.corruptPackets(stream: streamIndex) > 0 || (info.container == "mpeg" && damage.anyCorruptPacket) {
                throw VideoError.corrupt(path: path, frame: nextIndex, time: lastTime,
                                         ffmpeg: "the \(info.container) demuxer read a packet shorter than it declares (the file cut inside it) or marked it damaged, so frames are missing or damaged")
            }
        }
        return nil
    }

    /// Reads YUV as the frame declares it, as FFmpeg's scale filter does and so OpenCV's FFmpeg back
    /// end, which MediaPipe's users decode with: the matrix of the frame's colour space (BT.709 for HD
    /// footage; swscale on its own assumes BT.601, which shifted colours by up to 16 levels and moved
    /// keypoints on such clips) and, where the frame states one, its range. Undeclared, swscale's
    /// defaults stand (BT.601; full range for the yuvj formats).
    static func useDeclaredColour(_ scaler: OpaquePointer, of f: UnsafeMutablePointer<AVFrame>) {
        var inverse: UnsafeMutablePointer<Int32>?, table: UnsafeMutablePointer<Int32>?
        var sourceFull: Int32 = 0, targetFull: Int32 = 0, brightness: Int32 = 0, contrast: Int32 = 0, saturation: Int32 = 0
        guard sws_getColorspaceDetails(scaler, &inverse, &sourceFull, &table, &targetFull, &brightness, &contrast, &saturation) >= 0 else { return }
        let range = f.pointee.color_range
        if range != AVCOL_RANGE_UNSPECIFIED { sourceFull = range == AVCOL_RANGE_JPEG ? 1 : 0 }
        // sws_getCoefficients takes FFmpeg's colour-space numbers and gives BT.601 for those it has no table for.
        sws_setColorspaceDetails(scaler, sws_getCoefficients(Int32(f.pointee.colorspace.rawValue)), sourceFull, table, targetFull,
                                 brightness, contrast, saturation)
    }

    private func convert(_ f: UnsafeMutablePointer<AVFrame>) throws -> VideoFrame {
        let w = f.pointee.width, h = f.pointee.height, fmt = f.pointee.format
        guard w > 0, h > 0 else {
            throw VideoError.corrupt(path: path, frame: max(nextIndex, 0), time: lastTime, ffmpeg: "decoded a \(w)x\(h) frame")
        }
        let key = (w, h, fmt, Int32(f.pointee.colorspace.rawValue), Int32(f.pointee.color_range.rawValue))
        if scaler == nil || scalerKey != key {
            sws_freeContext(scaler)
            // Bicubic, as OpenCV's FFmpeg back end converts (matters only for chroma upsampling).
            scaler = sws_getContext(w, h, AVPixelFormat(fmt), w, h, AV_PIX_FMT_RGB24, Int32(SWS_BICUBIC), nil, nil, nil)
            scalerKey = key
            guard let scaler else {
                throw VideoError.invalidFrame(path: path, reason: "cannot convert pixel format \(fmt) to RGB")
            }
            Self.useDeclaredColour(scaler, of: f)
        }
        let width = Int(w), height = Int(h)
        // swscale writes whole vectors: it gets an aligned, padded destination (see FFmpegImageBuffer),
        // and the rows are then packed into the frame.
        if destination == nil || destination!.rows != height || destination!.lineSize < FFmpegImageBuffer.rowBytes(width: width, bytesPerPixel: 3) {
            destination = FFmpegImageBuffer(width: width, bytesPerPixel: 3, rows: height)
        }
        let target = destination!
        let dst: [UnsafeMutablePointer<UInt8>?] = [target.base, nil, nil, nil]
        let dstStride: [Int32] = [Int32(target.lineSize), 0, 0, 0]
        let scaled = scaleFrame(scaler, from: f, into: dst, strides: dstStride, height: h)
        guard scaled == h else {
            throw VideoError.corrupt(path: path, frame: max(nextIndex, 0), time: lastTime,
                                     ffmpeg: "colour conversion failed (\(scaled < 0 ? ffmpegMessage(scaled) : "\(scaled) of \(h) rows"))")
        }
        // Every byte is written by the row copies (no zero fill first: 6 MB a frame at 1080p).
        let rgb = [UInt8](unsafeUninitializedCapacity: width * height * 3) { buf, count in
            for y in 0..<height {
                (buf.baseAddress! + y * width * 3).initialize(from: target.row(y), count: width * 3)
            }
            count = width * height * 3
        }
        let pts = f.pointee.best_effort_timestamp
        // A timestamp from the container: one past the range of times (or whose difference overflows) is
        // taken as missing, and the frame timed after the one before it.
        let (elapsed, overflow) = pts.subtractingReportingOverflow(startPTS)
        var time: Double? = pts == cffmpeg_nopts() || overflow ? nil : Double(elapsed) * timeBase
        if let t = time, !(t.isFinite && InputRange.seconds.contains(abs(t))) { time = nil }
        if nextIndex < 0 {
            // First frame after a seek: its index is its rank among all packet timestamps.
            if let index = ptsIndex, !index.isEmpty, pts != cffmpeg_nopts() {
                nextIndex = lowerBound(index, pts)
            } else {
                nextIndex = InputRange.int((time ?? 0) / frameDuration, in: InputRange.frames) ?? 0
            }
        }
        guard let t = Self.repairedTime(time, after: lastTime, step: frameDuration) else {
            throw VideoError.corrupt(path: path, frame: nextIndex, time: lastTime,
                                     ffmpeg: "frame times run past \(InputRange.wholeText(InputRange.seconds.upperBound)) s (damaged timestamps)")
        }
        lastTime = t
        var out = VideoFrame(index: nextIndex, time: t, width: width, height: height, pixels: rgb)
        nextIndex += 1
        if orientation != 1 { out = out.oriented(exif: orientation) }
        return out
    }

    /// The EXIF orientation (1-8) that turns a stream's decoded frames upright by its display matrix, as
    /// FFmpeg's command line turns them (fftools' autorotate): a quarter turn from the matrix's angle, with
    /// a flip where the signs of its entries say the picture is mirrored (a matrix that mirrors reads as a
    /// turn of 180 or 0 degrees to `av_display_rotation_get`, which ignores the flip). Other angles are
    /// taken to the nearest quarter turn.
    static func displayOrientation(_ m: [Int32]) -> Int {
        // A matrix with a zero column is no picture transform (av_display_rotation_get gives NaN); FFmpeg leaves
        // such frames as they are.
        guard m.count >= 9, (m[0], m[3]) != (0, 0), (m[1], m[4]) != (0, 0) else { return 1 }
        let ccw = m.withUnsafeBufferPointer { cffmpeg_display_rotation($0.baseAddress!) }
        guard ccw.isFinite, abs(ccw) <= 720 else { return 1 }
        let theta = ((Int((-ccw).rounded()) % 360) + 360) % 360
        switch theta {
        case 90: return m[3] > 0 ? 5 : 6      // transpose: cclock_flip (the main diagonal), or clock
        case 180:
            switch (m[0] < 0, m[4] < 0) {
            case (true, true): return 3
            case (true, false): return 2      // hflip
            case (false, true): return 4      // vflip
            case (false, false): return 1
            }
        case 270: return m[3] < 0 ? 7 : 8     // transpose: clock_flip (the other diagonal), or cclock
        case 0: return m[4] < 0 ? 4 : 1
        default:
            let nearest = [0, 90, 180, 270, 360].min { abs($0 - theta) < abs($1 - theta) }!
            return [0: 1, 90: 6, 180: 3, 270: 8, 360: 1][nearest]!
        }
    }

    /// An EXIF orientation as a mirror (left-right, first) and then a clockwise turn: 2 mirrors, 4 mirrors
    /// and turns 180 (a vertical flip), 5 mirrors and turns 270 (the transpose), 7 mirrors and turns 90.
    static func turn(_ orientation: Int) -> (clockwise: Int, mirrored: Bool) {
        switch orientation {
        case 2: return (0, true)
        case 3: return (180, false)
        case 4: return (180, true)
        case 5: return (270, true)
        case 6: return (90, false)
        case 7: return (90, true)
        case 8: return (270, false)
        default: return (0, false)
        }
    }

    /// The duration a frame without a usable timestamp is given: one frame at the header's average rate,
    /// else its nominal rate, else 25 fps, each taken only inside the range of rates (a damaged header's
    /// 1e-300 fps would step a frame by 1e300 s).
    static func frameStep(average: Double, nominal: Double) -> Double {
        let rate = [average, nominal].first { $0.isFinite && InputRange.frameRate.contains($0) } ?? 25
        return 1 / rate
    }

    /// A frame's time: its own when it is later than the frame before, else the frame before's plus
    /// `step` (the first frame without one starts at 0). Nil when that leaves the range of times (either
    /// side of 0), which only damaged timestamps reach, and which later stages turn into integers.
    static func repairedTime(_ time: Double?, after last: Double?, step: Double) -> Double? {
        var t = time
        if let last, t == nil || t! <= last { t = last + step }
        let value = t ?? 0
        return value.isFinite && InputRange.seconds.contains(abs(value)) ? value : nil
    }

    private func lowerBound(_ a: [Int64], _ v: Int64) -> Int {
        var lo = 0, hi = a.count
        while lo < hi { let m = (lo + hi) / 2; if a[m] < v { lo = m + 1 } else { hi = m } }
        return lo
    }

    /// Whether FFmpeg decodes frames of this size at all (`av_image_check_size`: a frame's bytes must be
    /// addressable by an int); a larger one is refused by the decoder without a frame.
    public static func decodableSize(width: Int, height: Int) -> Bool {
        guard width > 0, height > 0, width <= Int(UInt32.max), height <= Int(UInt32.max) else { return false }
        return av_image_check_size(UInt32(width), UInt32(height), 0, nil) >= 0
    }

    /// Demuxers that open what the input names: other files (a concatenation list, a playlist, a
    /// manifest) or network streams. A file from outside is read as itself, never as a list of others,
    /// which `RegularFile` never checked and whose frames would land in this file's output.
    static let demuxersThatOpenOthers: Set<String> = [
        "concat", "hls", "applehttp", "dash", "imf", "sdp", "rtsp", "rtp", "sap", "webm_dash_manifest",
    ]

    /// Every demuxer this FFmpeg has but those that open others, as FFmpeg's `format_whitelist` lists them.
    static let allowedDemuxers: String = {
        var names: [String] = []
        var opaque: UnsafeMutableRawPointer? = nil
        while let demuxer = av_demuxer_iterate(&opaque) {
            let own = String(cString: demuxer.pointee.name).split(separator: ",").map(String.init)
            if own.contains(where: demuxersThatOpenOthers.contains) { continue }
            names += own
        }
        return names.joined(separator: ",")
    }()

    /// `avformat_open_input` for a file from outside: only the file protocol, no demuxer that opens
    /// other files or streams, and an image's name taken as it is (the image demuxer would read
    /// `clip%03d.png` as a numbered sequence of other files).
    /// FFmpeg reads the file through an I/O context opened on the name of the regular file as checked
    /// (`RegularFile.pinned`), so a file swapped for a FIFO after the check is refused, not waited on. The
    /// format context keeps the file's own name: the demuxer is chosen from the file's bytes and its extension as
    /// before (`image2` for a `.png` whose bytes no image demuxer knows, which then fails to decode), and
    /// `image2` reads the frame through that context. Close with `closeInput`, which closes the I/O context too.
    /// The demuxers whose logged errors mean frames were lost (`DemuxerDamage`): Matroska and WebM, which list
    /// no frame count, end the stream at damaged data inside a cluster as if the file ended. The others have
    /// their own check (MP4, MOV and AVI list their frames; a GIF ends in a trailer), and some log errors
    /// about a whole file (the GIF demuxer, of bytes after its trailer), so theirs are not taken for lost frames.
    static let demuxersEndingAtDamage: Set<String> = ["matroska,webm"]

    /// With `damage`, the demuxer's errors about the file are noted there (`quietFFmpegLogs`).
    static func openInput(_ ctx: inout UnsafeMutablePointer<AVFormatContext>?, _ path: String, damage: DemuxerDamage? = nil) throws -> Int32 {
        var stamp: RegularFile.Stamp?
        return try openInput(&ctx, path, damage: damage, stamp: &stamp)
    }

    /// `stamp`: the opened file's (`RegularFile.stamp` of the pinned name).
    static func openInput(_ ctx: inout UnsafeMutablePointer<AVFormatContext>?, _ path: String, damage: DemuxerDamage?,
                          stamp: inout RegularFile.Stamp?) throws -> Int32 {
        var options: OpaquePointer? = nil
        av_dict_set(&options, "protocol_whitelist", "file", 0)
        av_dict_set(&options, "format_whitelist", allowedDemuxers, 0)
        av_dict_set(&options, "pattern_type", "none", 0)
        defer { av_dict_free(&options) }
        do {
            return try RegularFile.pinned(path) { name in
                stamp = RegularFile.stamp(name)
                var io: OpaquePointer? = nil
                av_dict_set(&io, "protocol_whitelist", "file", 0)
                defer { av_dict_free(&io) }
                var pb: UnsafeMutablePointer<AVIOContext>? = nil
                let rc = avio_open2(&pb, "file:" + name, AVIO_FLAG_READ, nil, &io)
                guard rc >= 0 else { return rc }
                guard let c = avformat_alloc_context() else {
                    avio_closep(&pb)
                    return cffmpeg_error_nomem()
                }
                c.pointee.pb = pb
                if let damage { c.pointee.opaque = UnsafeMutableRawPointer(damage.pointer) }
                var opened: UnsafeMutablePointer<AVFormatContext>? = c
                // On failure FFmpeg frees the format context, but not an I/O context it was given.
                let result = avformat_open_input(&opened, "file:" + path, nil, &options)
                if result < 0 { avio_closep(&pb) }
                ctx = opened
                return result
            }
        } catch let refusal as RegularFile.Refusal {
            throw VideoError.unreadable(path: path, ffmpeg: refusal.reason)
        }
    }

    /// Closes a format context from `openInput` and the I/O context it was given.
    static func closeInput(_ ctx: inout UnsafeMutablePointer<AVFormatContext>?) {
        var pb = ctx?.pointee.pb
        avformat_close_input(&ctx)
        avio_closep(&pb)
    }

    /// Reads every packet of the video stream without decoding: their timestamps, sorted.
    static func scanPTS(path: String) throws -> [Int64] {
        if let problem = RegularFile.problem(path) { throw VideoError.unreadable(path: path, ffmpeg: problem) }
        var ctx: UnsafeMutablePointer<AVFormatContext>? = nil
        var rc = try openInput(&ctx, path)
        guard rc >= 0, let c = ctx else { throw VideoError.notAVideo(path: path, ffmpeg: ffmpegMessage(rc)) }
        defer { closeInput(&ctx) }
        rc = avformat_find_stream_info(c, nil)
        guard rc >= 0 else { throw VideoError.notAVideo(path: path, ffmpeg: ffmpegMessage(rc)) }
        let index = av_find_best_stream(c, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
        guard index >= 0 else { throw VideoError.noVideoStream(path: path) }
        var pkt = av_packet_alloc()
        defer { av_packet_free(&pkt) }
        var stamps: [Int64] = []
        var fallback: Int64 = 0
        while av_read_frame(c, pkt) >= 0 {
            if pkt!.pointee.stream_index == index {
                var ts = pkt!.pointee.pts
                if ts == cffmpeg_nopts() { ts = pkt!.pointee.dts }
                if ts == cffmpeg_nopts() { ts = fallback }
                // A damaged packet's timestamp or duration near the end of the range ends the stepping there.
                let (next, overflow) = ts.addingReportingOverflow(max(pkt!.pointee.duration, 1))
                fallback = overflow ? Int64.max : next
                stamps.append(ts)
            }
            av_packet_unref(pkt)
        }
        return stamps.sorted()
    }
}

private let AVERROR_DECODER_NOT_FOUND_CODE: Int32 = {
    // FFERRTAG(0xF8,'D','E','C'), negated
    let tag = Int32(0xF8) | (Int32(UInt8(ascii: "D")) << 8) | (Int32(UInt8(ascii: "E")) << 16) | (Int32(UInt8(ascii: "C")) << 24)
    return -tag
}()

extension VideoFrame {
    /// The frame turned upright from EXIF orientation `exif` (1-8) as OpenCV does: 2-4 flip, 5-8
    /// transpose and then flip (6 is a quarter turn clockwise, 8 counter-clockwise).
    public func oriented(exif orientation: Int) -> VideoFrame {
        guard (2...8).contains(orientation) else { return self }
        let W = width, H = height
        let transposed = orientation >= 5
        let w = transposed ? H : W, h = transposed ? W : H
        var out = [UInt8](repeating: 0, count: pixels.count)
        pixels.withUnsafeBufferPointer { src in out.withUnsafeMutableBufferPointer { dst in
            for dy in 0..<h {
                for dx in 0..<w {
                    let (sx, sy): (Int, Int)
                    switch orientation {
                    case 2: (sx, sy) = (W - 1 - dx, dy)
                    case 3: (sx, sy) = (W - 1 - dx, H - 1 - dy)
                    case 4: (sx, sy) = (dx, H - 1 - dy)
                    case 5: (sx, sy) = (dy, dx)
                    case 6: (sx, sy) = (dy, H - 1 - dx)
                    case 7: (sx, sy) = (W - 1 - dy, H - 1 - dx)
                    default: (sx, sy) = (W - 1 - dy, dx)
                    }
                    let s = (sy * W + sx) * 3, d = (dy * w + dx) * 3
                    dst[d] = src[s]; dst[d + 1] = src[s + 1]; dst[d + 2] = src[s + 2]
                }
            }
        } }
        return VideoFrame(index: index, time: time, width: w, height: h, pixels: out)
    }
}

/// What a demuxer logged as wrong with the file a reader has open (`cffmpeg_damage`, filled by FFmpeg's log
/// callback): kept apart from the reader so it outlives the format context, which is closed first.
final class DemuxerDamage {
    let pointer = UnsafeMutablePointer<cffmpeg_damage>.allocate(capacity: 1)
    init() {
        pointer.initialize(to: cffmpeg_damage())
        pointer.pointee.magic = UInt32(CFFMPEG_DAMAGE_MAGIC)
    }
    deinit { pointer.deallocate() }
    /// Errors logged so far.
    var errors: Int { Int(pointer.pointee.errors) }
    /// Breaks the MPEG-TS demuxer found in the continuity counter of the transport stream packets of `pid`:
    /// each is at least one packet of that PID missing (0 for any other demuxer).
    func gaps(pid: Int32) -> Int { Self.count(pointer.pointee.gaps, Int(pid)) }
    /// Packets of stream `index` the demuxer read short (cut inside) or marked damaged.
    func corruptPackets(stream index: Int32) -> Int { Self.count(pointer.pointee.corrupt, Int(index)) }
    private static func count(_ tally: cffmpeg_tally, _ key: Int) -> Int {
        let keys = withUnsafeBytes(of: tally.key) { Array($0.bindMemory(to: Int32.self)) }
        let counts = withUnsafeBytes(of: tally.count) { Array($0.bindMemory(to: Int32.self)) }
        let known = min(max(Int(tally.keys), 0), keys.count)
        // A tally that ran out of room may have missed this key's: counted as one, which errs on saying so.
        return (0..<known).first { Int(keys[$0]) == key }.map { Int(counts[$0]) } ?? (tally.overflowed != 0 ? 1 : 0)
    }
    /// Whether the demuxer read short or marked damaged a packet of any stream.
    var anyCorruptPacket: Bool { pointer.pointee.corrupt.keys > 0 || pointer.pointee.corrupt.overflowed != 0 }
    /// Times the FLV demuxer found a tag's sizes disagree and skipped to the next tag it could find.
    var resyncs: Int { Int(pointer.pointee.resyncs) }
    /// The first, in FFmpeg's words.
    var first: String {
        withUnsafeBytes(of: pointer.pointee.first) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
