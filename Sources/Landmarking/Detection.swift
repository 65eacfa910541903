/// Something a detection model found (a palm, a person, a face): its score, a box and the model's
/// keypoints, normalised to the frame. MediaPipe's `Detection` with its relative bounding box and keypoints.
public struct Detection: Sendable {
    public var score: Float
    public var box: Box
    public var keypoints: [SIMD2<Float>]

    public init(score: Float, box: Box, keypoints: [SIMD2<Float>]) {
        self.score = score; self.box = box; self.keypoints = keypoints
    }
}

/// An axis-aligned box in normalised coordinates.
public struct Box: Equatable, Sendable {
    public var xMin: Float, yMin: Float, xMax: Float, yMax: Float

    public init(xMin: Float, yMin: Float, xMax: Float, yMax: Float) {
        self.xMin = xMin; self.yMin = yMin; self.xMax = xMax; self.yMax = yMax
    }

    public var area: Float { max(0, xMax - xMin) * max(0, yMax - yMin) }

    /// Intersection over union; 0 when both are empty.
    public func iou(_ o: Box) -> Float {
        let ix = max(0, min(xMax, o.xMax) - max(xMin, o.xMin))
        let iy = max(0, min(yMax, o.yMax) - max(yMin, o.yMin))
        let inter = ix * iy
        let union = area + o.area - inter
        return union > 0 ? inter / union : 0
    }
}

/// A point: x and y normalised to the frame (0...1, origin top-left), z MediaPipe's relative depth;
/// or, for world landmarks, metres around the hand's or body's centre.
public typealias Point3 = SIMD3<Float>
