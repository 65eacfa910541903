import FileSystem
import Foundation

/// What an action export will hold in memory, counted from its segments before a window is cut: an export
/// holds every example until it is written, so `--fps 1000000` over ordinary segments (millions of
/// resampled frames each) or a large `--copies` would otherwise run memory away until the system kills it.
/// One rule for the command and its tests; the estimate is of Swift's own layout of the examples.
public struct ExportSize: Equatable, Sendable {
    /// Windows cut from all segments (before augmented copies).
    public var windows = 0
    /// The most frames one segment is resampled to (held while its windows are cut).
    public var longestSegment = 0
    /// Bytes the examples and the longest resampled segment take, with every example's copies.
    public var bytes: Double = 0

    /// Bytes one hand slot of one frame takes: its 21 joints' array (header and elements) and the optional sample.
    static var handSlotBytes: Double {
        Double(arrayHeader + 21 * MemoryLayout<SIMD3<Float>>.stride + MemoryLayout<HandSample?>.stride)
    }
    /// Bytes a frame's body takes (with `--body-joints`): joints and visibility arrays and the optional sample.
    static var bodyBytes: Double {
        Double(2 * arrayHeader + 25 * (MemoryLayout<SIMD3<Float>>.stride + MemoryLayout<Float>.stride) + MemoryLayout<BodySample?>.stride)
    }
    /// A Swift array's heap header on 64-bit platforms (object header, count, capacity).
    static let arrayHeader = 32
    /// An example's record and bookkeeping besides its frames (strings, times), generously.
    static let exampleBytes = 1024.0

    /// Frames a segment `[start, end)` is resampled to at `fps` (as `Windowing.resample` counts them); nil
    /// when that is past counting.
    public static func frames(start: Double, end: Double, fps: Double) -> Int? {
        guard end > start else { return 0 }
        return InputRange.int(((end - start) * fps + 1e-9).rounded(.down), in: 0...Double(Int.max / 2))
    }

    /// How many windows `Windowing.windowStarts` cuts from `count` frames, without listing them.
    public static func windowCount(frames count: Int, window: Int, stride: Int, dropShort: Bool, padTail: Bool) -> Int {
        if count == 0 { return 0 }
        if count < window { return dropShort ? 0 : 1 }
        let full = (count - window) / stride + 1
        let lastEnd = (full - 1) * stride + window
        return full + (padTail && lastEnd < count ? 1 : 0)
    }

    /// Bytes one frame of an example takes: its hand slots, their array and its body.
    static func frameBytes(_ settings: ExportSettings) -> Double {
        Double(settings.hand.slots) * handSlotBytes + Double(arrayHeader) + (settings.body == nil ? 0 : bodyBytes)
    }

    /// Each example and its augmented copies, at most (only the augmented part gets copies).
    static func withCopies(_ settings: ExportSettings) -> Double {
        settings.augment.isEmpty ? 1 : Double(1 + max(settings.copies, 0))
    }

    /// The size of `count` examples of `frames` frames each (poses: 1) with their augmented copies.
    public static func examples(_ count: Int, frames: Int, settings: ExportSettings) -> ExportSize {
        var size = ExportSize()
        size.windows = count
        size.bytes = withCopies(settings) * Double(count) * (Double(frames) * frameBytes(settings) + exampleBytes)
        return size
    }

    /// The size of exporting `spans` (each segment's start and end) with `settings`.
    public static func of(_ spans: [(start: Double, end: Double)], settings: ExportSettings) throws -> ExportSize {
        var size = ExportSize()
        let frameBytes = frameBytes(settings)
        let copies = withCopies(settings)
        var windowFrames = 0.0
        for span in spans {
            guard let count = frames(start: span.start, end: span.end, fps: settings.fps) else {
                throw ExportError.tooLarge(what: "a segment of \(span.end - span.start) s at \(settings.fps) fps", bytes: .infinity, memory: 0)
            }
            size.longestSegment = max(size.longestSegment, count)
            let w = windowCount(frames: count, window: settings.window, stride: settings.effectiveStride,
                                dropShort: settings.dropShort, padTail: settings.padTail)
            size.windows += w
            windowFrames += Double(w) * Double(settings.window)
        }
        // The longest segment's resampled track: its samples, times and source times.
        let track = Double(size.longestSegment) * (frameBytes + 8 + Double(arrayHeader + 16))
        size.bytes = copies * (windowFrames * frameBytes + Double(size.windows) * exampleBytes) + track
        return size
    }

    /// Throws `ExportError.tooLarge` when the export would take more than `memory` bytes (by default, the
    /// machine's physical memory, past which it could not finish).
    public func check(settings: ExportSettings, memory: UInt64 = ProcessInfo.processInfo.physicalMemory) throws {
        guard bytes > Double(memory) else { return }
        let copies = settings.augment.isEmpty ? "" : ", each with up to \(settings.copies) augmented copies"
        let what = longestSegment > 0
            ? "\(windows) windows of \(settings.window) frames at \(settings.fps) fps\(copies) (the longest segment is resampled to \(longestSegment) frames)"
            : "\(windows) examples\(copies)"
        throw ExportError.tooLarge(what: what, bytes: bytes, memory: memory)
    }
}
