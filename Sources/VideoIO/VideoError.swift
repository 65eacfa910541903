import Foundation

/// Why a video could not be read or written. Every case names the file; FFmpeg's own words ride along.
public enum VideoError: Error, Equatable, CustomStringConvertible {
    case fileNotFound(path: String)
    case unreadable(path: String, ffmpeg: String)
    case notAVideo(path: String, ffmpeg: String)
    case noVideoStream(path: String)
    case unsupportedCodec(path: String, codec: String)
    /// Decoding stopped at `frame` (the frames before it were delivered) because the data is damaged.
    case corrupt(path: String, frame: Int, time: Double?, ffmpeg: String)
    /// The file ends before the frames its container promises.
    case truncated(path: String, framesDecoded: Int, framesExpected: Int)
    /// The file ends before the end its container declares (`VideoInfo.cutShort` says how).
    case cutShort(path: String, framesDecoded: Int, reason: String)
    case encoderUnavailable(path: String, codec: String)
    case writeFailed(path: String, ffmpeg: String)
    case invalidFrame(path: String, reason: String)

    public var path: String {
        switch self {
        case .fileNotFound(let p), .unreadable(let p, _), .notAVideo(let p, _), .noVideoStream(let p),
             .unsupportedCodec(let p, _), .corrupt(let p, _, _, _), .truncated(let p, _, _), .cutShort(let p, _, _),
             .encoderUnavailable(let p, _), .writeFailed(let p, _), .invalidFrame(let p, _):
            return p
        }
    }

    public var description: String {
        switch self {
        case .fileNotFound(let p):
            return "\(p): no such file."
        case .unreadable(let p, let m):
            return "\(p): cannot be read (\(m))."
        case .notAVideo(let p, let m):
            return "\(p): not a video or image FFmpeg can open (\(m))."
        case .noVideoStream(let p):
            return "\(p): has no video stream."
        case .unsupportedCodec(let p, let c):
            return "\(p): no decoder for codec '\(c)' in this FFmpeg build."
        case .corrupt(let p, let f, let t, let m):
            if f == 0 { return "\(p): cannot decode its first frame (\(m))." }
            let at = t.map { String(format: " (t=%.3fs)", $0) } ?? ""
            return "\(p): corrupt data at frame \(f)\(at): \(m); the frames before it were read."
        case .truncated(let p, let got, let expected):
            return "\(p): file is truncated: decoded \(got) of the \(expected) frames its container lists."
        case .cutShort(let p, let got, let reason):
            return "\(p): file is truncated: \(reason); decoding stopped at its end after \(got) frames."
        case .encoderUnavailable(let p, let c):
            return "\(p): this FFmpeg build has no encoder for \(c)."
        case .writeFailed(let p, let m):
            return "\(p): cannot write (\(m))."
        case .invalidFrame(let p, let r):
            return "\(p): \(r)"
        }
    }
}

/// An error code from reading or decoding frames, as a sentence. Demuxers and decoders report bad data
/// as AVERROR_INVALIDDATA, but some return a bare -1, which av_strerror reads as errno EPERM
/// ("Operation not permitted"): no permission is involved there, the data did not decode.
func decodingMessage(_ code: Int32) -> String {
    code == -1 ? "the data does not decode (FFmpeg error -1)" : ffmpegMessage(code)
}

func ffmpegMessage(_ code: Int32) -> String {
    var buffer = [CChar](repeating: 0, count: 256)
    cffmpegMessage(code, &buffer)
    return String(cString: buffer)
}
