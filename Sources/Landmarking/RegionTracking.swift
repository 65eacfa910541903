import Foundation

/// MediaPipe Holistic's RoiTrackingCalculator (holistic_landmark/calculators/roi_tracking_calculator.cc):
/// whether the region cut from last frame's landmarks still fits this frame's re-crop region, so the
/// landmark model keeps looking where it looked (steadier) rather than where the re-crop points.
/// `previous` is kept when its rotation, centre and size are each within limits of `recrop`'s, and every
/// one of last frame's landmarks lies strictly inside `recrop` shrunk by `margin`; otherwise `recrop`.
public struct RegionTracking: Sendable {
    public var rotationDegrees: Float, translation: Float, scale: Float, margin: Float

    public init(rotationDegrees: Float, translation: Float, scale: Float, margin: Float) {
        self.rotationDegrees = rotationDegrees; self.translation = translation; self.scale = scale; self.margin = margin
    }

    /// hand_tracking.pbtxt: 40 degrees, 0.2, 0.4, margin -0.1.
    public static let hand = RegionTracking(rotationDegrees: 40, translation: 0.2, scale: 0.4, margin: -0.1)
    /// face_tracking.pbtxt: 15 degrees, 0.1, 0.3, margin -0.2.
    public static let face = RegionTracking(rotationDegrees: 15, translation: 0.1, scale: 0.3, margin: -0.2)

    public func choose(recrop: RegionOfInterest, previous: RegionOfInterest?, previousLandmarks: [Point3],
                       width: Int, height: Int) -> RegionOfInterest {
        guard let previous else { return recrop }
        let W = Float(width), H = Float(height)
        // Centres and points turned by minus the re-crop region's rotation, in pixels.
        let a = -recrop.rotation, c = cos(a), s = sin(a)
        func turned(_ x: Float, _ y: Float) -> SIMD2<Float> { SIMD2(x * W * c - y * H * s, x * W * s + y * H * c) }
        // Rect requirements.
        var d = previous.rotation / .pi * 180 - recrop.rotation / .pi * 180
        if d > 180 { d -= 360 }
        if d < -180 { d += 360 }
        let p = turned(previous.xCenter, previous.yCenter), r = turned(recrop.xCenter, recrop.yCenter)
        let rw = recrop.width * W, rh = recrop.height * H
        guard abs(d) <= rotationDegrees,
              abs(p.x - r.x) <= rw * translation, abs(p.y - r.y) <= rh * translation,
              abs(previous.width * W - rw) <= rw * scale, abs(previous.height * H - rh) <= rh * scale else { return recrop }
        // Landmarks requirements: every point strictly inside the re-crop region shrunk by the margin.
        let halfW = rw * (1 + margin) / 2, halfH = rh * (1 + margin) / 2
        for point in previousLandmarks {
            let q = turned(point.x, point.y)
            guard q.x > r.x - halfW, q.x < r.x + halfW, q.y > r.y - halfH, q.y < r.y + halfH else { return recrop }
        }
        return previous
    }
}

extension RegionOfInterest {
    /// MediaPipe's AlignmentPointsRectsCalculator: a square centred on `centre` whose side is twice the
    /// distance from `centre` to `scale` (both normalised to a `width` x `height` frame, measured in
    /// pixels), turned so `centre` -> `scale` points at `target` radians.
    public static func aligned(centre: SIMD2<Float>, scale: SIMD2<Float>, target: Float, width: Int, height: Int) -> RegionOfInterest {
        let size = SIMD2(Float(width), Float(height))
        let c = centre * size, s = scale * size
        let side = ((s.x - c.x) * (s.x - c.x) + (s.y - c.y) * (s.y - c.y)).squareRoot() * 2
        return RegionOfInterest(xCenter: centre.x, yCenter: centre.y, width: side / size.x, height: side / size.y,
                                rotation: rotation(from: c, to: s, target: target))
    }

    /// MediaPipe's LandmarksToDetection then DetectionsToRects without keypoints: the axis-aligned box of
    /// `points` (normalised), turned so the point `from` -> the point `to` (pixels) points at `target`.
    public static func bounding(_ points: [SIMD2<Float>], from: Int, to: Int, target: Float, width: Int, height: Int) -> RegionOfInterest {
        var lo = points[0], hi = points[0]
        for p in points { lo = pointwiseMin(lo, p); hi = pointwiseMax(hi, p) }
        let size = SIMD2(Float(width), Float(height))
        return RegionOfInterest(xCenter: (lo.x + hi.x) / 2, yCenter: (lo.y + hi.y) / 2, width: hi.x - lo.x, height: hi.y - lo.y,
                                rotation: rotation(from: points[from] * size, to: points[to] * size, target: target))
    }
}
