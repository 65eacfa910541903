import CFFmpeg
import Foundation

/// Writes single RGB frames as PNG files through FFmpeg's PNG encoder.
public enum ImageWriter {
    /// Encodes `frame` as PNG at `url`, atomically (temporary name, then rename).
    public static func writePNG(_ frame: VideoFrame, to url: URL) throws {
        _ = quietFFmpegLogs
        let path = url.path
        guard let encoder = avcodec_find_encoder(AV_CODEC_ID_PNG) else {
            throw VideoError.encoderUnavailable(path: path, codec: "PNG")
        }
        var cc = avcodec_alloc_context3(encoder)
        defer { avcodec_free_context(&cc) }
        cc!.pointee.width = Int32(frame.width)
        cc!.pointee.height = Int32(frame.height)
        cc!.pointee.pix_fmt = AV_PIX_FMT_RGB24
        cc!.pointee.time_base = AVRational(num: 1, den: 25)
        var rc = avcodec_open2(cc, encoder, nil)
        guard rc >= 0 else { throw VideoError.writeFailed(path: path, ffmpeg: ffmpegMessage(rc)) }
        var f = av_frame_alloc()
        defer { av_frame_free(&f) }
        f!.pointee.width = Int32(frame.width)
        f!.pointee.height = Int32(frame.height)
        f!.pointee.format = AV_PIX_FMT_RGB24.rawValue
        av_frame_get_buffer(f, 0)
        let stride = Int(f!.pointee.linesize.0)
        frame.pixels.withUnsafeBufferPointer { src in
            for y in 0..<frame.height {
                (f!.pointee.data.0! + y * stride).update(from: src.baseAddress! + y * frame.width * 3, count: frame.width * 3)
            }
        }
        var pkt = av_packet_alloc()
        defer { av_packet_free(&pkt) }
        rc = avcodec_send_frame(cc, f)
        if rc >= 0 { rc = avcodec_send_frame(cc, nil) }
        if rc >= 0 { rc = avcodec_receive_packet(cc, pkt) }
        guard rc >= 0 else { throw VideoError.writeFailed(path: path, ffmpeg: ffmpegMessage(rc)) }
        let data = Data(bytes: pkt!.pointee.data, count: Int(pkt!.pointee.size))
        do { try data.write(to: url, options: .atomic) } catch {
            throw VideoError.writeFailed(path: path, ffmpeg: error.localizedDescription)
        }
    }
}
