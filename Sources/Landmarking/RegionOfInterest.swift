import Foundation

/// A rotated rectangle in normalised image coordinates (MediaPipe's `NormalizedRect`):
/// centre, width and height as fractions of the image, rotation in radians (clockwise on screen).
public struct RegionOfInterest: Equatable, Sendable, Codable {
    public var xCenter: Float
    public var yCenter: Float
    public var width: Float
    public var height: Float
    public var rotation: Float

    public init(xCenter: Float, yCenter: Float, width: Float, height: Float, rotation: Float) {
        self.xCenter = xCenter
        self.yCenter = yCenter
        self.width = width
        self.height = height
        self.rotation = rotation
    }

    /// MediaPipe's `NormalizeRadians`: a float angle wrapped in double precision (its `M_PI` is a
    /// double), which matters for Tasks' palm target of 90 radians, 14 turns away.
    public static func normalizeRadians(_ a: Float) -> Float {
        let d = Double(a)
        return Float(d - 2 * .pi * ((d + .pi) / (2 * .pi)).rounded(.down))
    }

    /// Rotation that turns the vector from `from` to `to` (pixels) to `target` radians, as MediaPipe's
    /// `DetectionsToRectsCalculator::ComputeRotation` (`target - atan2(-dy, dx)`, wrapped). Upright is a
    /// target of pi/2.
    public static func rotation(from p0: SIMD2<Float>, to p1: SIMD2<Float>, target: Float = .pi / 2) -> Float {
        normalizeRadians(target - atan2(-(p1.y - p0.y), p1.x - p0.x))
    }

    /// MediaPipe's `RectTransformationCalculator`: shift along the rotated axes (in units of the
    /// rectangle's size), make square on the long side, scale.
    public func transformed(imageWidth: Int, imageHeight: Int, scale: Float, shiftX: Float = 0, shiftY: Float,
                            squareLong: Bool = true) -> RegionOfInterest {
        let W = Float(imageWidth), H = Float(imageHeight)
        var r = self
        if rotation == 0 {
            r.xCenter += width * shiftX
            r.yCenter += height * shiftY
        } else {
            let xShift = (W * width * shiftX * cos(rotation) - H * height * shiftY * sin(rotation)) / W
            let yShift = (W * width * shiftX * sin(rotation) + H * height * shiftY * cos(rotation)) / H
            r.xCenter += xShift
            r.yCenter += yShift
        }
        if squareLong {
            let long = max(width * W, height * H)
            r.width = long / W
            r.height = long / H
        }
        r.width *= scale
        r.height *= scale
        return r
    }

    /// Maps a point given in the region's own unit square (0...1 across, y down) to the image's normalised
    /// coordinates (MediaPipe's `LandmarkProjectionCalculator`); z scales with the region's width.
    public func project(_ p: Point3) -> Point3 {
        let x = p.x - 0.5, y = p.y - 0.5
        let c = cos(rotation), s = sin(rotation)
        return Point3((c * x - s * y) * width + xCenter, (s * x + c * y) * height + yCenter, p.z * width)
    }

    /// Axis-aligned bounds (ignoring rotation), normalised.
    public var bounds: Box { Box(xMin: xCenter - width / 2, yMin: yCenter - height / 2, xMax: xCenter + width / 2, yMax: yCenter + height / 2) }
}
