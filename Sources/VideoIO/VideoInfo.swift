/// Facts about a clip's video stream, as `handpose probe` shows them.
public struct VideoInfo: Sendable, Equatable, Codable {
    public var path: String
    public var container: String
    public var codec: String
    public var pixelFormat: String
    /// Size as displayed: a portrait phone clip (rotation metadata 90) reports portrait.
    public var width: Int
    public var height: Int
    /// Clockwise rotation applied to decoded frames, in degrees (0, 90, 180, 270), after the mirror when
    /// `mirrored`.
    public var rotation: Int
    /// The display matrix (or a still's EXIF orientation) mirrors the picture: decoded frames are flipped
    /// left-right, then turned by `rotation`.
    public var mirrored: Bool = false
    /// Average frame rate (frames over duration) and the container's nominal rate.
    public var averageFrameRate: Double
    public var nominalFrameRate: Double
    public var duration: Double
    public var frameCount: Int
    /// True when `frameCount` was computed from duration and rate, not counted or read from the container.
    public var frameCountIsEstimate: Bool
    /// True for still images (jpg, png, ...), which read as one-frame clips.
    public var isStillImage: Bool
    /// Frames the container's index places past the end of the file: more than 0 means the file was
    /// cut short (an interrupted copy or download), found without decoding.
    public var framesPastEndOfFile: Int = 0
    /// Why the file ends before what its container declares, found without decoding: index entries past
    /// its end, a Matroska segment longer than the file, a GIF without its trailer (`DeclaredLength`).
    /// Nil when nothing the container states says the file was cut.
    public var cutShort: String? = nil
    /// What decodes the pictures: `libjpeg-turbo` for JPEG stills (as OpenCV and Pillow decode them),
    /// else `ffmpeg`.
    public var decoder: String = "ffmpeg"
    /// A still's EXIF orientation (1-8; JPEG, PNG, WebP, TIFF: `StillOrientation`), applied to the decoded
    /// picture as `cv2.imread` does; nil when the file has none.
    public var exifOrientation: Int? = nil
}
