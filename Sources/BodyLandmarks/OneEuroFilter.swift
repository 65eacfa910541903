import Foundation

/// MediaPipe's One-Euro filter (mediapipe/util/filtering/one_euro_filter.cc, after Casiez et al. 2012),
/// with its quirks: a timestamp not after the last one passes the value through unfiltered; the rate
/// comes from the last two timestamps, but stays `frequency` while either is 0 (so after a first frame
/// at time 0, the second frame is still filtered at 30 Hz); the derivative is scaled by `valueScale`.
/// The first call starts the filter whatever its time: current MediaPipe (1.2.x) starts `last_time_` at
/// the smallest Int64, where its 2024 sources started it at 0 and let a first frame at time 0 pass
/// without starting the filter (measured against MediaPipe 1.2.3 on a clip whose first frames repeat).
struct OneEuroFilter {
    var frequency: Double
    let minCutoff: Double, beta: Double, derivateCutoff: Double
    private var x = LowPass(), dx = LowPass()
    /// Nanoseconds; nil before the first call (MediaPipe's smallest Int64).
    private var lastTime: Int64?

    init(frequency: Double, minCutoff: Double, beta: Double, derivateCutoff: Double) {
        self.frequency = frequency; self.minCutoff = minCutoff; self.beta = beta; self.derivateCutoff = derivateCutoff
    }

    mutating func apply(time: Int64, valueScale: Double, _ value: Double) -> Double {
        if let last = lastTime, last >= time { return value }
        // MediaPipe computes a rate on the first call too (from the smallest Int64, an overflow), but
        // nothing uses it before the next call sets it again; Swift would trap, so it is skipped.
        if let last = lastTime, last != 0 && time != 0 { frequency = 1 / (Double(time - last) * 1e-9) }
        lastTime = time
        let dvalue = x.last.map { (value - $0) * valueScale * frequency } ?? 0
        let edvalue = dx.apply(dvalue, alpha: alpha(derivateCutoff))
        let cutoff = minCutoff + beta * abs(edvalue)
        return x.apply(value, alpha: alpha(cutoff))
    }

    private func alpha(_ cutoff: Double) -> Double {
        let te = 1 / frequency, tau = 1 / (2 * Double.pi * cutoff)
        return 1 / (1 + tau / te)
    }

    /// MediaPipe's LowPassFilter (its state in single precision): the first value passes; later ones
    /// are blended with the stored one, as its C++ does: `alpha * value` in float, the rest in double
    /// (`1.0 - alpha`), rounded to float.
    struct LowPass {
        private(set) var last: Double?
        private var stored: Float = 0
        mutating func apply(_ value: Double, alpha: Double) -> Double {
            let v = Float(value), a = Float(alpha)
            let s = last == nil ? v : LowPass.blend(a, v, stored)
            last = Double(v)
            stored = s
            return Double(s)
        }

        /// `alpha * value + (1.0 - alpha) * stored` with C++'s promotions: the product in float, the
        /// sum in double, the result rounded to float.
        static func blend(_ alpha: Float, _ value: Float, _ stored: Float) -> Float {
            Float(Double(alpha * value) + (1.0 - Double(alpha)) * Double(stored))
        }
    }
}

/// MediaPipe's LandmarksSmoothingCalculator with a One-Euro filter, for one person: every axis of every
/// landmark filtered on its own. Normalised landmarks are filtered in pixels (x * width, y * height,
/// z * width); the value scale is 1 / the object's size in pixels (given, or the mean of its landmarks'
/// bounding box's width and height), and a size under `minObjectScale` passes the landmarks through.
/// With `scaled` false (world landmarks) the scale is 1.
struct LandmarkSmoother {
    let minCutoff: Double, beta: Double, derivateCutoff: Double
    let scaled: Bool
    var minObjectScale: Double = 1e-6
    private var filters: [OneEuroFilter] = []

    init(minCutoff: Double, beta: Double, derivateCutoff: Double = 1, scaled: Bool = true) {
        self.minCutoff = minCutoff; self.beta = beta; self.derivateCutoff = derivateCutoff; self.scaled = scaled
    }

    /// `points` in the units filtered (pixels, or metres for world landmarks).
    mutating func apply(_ points: [SIMD3<Double>], time: Int64, objectScale given: Double? = nil) -> [SIMD3<Double>] {
        if filters.isEmpty {
            filters = Array(repeating: OneEuroFilter(frequency: 30, minCutoff: minCutoff, beta: beta, derivateCutoff: derivateCutoff),
                            count: points.count * 3)
        }
        var scale = 1.0
        if scaled {
            var lo = points[0], hi = points[0]
            for p in points { lo = pointwiseMin(lo, p); hi = pointwiseMax(hi, p) }
            let objectScale = given ?? ((hi.x - lo.x) + (hi.y - lo.y)) / 2
            if objectScale < minObjectScale { return points }
            scale = 1 / objectScale
        }
        return points.indices.map { i in
            SIMD3(filters[3 * i].apply(time: time, valueScale: scale, points[i].x),
                  filters[3 * i + 1].apply(time: time, valueScale: scale, points[i].y),
                  filters[3 * i + 2].apply(time: time, valueScale: scale, points[i].z))
        }
    }
}

/// MediaPipe's VisibilitySmoothingCalculator (low_pass_filter, alpha 0.1): each visibility blended with
/// the one before (`OneEuroFilter.LowPass.blend`), the first passed through.
struct VisibilitySmoother {
    var alpha: Double = 0.1
    private var previous: [Float]?

    mutating func apply(_ values: [Float]) -> [Float] {
        let a = Float(alpha)
        let out = previous.map { p in zip(values, p).map { OneEuroFilter.LowPass.blend(a, $0, $1) } } ?? values
        previous = out
        return out
    }
}
