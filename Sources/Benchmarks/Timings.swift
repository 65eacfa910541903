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
        sorted[min(sorted.count - 1, Int(Double(sorted.count) * q))]
    }

    /// `percentile(0.5)`.
    public var median: Double { percentile(0.5) }

    /// The time at index ⌊(n−1)·q⌋: the lower of the two middle times for an even count. The fusion
    /// comparison (`bench profile --against-unfused`) reports its median and p10 this way.
    public func lowerPercentile(_ q: Double) -> Double {
        sorted[Int(Double(sorted.count - 1) * q)]
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
