import Foundation
import VideoIO

/// `bench decode`: how fast one clip decodes to RGB frames (FFmpeg, frame and slice threads), the best
/// of several passes.
public struct DecodeSpeed: Sendable {
    /// The clip's frame size, `WIDTHxHEIGHT` (empty after no pass).
    public var size = ""
    /// The frames one pass decoded.
    public var frames = 0
    /// The best pass's frames per second.
    public var framesPerSecond = 0.0

    /// Decodes every frame of `clip` `passes` times.
    public init(clip: String, passes: Int) throws(BenchmarkError) {
        for _ in 0..<max(0, passes) {
            let (size, n, seconds) = try attempt(BenchmarkError.extraction) {
                let reader = try VideoReader(url: URL(fileURLWithPath: clip))
                let start = DispatchTime.now().uptimeNanoseconds
                var n = 0
                while let _ = try reader.nextFrame() { n += 1 }
                return ("\(reader.info.width)x\(reader.info.height)", n, milliseconds(since: start) / 1000)
            }
            self.size = size
            frames = n
            framesPerSecond = max(framesPerSecond, Double(n) / seconds)
        }
    }
}
