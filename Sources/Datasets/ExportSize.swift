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

    /// Bytes a frame takes while its part is written: X's values (and B's) as floats, then as the file's bytes
    /// (npy, npz: 4 each; csv: a number's text, about 10 characters, held as a string and as bytes).
    static func writtenFrameBytes(_ settings: ExportSettings, format: TrainingSet.Format) -> Double {
        let values = Double(settings.hand.slots * 21 * settings.features.count + (settings.body.map { $0.joints.count * settings.features.count } ?? 0))
        let perValue: Double = format == .csv ? 4 + 2 * 12 : 4 + 4
        return values * perValue + Double(settings.hand.slots + (settings.body == nil ? 0 : 1))
    }

    /// Each example and its augmented copies, at most (only the augmented part gets copies).
    static func withCopies(_ settings: ExportSettings) -> Double {
        settings.augment.isEmpty ? 1 : Double(1 + max(settings.copies, 0))
    }

    /// The size of `count` examples of `frames` frames each (poses: 1) with their augmented copies, held
    /// while they are written as `format`.
    public static func examples(_ count: Int, frames: Int, settings: ExportSettings, format: TrainingSet.Format = .npy) -> ExportSize {
        var size = ExportSize()
        size.windows = count
        size.bytes = withCopies(settings) * Double(count) * (Double(frames) * (frameBytes(settings) + writtenFrameBytes(settings, format: format)) + exampleBytes)
        return size
    }

    /// The size of exporting `spans` (each segment's start and end) with `settings` as `format`: the examples
    /// with their copies, the longest segment's resampled track while it is cut, and a part's arrays and
    /// bytes while they are written (counted as if one part held them all).
    public static func of(_ spans: [(start: Double, end: Double)], settings: ExportSettings, format: TrainingSet.Format = .npy) throws -> ExportSize {
        var size = ExportSize()
        let frameBytes = frameBytes(settings) + writtenFrameBytes(settings, format: format)
        let copies = withCopies(settings)
        var windowFrames = 0.0, windows = 0.0
        for span in spans {
            guard let count = Windowing.sampleCount(start: span.start, end: span.end, fps: settings.fps) else {
                throw ExportError.tooLarge(what: "a segment of \(span.end - span.start) s at \(settings.fps) fps", bytes: .infinity, memory: 0)
            }
            size.longestSegment = max(size.longestSegment, count)
            let w = windowCount(frames: count, window: settings.window, stride: settings.effectiveStride,
                                dropShort: settings.dropShort, padTail: settings.padTail)
            windows += Double(w)
            windowFrames += Double(w) * Double(settings.window)
        }
        // Counted in Double: a sum of windows past Int's range is refused by the check, never a trap here.
        size.windows = InputRange.int(windows, in: 0...Double(Int.max / 2)) ?? Int.max
        // The longest segment's resampled track: its samples, times and source times.
        let track = Double(size.longestSegment) * (Self.frameBytes(settings) + 8 + Double(arrayHeader + 16))
        size.bytes = copies * (windowFrames * frameBytes + windows * exampleBytes) + track
        return size
    }

    /// Throws `ExportError.tooLarge` when the export would take more than `memory` bytes (by default, the
    /// machine's memory or, less, the limit of the job's cgroup (Slurm, Kubernetes), past which it could not finish).
    public func check(settings: ExportSettings, memory: UInt64 = CGroup.memoryLimit) throws {
        guard bytes > Double(memory) else { return }
        let copies = settings.augment.isEmpty ? "" : ", each with up to \(settings.copies) augmented copies"
        let what = longestSegment > 0
            ? "\(windows) windows of \(settings.window) frames at \(settings.fps) fps\(copies) (the longest segment is resampled to \(longestSegment) frames)"
            : "\(windows) examples\(copies)"
        throw ExportError.tooLarge(what: what, bytes: bytes, memory: memory)
    }
}
