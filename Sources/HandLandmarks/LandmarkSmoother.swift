import Foundation

/// One-Euro filter (Casiez et al. 2012) per landmark coordinate, on real timestamps.
/// Parameters from MediaPipe's pose landmark smoothing: min cutoff 0.05 Hz, beta 80, derivative cutoff 1 Hz,
/// applied to coordinates in normalised units.
public struct LandmarkSmoother {
    var minCutoff: Float = 0.05
    var beta: Float = 80
    var derivativeCutoff: Float = 1
    private var last: [Point3]?
    private var derivative: [Point3] = []
    private var lastTime: Double?

    static func alpha(cutoff: Float, dt: Float) -> Float {
        let tau = 1 / (2 * .pi * cutoff)
        return 1 / (1 + tau / dt)
    }

    public init() {}

    public mutating func filter(_ points: [Point3], time: Double) -> [Point3] {
        guard let prev = last, let t0 = lastTime, time > t0, prev.count == points.count else {
            last = points
            derivative = [Point3](repeating: .zero, count: points.count)
            lastTime = time
            return points
        }
        let dt = Float(time - t0)
        let ad = Self.alpha(cutoff: derivativeCutoff, dt: dt)
        var out = points
        for i in points.indices {
            let d = (points[i] - prev[i]) / dt
            derivative[i] = derivative[i] + ad * (d - derivative[i])
            let speed = (derivative[i] * derivative[i]).sum().squareRoot()
            let a = Self.alpha(cutoff: minCutoff + beta * speed, dt: dt)
            out[i] = prev[i] + a * (points[i] - prev[i])
        }
        last = out
        lastTime = time
        return out
    }
}
