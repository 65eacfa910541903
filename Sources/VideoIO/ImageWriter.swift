import CFFmpeg
import FileSystem
import Foundation

/// Writes single RGB frames as image files through FFmpeg's encoders: PNG, or JPEG for `.jpg`/`.jpeg`.
public enum ImageWriter {
    /// The extensions `write` takes.
    public static let supportedExtensions = ["jpeg", "jpg", "png"]

    /// Throws unless `url`'s extension names a format this writer handles.
    public static func check(_ url: URL) throws {
        guard supportedExtensions.contains(url.pathExtension.lowercased()) else {
            throw VideoError.writeFailed(path: url.path, ffmpeg: "cannot write .\(url.pathExtension) images; use .png or .jpg")
        }
    }

    /// Encodes `frame` in the format `url`'s extension names, atomically (temporary name, then rename).
    public static func write(_ frame: VideoFrame, to url: URL) throws {
        try check(url)
        let ext = url.pathExtension.lowercased()
        if ext == "png" { return try encode(frame, codec: AV_CODEC_ID_PNG, pixelFormat: AV_PIX_FMT_RGB24, name: "PNG", to: url) }
        // Full-range 4:4:4 YCbCr, as JPEG stores it; swscale converts from RGB.
        try encode(frame, codec: AV_CODEC_ID_MJPEG, pixelFormat: AV_PIX_FMT_YUVJ444P, name: "JPEG", to: url)
    }

    /// Encodes `frame` as PNG at `url`, whatever its extension.
    public static func writePNG(_ frame: VideoFrame, to url: URL) throws {
        try encode(frame, codec: AV_CODEC_ID_PNG, pixelFormat: AV_PIX_FMT_RGB24, name: "PNG", to: url)
    }

    private static func encode(_ frame: VideoFrame, codec id: AVCodecID, pixelFormat: AVPixelFormat, name: String, to url: URL) throws {
        quietFFmpegLogs()
        let path = url.path
        guard let encoder = avcodec_find_encoder(id) else { throw VideoError.encoderUnavailable(path: path, codec: name) }
        var cc = avcodec_alloc_context3(encoder)
        defer { avcodec_free_context(&cc) }
        guard let context = cc else { throw VideoError.writeFailed(path: path, ffmpeg: "out of memory") }
        context.pointee.width = Int32(frame.width)
        context.pointee.height = Int32(frame.height)
        context.pointee.pix_fmt = pixelFormat
        context.pointee.time_base = AVRational(num: 1, den: 25)
        if id == AV_CODEC_ID_MJPEG {
            // A fixed quantiser (2 of 1-31): visually lossless, as `-q:v 2` gives.
            context.pointee.flags |= Int32(AV_CODEC_FLAG_QSCALE)
            context.pointee.global_quality = 2 * FF_QP2LAMBDA
        }
        var rc = avcodec_open2(context, encoder, nil)
        guard rc >= 0 else { throw VideoError.writeFailed(path: path, ffmpeg: ffmpegMessage(rc)) }
        // Frames from av_frame_get_buffer: aligned line sizes and padding, as FFmpeg's SIMD code needs.
        var rgb = av_frame_alloc()
        var target = av_frame_alloc()
        defer { av_frame_free(&rgb); av_frame_free(&target) }
        guard let rgb, let target else { throw VideoError.writeFailed(path: path, ffmpeg: "out of memory") }
        for (f, format) in [(rgb, AV_PIX_FMT_RGB24), (target, pixelFormat)] {
            f.pointee.width = Int32(frame.width)
            f.pointee.height = Int32(frame.height)
            f.pointee.format = format.rawValue
            rc = av_frame_get_buffer(f, 0)
            guard rc >= 0 else { throw VideoError.writeFailed(path: path, ffmpeg: ffmpegMessage(rc)) }
        }
        let stride = Int(rgb.pointee.linesize.0)
        frame.pixels.withUnsafeBufferPointer { src in
            for y in 0..<frame.height {
                (rgb.pointee.data.0! + y * stride).update(from: src.baseAddress! + y * frame.width * 3, count: frame.width * 3)
            }
        }
        var input = rgb
        if pixelFormat != AV_PIX_FMT_RGB24 {
            let scaler = sws_getContext(Int32(frame.width), Int32(frame.height), AV_PIX_FMT_RGB24, Int32(frame.width), Int32(frame.height),
                                        pixelFormat, Int32(SWS_BICUBIC | SWS_FULL_CHR_H_INT | SWS_ACCURATE_RND), nil, nil, nil)
            defer { sws_freeContext(scaler) }
            guard scaler != nil else { throw VideoError.writeFailed(path: path, ffmpeg: "no colour converter to \(name)") }
            let rows = scaleFrame(scaler, from: rgb, to: target, height: Int32(frame.height))
            guard rows == Int32(frame.height) else { throw VideoError.writeFailed(path: path, ffmpeg: "colour conversion failed") }
            target.pointee.quality = context.pointee.global_quality
            input = target
        }
        var pkt = av_packet_alloc()
        defer { av_packet_free(&pkt) }
        rc = avcodec_send_frame(context, input)
        if rc >= 0 { rc = avcodec_send_frame(context, nil) }
        if rc >= 0 { rc = avcodec_receive_packet(context, pkt) }
        guard rc >= 0 else { throw VideoError.writeFailed(path: path, ffmpeg: ffmpegMessage(rc)) }
        let data = Data(bytes: pkt!.pointee.data, count: Int(pkt!.pointee.size))
        do { try AtomicFile.write(data, to: url) } catch let e as AtomicFile.WriteError {
            throw VideoError.writeFailed(path: path, ffmpeg: e.reason)
        }
    }
}
