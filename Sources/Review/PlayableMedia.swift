import FileSystem
import Foundation
import VideoIO

/// What the browser is sent for a clip: the file itself when a browser plays it (MP4 or WebM holding
/// H.264, VP8, VP9 or AV1 in 4:2:0, and still images), otherwise an H.264 MP4 made from it once through
/// FFmpeg and kept in the keypoint folder's `.review-cache`, made again when the clip changes. Frames
/// keep their times, so the transcode plays on the keypoint file's clock. A transcode is served as
/// everything in the keypoint folder is, through `ReviewFolder`: not through a link out of the folder.
public actor PlayableMedia {
    let keypoints: ReviewFolder
    static let cacheName = ".review-cache"
    var cache: URL { keypoints.url.appendingPathComponent(Self.cacheName) }
    public init(keypoints: URL) { self.keypoints = ReviewFolder(keypoints) }

    static let playableContainers: Set<String> = ["mp4", "m4v", "webm"]
    static let playableCodecs: Set<String> = ["h264", "vp8", "vp9", "av1"]
    static let playablePixels: Set<String> = ["yuv420p", "yuvj420p"]
    static let imageTypes: [String: String] = ["jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "webp": "image/webp",
                                               "bmp": "image/bmp"]

    /// Why a clip is not sent: not a clip or image, or one that cannot be made playable.
    public struct Unplayable: Error, CustomStringConvertible {
        public var description: String
    }

    /// The file to send for the clip at `url` (named `relative` under the root), and its media type.
    public func file(for url: URL, relative: String) throws -> (URL, String) {
        let ext = url.pathExtension.lowercased()
        guard MediaKind.isMedia(name: url.lastPathComponent) else { throw Unplayable(description: "\(relative) is not a clip or an image") }
        if let type = Self.imageTypes[ext] { return (url, type) }
        if Self.playableContainers.contains(ext), let info = try? VideoReader(url: url, threads: 1).info, Self.playable(info) {
            return (url, ext == "webm" ? "video/webm" : "video/mp4")
        }
        // The cache is fresh while the clip is the same file: its size, modification time and inode.
        let out = cache.appendingPathComponent(relative + ".mp4"), stamp = out.appendingPathExtension("source")
        let source = try FileManager.default.attributesOfItem(atPath: url.path)
        let identity = "\(source[.size] ?? 0) \((source[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0) \(source[.systemFileNumber] ?? 0)"
        if FileManager.default.fileExists(atPath: out.path), (try? RegularFile.read(stamp.path)).map({ String(decoding: $0, as: UTF8.self) }) == identity {
            return (try cached(relative), "video/mp4")
        }
        do {
            // Nothing is made through a link out of KEYPOINTS: the cache as it stands is checked first, then
            // the folder made for this clip.
            if FileManager.default.fileExists(atPath: cache.path), !keypoints.contains(folder: cache.path) {
                throw ReviewFolder.Refusal.outside(Self.cacheName)
            }
            try FileManager.default.createDirectory(at: out.deletingLastPathComponent(), withIntermediateDirectories: true)
            guard keypoints.contains(folder: out.deletingLastPathComponent().path) else {
                throw ReviewFolder.Refusal.outside(Self.cacheName + "/" + relative)
            }
            let reader = try VideoReader(url: url)
            let rate = reader.info.averageFrameRate > 0 ? reader.info.averageFrameRate : 25
            // VideoWriter writes a temporary file and renames it when finished: no half-made file is served.
            let writer = try VideoWriter(url: out, width: reader.info.width, height: reader.info.height, frameRate: Rational(rate: rate), quality: 20)
            while let frame = try reader.nextFrame() { try writer.append(frame, time: frame.time) }
            try writer.finish()
        } catch {
            throw Unplayable(description: "\(relative) cannot be converted for the browser: \(error)")
        }
        // Without libx264, or at an odd frame size, the encoder makes what browsers do not play: said, not cached.
        guard let made = try? VideoReader(url: out, threads: 1).info, Self.playable(made) else {
            try? FileManager.default.removeItem(at: out)
            throw Unplayable(description: "\(relative) cannot be converted for the browser: this FFmpeg made no H.264 4:2:0 video of it (libx264 missing, or an odd frame size)")
        }
        try? identity.write(to: stamp, atomically: true, encoding: .utf8)
        return (try cached(relative), "video/mp4")
    }

    /// The transcode of the clip at `relative`, inside the keypoint folder (`ReviewFolder.Refusal` otherwise).
    func cached(_ relative: String) throws -> URL {
        try keypoints.file(Self.cacheName + "/" + relative + ".mp4")
    }

    static func playable(_ info: VideoInfo) -> Bool { playableCodecs.contains(info.codec) && playablePixels.contains(info.pixelFormat) }
}
