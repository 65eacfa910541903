/// Where one training example came from and what was done to it: one line of `manifest.jsonl`, in
/// the order of X's first axis. Actions fill the segment and window fields; poses leave them out.
public struct ExampleRecord: Codable, Sendable, Equatable {
    /// The clip or image, as the annotation (or the labelled folder) names it.
    public var source: String
    public var label: String
    /// The `--hand` choice the example was cut with.
    public var hand: String
    /// Parameters drawn for an augmented copy (empty for an original).
    public var augmentation: [String: Double] = [:]
    /// The split part it went to ("all" without --split).
    public var split: String?
    /// 1, 2, ... for augmented copies; absent for originals.
    public var copy: Int?
    /// The label index before a mirrored copy took its twin's label (--flip-labels).
    public var labelBeforeFlip: Int?
    /// The annotation file and line of the segment.
    public var annotation: String?
    public var line: Int?
    /// The segment's start and end, in seconds.
    public var segment: [Double]?
    /// The window's number within its segment, and its start and end in seconds.
    public var windowIndex: Int?
    public var window: [Double]?
    /// Frames of the window that are not padding.
    public var realFrames: Int?
    /// Times of the keypoint frames the window's frames were resampled from.
    public var sourceFrameTimes: [Double]?

    public init(source: String, label: String, hand: String) {
        self.source = source; self.label = label; self.hand = hand
    }

    enum CodingKeys: String, CodingKey {
        case source, label, hand, augmentation, split, copy, annotation, line, segment, window
        case labelBeforeFlip = "label_before_flip", windowIndex = "window_index", realFrames = "real_frames"
        case sourceFrameTimes = "source_frame_times"
    }
}
