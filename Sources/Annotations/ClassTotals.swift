import FileSystem
/// One class of an annotation set as `validate` sums it up: its segments and images, and the seconds its
/// segments cover.
public struct ClassTotals: Codable, Sendable, Equatable {
    public var label: String
    public var count: Int
    public var seconds: Double

    public init(label: String, count: Int, seconds: Double) { self.label = label; self.count = count; self.seconds = seconds }
}

extension AnnotationSet {
    /// Each class in `classes` order, with the number of clips the segments name. A segment's seconds run
    /// from its start (0 when open) to its end, or to its clip's duration from `durations` (by the clip's
    /// path; 0 when unknown) when open; a segment ending before it starts counts 0.
    public func classTotals(durations: [PathKey: Double]) -> (classes: [ClassTotals], clips: Int) {
        var counts: [String: Int] = [:], seconds: [String: Double] = [:]
        var clips = Set<PathKey>()
        for s in segments {
            counts[s.label, default: 0] += 1
            let duration = durations[PathKey(s.videoFile)] ?? 0
            seconds[s.label, default: 0] += max(0, (s.end ?? duration) - (s.start ?? 0))
            clips.insert(PathKey(s.videoFile))
        }
        for p in poses { counts[p.label, default: 0] += 1 }
        return (classes.map { ClassTotals(label: $0, count: counts[$0] ?? 0, seconds: seconds[$0] ?? 0) }, clips.count)
    }
}
