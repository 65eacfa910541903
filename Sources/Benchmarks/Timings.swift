import Foundation

/// Times of repeated runs of one thing, in milliseconds, sorted, with the order statistics the bench
/// commands report. No interpolation: every figure is one of the times measured.
public struct Timings: Sendable, Equatable {
    /// The times, fastest first.
    public let sorted: [Double]

    /// `times` in any order; there must be at least one.
    public init(_ times: [Double]) {
        precondition(!times.isEmpty, "no times to summarise")
        sorted = times.sorted()
    }

    /// The time at index ⌊n·q⌋ (the last for q near 1): the higher of the two middle times for an even
    /// count. `bench models` reports its median and p90 this way, `bench profile` each step's median.
    public func percentile(_ q: Double) -> Double {
        sorted[Self.index(q, of: Double(sorted.count), last: sorted.count - 1)]
    }

    /// `percentile(0.5)`.
    public var median: Double { percentile(0.5) }

    /// The time at index ⌊(n−1)·q⌋: the lower of the two middle times for an even count. The fusion
    /// comparison (`bench profile --against-unfused`) reports its median and p10 this way.
    public func lowerPercentile(_ q: Double) -> Double {
        sorted[Self.index(q, of: Double(sorted.count - 1), last: sorted.count - 1)]
    }

    /// ⌊span·q⌋ within 0...last, converted only once it is in range: a q outside 0...1 (or NaN) takes the
    /// nearest end, never a trap.
    static func index(_ q: Double, of span: Double, last: Int) -> Int {
        let position = (span * q).rounded(.down)
        guard position >= 0 else { return 0 }   // also NaN
        return position >= Double(last) ? last : Int(position)
    }
}

/// Milliseconds since an arbitrary start, from the monotonic clock.
func milliseconds(since start: UInt64) -> Double {
    Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
}

/// `d` in milliseconds.
func milliseconds(_ d: Duration) -> Double { Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15 }

/// `d` in seconds.
func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }
