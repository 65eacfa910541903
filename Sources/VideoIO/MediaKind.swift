import Foundation

/// Which files handpose reads, and which of them are still images, decided once by file extension:
/// `extract`'s folder walk, the labelled folders `validate` and `export` read, and `VideoReader`'s
/// `isStillImage` all ask here, so a file is never accepted by one and passed over by another, and the
/// mode a file is extracted in (image or video tracking) is the one the reader reports.
public enum MediaKind {
    /// Clips: every container here is one the system's FFmpeg (5.1 on Debian 12) demuxes. `m2ts` and `mts` are
    /// transport streams of 192-byte packets, as AVCHD camcorders and Blu-ray write them.
    public static let videoExtensions: Set<String> = ["mp4", "mov", "m4v", "mkv", "webm", "avi", "gif", "mpg", "mpeg", "wmv", "flv", "3gp", "ts",
                                                      "m2ts", "mts"]
    /// Still images, each read as a one-frame clip (JPEG by libjpeg-turbo, the rest by FFmpeg).
    public static let imageExtensions: Set<String> = ["jpg", "jpeg", "png", "bmp", "webp", "tif", "tiff"]
    /// Image formats users have but handpose cannot read, with what to do about them. HEIC/HEIF (an
    /// iPhone's photos): FFmpeg reads HEIF only from 6.1 on; 5.1's mov demuxer fails on it with "moov
    /// atom not found" (checked with a heif-enc file), so such a file is reported, not taken.
    public static let unreadableImageExtensions: [String: String] = [
        "heic": "a HEIC image, which this FFmpeg cannot decode: convert it to JPEG or PNG",
        "heif": "a HEIF image, which this FFmpeg cannot decode: convert it to JPEG or PNG",
    ]

    /// Every extension handpose reads, sorted, for messages.
    public static var knownExtensions: [String] { videoExtensions.union(imageExtensions).sorted() }

    /// The extension of a file name or path, lowercased.
    static func pathExtension(_ name: String) -> String { (name as NSString).pathExtension.lowercased() }

    /// A still image: tracked in image mode, no frame rate, one frame.
    public static func isStillImage(_ url: URL) -> Bool { isStillImage(name: url.lastPathComponent) }
    public static func isStillImage(name: String) -> Bool { imageExtensions.contains(pathExtension(name)) }
    public static func isVideo(name: String) -> Bool { videoExtensions.contains(pathExtension(name)) }
    /// A clip or a still image handpose reads.
    public static func isMedia(name: String) -> Bool { isVideo(name: name) || isStillImage(name: name) }
    /// Why a file that looks like media is not read, or nil.
    public static func unreadableReason(name: String) -> String? { unreadableImageExtensions[pathExtension(name)] }
}
