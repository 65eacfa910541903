import Foundation
import Rendering

/// A parametric 2-D hand: 21 joints from finger flexion, wrist position, rotation and scale.
///
/// Proportions (in palm lengths, wrist to middle MCP = 1, y pointing up the fingers) come from a
/// silhouette prototype that MediaPipe's models found in every pose tried.
public struct HandPose2D: Sendable {
    /// Flexion of thumb, index, middle, ring, little: 0 straight, 1 fully curled.
    public var curl: [Float] = [0, 0, 0, 0, 0]
    /// Spread of the fingers: 1 as drawn, 0 closed together.
    public var spread: Float = 1

    public init(curl: [Float] = [0, 0, 0, 0, 0], spread: Float = 1) { self.curl = curl; self.spread = spread }

    public static let open = HandPose2D()
    public static let fist = HandPose2D(curl: [0.8, 1, 1, 1, 1], spread: 0.6)
    public static let point = HandPose2D(curl: [0.8, 0, 1, 1, 1], spread: 0.8)
    public static let peace = HandPose2D(curl: [0.8, 0, 0, 1, 1], spread: 1)
    public static let pinch = HandPose2D(curl: [0.45, 0.5, 0.1, 0.1, 0.1], spread: 0.9)

    /// Linear blend towards `other`.
    public func mixed(_ other: HandPose2D, _ t: Float) -> HandPose2D {
        HandPose2D(curl: zip(curl, other.curl).map { $0 + t * ($1 - $0) }, spread: spread + t * (other.spread - spread))
    }
}

public enum HandModel2D {
    /// Open-hand joints in palm units (x right, y down, wrist at the origin), as the prototype drew them.
    static let template: [SIMD2<Float>] = [
        [0, 0], [-0.33, -0.12], [-0.55, -0.35], [-0.72, -0.55], [-0.85, -0.72],
        [-0.32, -0.95], [-0.38, -1.38], [-0.41, -1.63], [-0.43, -1.85],
        [-0.05, -1.0], [-0.06, -1.48], [-0.07, -1.76], [-0.08, -1.98],
        [0.2, -0.93], [0.24, -1.37], [0.27, -1.62], [0.29, -1.82],
        [0.42, -0.82], [0.52, -1.15], [0.58, -1.34], [0.63, -1.52],
    ]

    /// Joints in pixels: `wrist` position, `size` palm length in pixels, `angle` radians (clockwise on
    /// screen), `left` mirrors the hand (a left hand seen palm-on is a mirrored right hand).
    public static func joints(_ pose: HandPose2D, wrist: SIMD2<Float>, size: Float, angle: Float, left: Bool) -> [SIMD2<Float>] {
        var p = template
        let palmCentre = SIMD2<Float>(0.05, -0.55)
        for f in 0..<5 {
            let chain = [1 + 4 * f, 2 + 4 * f, 3 + 4 * f, 4 + 4 * f]
            let c = pose.curl[f]
            // Closing the spread turns each finger towards the middle finger about its base.
            let fan = f == 0 ? 0 : (1 - pose.spread) * Float(f - 2) * -0.12
            var prev = template[chain[0]]
            p[chain[0]] = prev
            for k in 1..<4 {
                let seg = rotate(template[chain[k]] - template[chain[k - 1]], fan)
                let step: SIMD2<Float>
                if f == 0 {
                    // The thumb swings across the palm as it bends.
                    let toward = normalize2(palmCentre - template[chain[0]]) * (seg * seg).sum().squareRoot()
                    let t = min(1, c * Float(k) * 0.45)
                    step = seg + t * (toward - seg)
                } else {
                    // A bending finger's segments shorten in projection and, past 90 degrees, fold back.
                    step = seg * cos(min(c * Float.pi * 0.35 * Float(k), Float.pi))
                }
                prev += step
                p[chain[k]] = prev
            }
        }
        let c = cos(angle), s = sin(angle)
        return p.map { q in
            let m = SIMD2(left ? -q.x : q.x, q.y) * size
            return wrist + SIMD2(c * m.x - s * m.y, s * m.x + c * m.y)
        }
    }

    static func rotate(_ v: SIMD2<Float>, _ a: Float) -> SIMD2<Float> {
        SIMD2(cos(a) * v.x - sin(a) * v.y, sin(a) * v.x + cos(a) * v.y)
    }

    static func normalize2(_ v: SIMD2<Float>) -> SIMD2<Float> {
        let l = (v * v).sum().squareRoot()
        return l > 1e-6 ? v / l : SIMD2(0, -1)
    }

    /// Draws the silhouette: forearm, palm polygon, fingers as tapering capsules.
    public static func draw(_ joints: [SIMD2<Float>], size: Float, skin: SIMD3<Float>, on canvas: inout Canvas) {
        let wrist = joints[0]
        let towardFingers = normalize2(joints[9] - wrist)
        let elbow = wrist - towardFingers * size * 1.6
        canvas.capsule(elbow, wrist, ra: size * 0.42, rb: size * 0.36, color: skin)
        let side = SIMD2(-towardFingers.y, towardFingers.x)
        let palm = [wrist + side * size * 0.3, joints[1], joints[2], joints[5], joints[9], joints[13], joints[17],
                    wrist - side * size * 0.3].map { $0 }
        canvas.polygon(convexHull(palm), color: skin)
        let thickness: [Float] = [0.24, 0.21, 0.22, 0.2, 0.17]
        for f in 0..<5 {
            let chain = f == 0 ? [1, 2, 3, 4] : [1 + 4 * f, 2 + 4 * f, 3 + 4 * f, 4 + 4 * f]
            for k in 0..<3 {
                let r0 = thickness[f] * size * (1 - 0.1 * Float(k)) / 2, r1 = thickness[f] * size * (0.9 - 0.1 * Float(k)) / 2
                canvas.capsule(joints[chain[k]], joints[chain[k + 1]], ra: r0, rb: r1, color: skin)
            }
        }
    }

    static func convexHull(_ points: [SIMD2<Float>]) -> [SIMD2<Float>] {
        let pts = points.sorted { ($0.x, $0.y) < ($1.x, $1.y) }
        func cross(_ o: SIMD2<Float>, _ a: SIMD2<Float>, _ b: SIMD2<Float>) -> Float { (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x) }
        var lower: [SIMD2<Float>] = [], upper: [SIMD2<Float>] = []
        for p in pts { while lower.count >= 2 && cross(lower[lower.count - 2], lower[lower.count - 1], p) <= 0 { lower.removeLast() }; lower.append(p) }
        for p in pts.reversed() { while upper.count >= 2 && cross(upper[upper.count - 2], upper[upper.count - 1], p) <= 0 { upper.removeLast() }; upper.append(p) }
        return Array(lower.dropLast() + upper.dropLast())
    }
}
