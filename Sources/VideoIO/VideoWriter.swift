import CFFmpeg
import FileSystem
import Foundation

/// Encodes RGB frames into a video file: H.264 (libx264) when this FFmpeg has it, else MPEG-4 Part 2.
///
/// Writes to a temporary name beside the destination and renames it on `finish()`, so an
/// interrupted run never leaves a half-written clip.
public final class VideoWriter {
    public let path: String
    public let width: Int
    public let height: Int
    public let frameRate: Rational
    /// The encoder chosen, e.g. "libx264" or "mpeg4".
    public let encoderName: String

    private let temporaryPath: String
    private var format: UnsafeMutablePointer<AVFormatContext>?
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    private var stream: UnsafeMutablePointer<AVStream>
    private var frame: UnsafeMutablePointer<AVFrame>?
    /// The RGB input as swscale reads it: FFmpeg-allocated (aligned line sizes, padded end), because
    /// swscale's vector loads read past the last pixel of a row; a packed `width * 3` array is too short.
    private var source: UnsafeMutablePointer<AVFrame>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var scaler: OpaquePointer?
    private var written = 0
    private var lastPTS: Int64 = -1
    private var finished = false
    /// Time base of the encoder: 1/90000 s, fine enough for any rate and for variable timing.
    private static let ticks: Int32 = 90000

    /// How a container keeps time, which decides the time base and the timestamps written.
    enum Timing {
        /// mp4, mov, m4v, mkv: any timestamps, in 1/90000 s.
        case variable
        /// avi: one frame per tick of 1/rate; a finer time base would play as a faster rate.
        case constant
        /// gif: delays in hundredths of a second.
        case gif
    }

    /// Output file extensions and how each keeps time.
    static let containers: [String: Timing] = ["mp4": .variable, "mov": .variable, "m4v": .variable, "mkv": .variable,
                                               "avi": .constant, "gif": .gif]
    /// The extensions `VideoWriter` writes.
    public static var supportedExtensions: [String] { containers.keys.sorted() }

    /// Throws unless `url`'s extension names a container this writer handles and FFmpeg has an encoder for it.
    public static func check(_ url: URL) throws {
        let ext = url.pathExtension.lowercased()
        guard let timing = containers[ext] else {
            throw VideoError.writeFailed(path: url.path, ffmpeg: "cannot write .\(ext) video; use one of \(supportedExtensions.map { "." + $0 }.joined(separator: ", "))")
        }
        quietFFmpegLogs()
        if timing == .gif, avcodec_find_encoder(AV_CODEC_ID_GIF) == nil {
            throw VideoError.encoderUnavailable(path: url.path, codec: "GIF")
        }
    }
    private let timing: Timing

    /// `rotation`: clockwise display rotation to record in the file's metadata (players and
    /// `VideoReader` turn frames by it). `quality`: x264 CRF (lower is better).
    public init(url: URL, width: Int, height: Int, frameRate: Rational,
                rotation: Int = 0, quality: Int = 18) throws {
        quietFFmpegLogs()
        path = url.path
        self.width = width
        self.height = height
        self.frameRate = frameRate
        let ext = url.pathExtension.isEmpty ? "mp4" : url.pathExtension.lowercased()
        temporaryPath = url.deletingLastPathComponent()
            .appendingPathComponent(AtomicFile.fitted(".", url.lastPathComponent, ".\(getpid()).partial.\(ext)")).path
        guard width > 0, height > 0 else { throw VideoError.invalidFrame(path: path, reason: "frame size must be positive") }
        try Self.check(url.pathExtension.isEmpty ? url.appendingPathExtension("mp4") : url)
        timing = Self.containers[ext]!

        var ctx: UnsafeMutablePointer<AVFormatContext>? = nil
        var rc = avformat_alloc_output_context2(&ctx, nil, nil, temporaryPath)
        guard rc >= 0, let ctx else { throw VideoError.writeFailed(path: path, ffmpeg: ffmpegMessage(rc)) }
        format = ctx
        let encoder = timing == .gif ? avcodec_find_encoder(AV_CODEC_ID_GIF)
                                     : avcodec_find_encoder_by_name("libx264") ?? avcodec_find_encoder(AV_CODEC_ID_MPEG4)
        guard let encoder else {
            avformat_free_context(ctx)
            throw VideoError.encoderUnavailable(path: path, codec: timing == .gif ? "GIF" : "H.264 or MPEG-4")
        }
        encoderName = String(cString: encoder.pointee.name)
        let isX264 = encoderName == "libx264"
        guard isX264 || timing == .gif || (width % 2 == 0 && height % 2 == 0) else {
            avformat_free_context(ctx)
            throw VideoError.invalidFrame(path: path, reason: "MPEG-4 needs even frame sizes, got \(width)x\(height)")
        }
        guard let st = avformat_new_stream(ctx, nil), let cc = avcodec_alloc_context3(encoder) else {
            avformat_free_context(ctx)
            throw VideoError.writeFailed(path: path, ffmpeg: "out of memory")
        }
        stream = st
        codec = cc
        cc.pointee.width = Int32(width)
        cc.pointee.height = Int32(height)
        // 4:2:0 halves chroma, which needs even sizes; odd sizes keep full chroma (4:4:4). GIF takes a
        // palette: 3-3-2 bit RGB, which swscale can produce.
        cc.pointee.pix_fmt = timing == .gif ? AV_PIX_FMT_RGB8
            : (width % 2 == 0 && height % 2 == 0) ? AV_PIX_FMT_YUV420P : AV_PIX_FMT_YUV444P
        switch timing {
        case .variable: cc.pointee.time_base = AVRational(num: 1, den: Self.ticks)
        case .constant: cc.pointee.time_base = AVRational(num: Int32(frameRate.denominator), den: Int32(frameRate.numerator))
        case .gif: cc.pointee.time_base = AVRational(num: 1, den: 100)
        }
        cc.pointee.framerate = frameRate.av
        cc.pointee.gop_size = 12
        // AVI stores no presentation times: reordered (B) frames would come back shifted by the reorder delay.
        if timing == .constant { cc.pointee.max_b_frames = 0 }
        if isX264 {
            av_opt_set(cc.pointee.priv_data, "crf", "\(quality)", 0)
            av_opt_set(cc.pointee.priv_data, "preset", "veryfast", 0)
        } else {
            cc.pointee.bit_rate = Int64(width * height) * 8
        }
        if ctx.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0 {
            cc.pointee.flags |= Int32(AV_CODEC_FLAG_GLOBAL_HEADER)
        }
        rc = avcodec_open2(cc, encoder, nil)
        guard rc >= 0 else {
            avcodec_free_context(&codec)
            avformat_free_context(ctx)
            throw VideoError.writeFailed(path: path, ffmpeg: ffmpegMessage(rc))
        }
        avcodec_parameters_from_context(st.pointee.codecpar, cc)
        st.pointee.time_base = cc.pointee.time_base
        st.pointee.avg_frame_rate = frameRate.av
        if rotation % 360 != 0 { _ = cffmpeg_stream_set_rotation(st, Double(rotation)) }
        rc = avio_open(&ctx.pointee.pb, temporaryPath, AVIO_FLAG_WRITE)
        guard rc >= 0 else {
            avcodec_free_context(&codec)
            avformat_free_context(ctx)
            format = nil
            throw VideoError.writeFailed(path: path, ffmpeg: ffmpegMessage(rc))
        }
        // mp4/mov: index at the front, so a copy cut short still plays up to the cut.
        var options: OpaquePointer? = nil
        if ["mp4", "mov", "m4v"].contains(ext.lowercased()) { av_dict_set(&options, "movflags", "+faststart", 0) }
        rc = avformat_write_header(ctx, &options)
        av_dict_free(&options)
        guard rc >= 0 else {
            cleanUp(removeTemporary: true)
            throw VideoError.writeFailed(path: path, ffmpeg: ffmpegMessage(rc))
        }
        frame = av_frame_alloc()
        source = av_frame_alloc()
        packet = av_packet_alloc()
        frame!.pointee.format = cc.pointee.pix_fmt.rawValue
        frame!.pointee.width = Int32(width)
        frame!.pointee.height = Int32(height)
        source!.pointee.format = AV_PIX_FMT_RGB24.rawValue
        source!.pointee.width = Int32(width)
        source!.pointee.height = Int32(height)
        // align 0: FFmpeg picks the alignment its SIMD code needs for this CPU, and pads the end.
        rc = av_frame_get_buffer(frame, 0)
        if rc >= 0 { rc = av_frame_get_buffer(source, 0) }
        scaler = sws_getContext(Int32(width), Int32(height), AV_PIX_FMT_RGB24, Int32(width), Int32(height),
                                cc.pointee.pix_fmt, Int32(SWS_BICUBIC), nil, nil, nil)
        guard rc >= 0, scaler != nil else {
            cleanUp(removeTemporary: true)
            throw VideoError.writeFailed(path: path, ffmpeg: rc < 0 ? ffmpegMessage(rc) : "no colour converter from RGB")
        }
    }

    deinit { if !finished { cleanUp(removeTemporary: true) } }

    /// Appends a frame. `time` (seconds) sets its presentation time for variable-rate clips;
    /// without it frames follow each other at the writer's frame rate.
    public func append(_ rgb: VideoFrame, time: Double? = nil) throws {
        guard !finished, let codec, let frame else { throw VideoError.writeFailed(path: path, ffmpeg: "writer is finished") }
        guard rgb.width == width, rgb.height == height else {
            throw VideoError.invalidFrame(path: path, reason: "frame \(written) is \(rgb.width)x\(rgb.height), the clip is \(width)x\(height)")
        }
        guard let source, av_frame_make_writable(frame) >= 0, av_frame_make_writable(source) >= 0 else {
            throw VideoError.writeFailed(path: path, ffmpeg: "frame buffers are not writable")
        }
        let sourceStride = Int(source.pointee.linesize.0)
        rgb.pixels.withUnsafeBufferPointer { buf in
            for y in 0..<height {
                (source.pointee.data.0! + y * sourceStride).update(from: buf.baseAddress! + y * width * 3, count: width * 3)
            }
        }
        let converted = scaleFrame(scaler, from: source, to: frame, height: Int32(height))
        guard converted == Int32(height) else {
            throw VideoError.writeFailed(path: path, ffmpeg: "colour conversion of frame \(written) failed")
        }
        let seconds = time ?? Double(written) / frameRate.value
        var pts: Int64
        switch timing {
        case .variable: pts = Int64((seconds * Double(Self.ticks)).rounded())
        case .constant: pts = Int64(written)
        case .gif: pts = Int64((seconds * 100).rounded())
        }
        if pts <= lastPTS { pts = lastPTS + 1 }
        lastPTS = pts
        frame.pointee.pts = pts
        written += 1
        try send(frame, codec)
    }

    /// Flushes the encoder, writes the trailer and moves the file into place.
    public func finish() throws {
        guard !finished, let codec else { return }
        try send(nil, codec)
        let rc = av_write_trailer(format)
        cleanUp(removeTemporary: false)
        finished = true
        guard rc >= 0 else {
            unlink(temporaryPath)
            throw VideoError.writeFailed(path: path, ffmpeg: ffmpegMessage(rc))
        }
        do { try AtomicFile.commit(URL(fileURLWithPath: temporaryPath), to: URL(fileURLWithPath: path)) } catch let e as AtomicFile.WriteError {
            throw VideoError.writeFailed(path: path, ffmpeg: e.reason)
        }
    }

    private func send(_ f: UnsafeMutablePointer<AVFrame>?, _ cc: UnsafeMutablePointer<AVCodecContext>) throws {
        var rc = avcodec_send_frame(cc, f)
        guard rc >= 0 else { throw VideoError.writeFailed(path: path, ffmpeg: ffmpegMessage(rc)) }
        while true {
            rc = avcodec_receive_packet(cc, packet)
            if rc == cffmpeg_error_eagain() || rc == cffmpeg_error_eof() { return }
            guard rc >= 0 else { throw VideoError.writeFailed(path: path, ffmpeg: ffmpegMessage(rc)) }
            av_packet_rescale_ts(packet, cc.pointee.time_base, stream.pointee.time_base)
            packet!.pointee.stream_index = stream.pointee.index
            rc = av_interleaved_write_frame(format, packet)
            guard rc >= 0 else { throw VideoError.writeFailed(path: path, ffmpeg: ffmpegMessage(rc)) }
        }
    }

    private func cleanUp(removeTemporary: Bool) {
        sws_freeContext(scaler); scaler = nil
        av_frame_free(&frame)
        av_frame_free(&source)
        av_packet_free(&packet)
        avcodec_free_context(&codec)
        if let f = format {
            if f.pointee.pb != nil { avio_closep(&f.pointee.pb) }
            avformat_free_context(f)
            format = nil
        }
        if removeTemporary { unlink(temporaryPath) }
    }
}
