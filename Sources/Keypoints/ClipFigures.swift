/// The figures of one clip's keypoint file that `report` tabulates and the review page lists: how many
/// frames hold a hand and the longest run without one.
public struct ClipFigures: Codable, Sendable, Equatable {
    /// The clip, as the report or page names it.
    public var source: String
    public var frames: Int
    public var framesWithHand: Int
    public var detectionRate: Double
    /// The longest run of frames without a hand, in frames and seconds.
    public var longestGap: Int
    public var longestGapSeconds: Double

    /// The figures of `file`, named `source`.
    public init(_ file: KeypointFile, source: String) {
        var gap = 0, longest = 0, longestSeconds = 0.0, gapStart: Double?
        var withHand = 0
        for (k, frame) in file.frames.enumerated() {
            if frame.hands.isEmpty {
                if gap == 0 { gapStart = frame.t }
                gap += 1
                // The gap lasts until the next frame's time (or this frame's for the last one).
                let end = k + 1 < file.frames.count ? file.frames[k + 1].t : frame.t
                if gap > longest || (gap == longest && end - (gapStart ?? end) > longestSeconds) {
                    longest = gap
                    longestSeconds = end - (gapStart ?? end)
                }
            } else {
                withHand += 1
                gap = 0
            }
        }
        let n = file.frames.count
        // At a known rate a gap of k frames lasts k frame intervals.
        if let fps = file.video.fps, fps > 0 { longestSeconds = Double(longest) / fps }
        self.source = source
        frames = n
        framesWithHand = withHand
        detectionRate = n == 0 ? 0 : Double(withHand) / Double(n)
        longestGap = longest
        longestGapSeconds = (longestSeconds * 1000).rounded() / 1000
    }
}
