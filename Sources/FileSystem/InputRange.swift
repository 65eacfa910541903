import Foundation

/// The ranges a number read from outside (a file, a request, a flag) may take, one per kind, checked
/// here before any conversion: a value outside its range is refused by the caller with the file, line or
/// field it came from, never converted (a trapping `Int(double)`) and never passed on. The limits are far
/// beyond any real clip and far inside what the integer types hold, so that a time in milliseconds or
/// microseconds, or a frame number at any frame rate allowed, always fits an `Int64`.
public enum InputRange {
    /// Seconds into a clip: up to 10^7 s (about 116 days of video).
    public static let seconds: ClosedRange<Double> = 0...10_000_000
    /// A frame number or frame count: up to 10^13 (10^7 s at 10^6 frames a second).
    public static let frames: ClosedRange<Double> = 0...10_000_000_000_000
    /// Frames per second: above 0, up to 10^6 (high-speed cameras; a frame's duration given as a rate is
    /// turned into one by the reader first).
    public static let frameRate: ClosedRange<Double> = 0.001...1_000_000
    /// Image-normalised landmark coordinates (x, y, and z, which MediaPipe scales like x). MediaPipe's stray
    /// a little outside [0, 1] for joints beyond the frame's edge (a hand half out of view reaches about
    /// -0.5 or 1.5); ten frame widths out is no landmark, and 1e30 is none.
    public static let normalizedCoordinate: ClosedRange<Double> = -10...10
    /// World landmark coordinates, in metres from the hand's or hip's centre.
    public static let worldCoordinate: ClosedRange<Double> = -10...10
    /// A video's width or height in pixels (FFmpeg decodes no frame of over 2^28 pixels: a side of 2^20
    /// needs a frame of at most 256 rows).
    public static let pixels: ClosedRange<Double> = 1...1_048_576

    /// `value` as an `Int` when it is finite, whole after rounding and inside `range`; else nil.
    public static func int(_ value: Double, in range: ClosedRange<Double>, rounding rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero) -> Int? {
        guard value.isFinite, range.contains(value) else { return nil }
        return Int(exactly: value.rounded(rule))
    }

    /// `value` as an `Int64` when it is finite and inside `range` (after rounding); else nil.
    public static func int64(_ value: Double, in range: ClosedRange<Double>, rounding rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero) -> Int64? {
        guard value.isFinite, range.contains(value) else { return nil }
        return Int64(exactly: value.rounded(rule))
    }

    /// Milliseconds of a time in seconds, when the time is inside `seconds`; else nil.
    public static func milliseconds(_ seconds: Double) -> Int64? {
        guard seconds.isFinite, Self.seconds.contains(seconds) else { return nil }
        return Int64(exactly: (seconds * 1000).rounded())
    }

    /// A whole number for display, never trapping: the value's integer when it fits, else its text.
    public static func wholeText(_ value: Double) -> String {
        if value.isFinite, let n = Int64(exactly: value.rounded(.towardZero)), abs(value) < 9e15 { return "\(n)" }
        return "\(value)"
    }
}
