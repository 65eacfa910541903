import CFFmpeg
import FileSystem

func cffmpegMessage(_ code: Int32, _ buffer: inout [CChar]) {
    let size = buffer.count
    buffer.withUnsafeMutableBufferPointer { cffmpeg_strerror(code, $0.baseAddress, size) }
}

/// FFmpeg logs to stderr by default; handpose reports errors itself, so nothing is printed: the log callback
/// (`cffmpeg_log`) only notes a demuxer's errors for the reader watching that file (`VideoReader`'s damage
/// check). Called by every reader and writer (it sets one pointer).
func quietFFmpegLogs() {
    _ = ffmpegLogCallback
}

/// Set once, before the first reader or writer: the callback is a process-wide pointer FFmpeg reads as it logs.
private let ffmpegLogCallback: Void = cffmpeg_quiet_logs()

/// A rational number as FFmpeg keeps frame rates and time bases.
public struct Rational: Equatable, Sendable, CustomStringConvertible {
    public var numerator: Int
    public var denominator: Int
    public init(_ numerator: Int, _ denominator: Int) {
        self.numerator = numerator
        self.denominator = denominator
    }
    /// The closest common rational to a decimal rate: 29.97 becomes 30000/1001.
    public init(rate: Double) {
        // A rate read from a clip is clamped to the range of rates (`InputRange.frameRate`) before it is
        // made an integer: a hostile header's 1e300 fps must not trap a render or a review transcode.
        let rate = rate.isFinite ? min(max(rate, InputRange.frameRate.lowerBound), InputRange.frameRate.upperBound) : 30
        for base in [24.0, 30.0, 60.0, 120.0] where abs(rate - base * 1000 / 1001) < 0.005 {
            self.init(Int(base * 1000), 1001)
            return
        }
        if rate == rate.rounded() { self.init(Int(rate), 1); return }
        self.init(Int((rate * 1000).rounded()), 1000)
    }
    public var value: Double { denominator == 0 ? 0 : Double(numerator) / Double(denominator) }
    public var description: String { denominator == 1 ? "\(numerator)" : "\(numerator)/\(denominator)" }
    var av: AVRational { AVRational(num: Int32(numerator), den: Int32(denominator)) }
    init(_ r: AVRational) { self.init(Int(r.num), Int(r.den)) }
}

/// `sws_scale` of a whole frame from `source` (a frame FFmpeg decoded or allocated) into the planes
/// `planes` with row strides `strides`: FFmpeg's own frames, or our aligned, padded buffer (see
/// `FFmpegImageBuffer`). The one place that hands an AVFrame's plane and stride arrays to swscale.
/// Returns the rows written (the frame's height on success).
func scaleFrame(_ scaler: OpaquePointer?, from source: UnsafeMutablePointer<AVFrame>, into planes: UnsafePointer<UnsafeMutablePointer<UInt8>?>,
                strides: UnsafePointer<Int32>, height: Int32) -> Int32 {
    withUnsafePointer(to: &source.pointee.data) { s in
        s.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { src in
            withUnsafePointer(to: &source.pointee.linesize) { sl in
                sl.withMemoryRebound(to: Int32.self, capacity: 8) { srcStride in
                    sws_scale(scaler, src, srcStride, 0, height, planes, strides)
                }
            }
        }
    }
}

/// `sws_scale` of a whole frame from `source` to `target`, both frames FFmpeg allocated (so with the
/// alignment and padding its SIMD code needs). Returns the rows written (the frame's height on success).
func scaleFrame(_ scaler: OpaquePointer?, from source: UnsafeMutablePointer<AVFrame>, to target: UnsafeMutablePointer<AVFrame>,
                height: Int32) -> Int32 {
    withUnsafeMutablePointer(to: &target.pointee.data) { d in
        d.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { dst in
            withUnsafeMutablePointer(to: &target.pointee.linesize) { l in
                l.withMemoryRebound(to: Int32.self, capacity: 8) { dstStride in
                    scaleFrame(scaler, from: source, into: dst, strides: dstStride, height: height)
                }
            }
        }
    }
}
