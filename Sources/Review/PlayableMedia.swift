import Foundation
import VideoIO

/// What the browser is sent for a clip: the file itself when a browser plays it (MP4 or WebM holding
/// H.264, VP8, VP9 or AV1 in 4:2:0, and still images), otherwise an H.264 MP4 made from it once through
/// FFmpeg and kept in the keypoint folder's `.review-cache`, made again when the clip changes. Frames
/// keep their times, so the transcode plays on the keypoint file's clock.
public actor PlayableMedia {
    let cache: URL
    public init(cache: URL) { self.cache = cache.standardizedFileURL }

    static let playableContainers: Set<String> = ["mp4", "m4v", "webm"]
    static let playableCodecs: Set<String> = ["h264", "vp8", "vp9", "av1"]
    static let playablePixels: Set<String> = ["yuv420p", "yuvj420p"]
    static let imageTypes: [String: String] = ["jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "webp": "image/webp",
                                               "bmp": "image/bmp"]

    /// The file to send for the clip at `url` (named `relative` under the root), and its media type.
    public func file(for url: URL, relative: String) throws -> (URL, String) {
        let ext = url.pathExtension.lowercased()
        if let type = Self.imageTypes[ext] { return (url, type) }
        if Self.playableContainers.contains(ext), let info = try? VideoReader(url: url, threads: 1).info,
           Self.playableCodecs.contains(info.codec), Self.playablePixels.contains(info.pixelFormat) {
            return (url, ext == "webm" ? "video/webm" : "video/mp4")
        }
        let out = cache.appendingPathComponent(relative + ".mp4")
        if let made = try? out.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate,
           let source = try? url.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate, made >= source {
            return (out, "video/mp4")
        }
        try FileManager.default.createDirectory(at: out.deletingLastPathComponent(), withIntermediateDirectories: true)
        let reader = try VideoReader(url: url)
        let rate = reader.info.averageFrameRate > 0 ? reader.info.averageFrameRate : 25
        // VideoWriter writes a temporary file and renames it when finished: no half-made file is served.
        let writer = try VideoWriter(url: out, width: reader.info.width, height: reader.info.height, frameRate: Rational(rate: rate), quality: 20)
        while let frame = try reader.nextFrame() { try writer.append(frame, time: frame.time) }
        try writer.finish()
        return (out, "video/mp4")
    }
}
