import Foundation
import Rendering
import VideoIO

/// What a synthetic clip shows over time: for each instant, the hand (or none).
public struct HandState: Sendable {
    public var pose: HandPose2D
    public var wrist: SIMD2<Float>   // normalised 0...1
    public var size: Float           // palm length, fraction of the frame height
    public var angle: Float          // radians, clockwise
}

/// Action classes `handpose synth` renders, each a smooth trajectory with random variation.
public enum SynthAction: String, CaseIterable, Sendable {
    case wave, swipe_left, swipe_right, grab, pinch, point, Background

    /// The hand at phase `u` (0...1 over the action) with variation `v` (0...1 numbers fixed per clip).
    public func state(_ u: Float, _ v: [Float]) -> HandState? {
        let base = SIMD2<Float>(0.5 + (v[0] - 0.5) * 0.2, 0.72 + (v[1] - 0.5) * 0.1)
        let size = 0.2 + v[2] * 0.06
        let tilt = (v[3] - 0.5) * 0.4
        let smooth = 0.5 - 0.5 * cos(Float.pi * u)          // ease in and out
        switch self {
        case .wave:
            return HandState(pose: .open, wrist: base, size: size, angle: tilt + 0.45 * sin(2 * .pi * 2 * u))
        case .swipe_left, .swipe_right:
            let dir: Float = self == .swipe_left ? -1 : 1
            return HandState(pose: .open, wrist: base + SIMD2(dir * (smooth - 0.5) * 0.45, 0), size: size, angle: tilt + dir * 0.3)
        case .grab:
            return HandState(pose: HandPose2D.open.mixed(.fist, min(1, smooth * 1.3)), wrist: base, size: size, angle: tilt)
        case .pinch:
            let t = 0.5 - 0.5 * cos(2 * .pi * u)
            return HandState(pose: HandPose2D.open.mixed(.pinch, t), wrist: base, size: size, angle: tilt)
        case .point:
            return HandState(pose: .point, wrist: base + SIMD2(0.05 * sin(2 * .pi * u), 0), size: size, angle: tilt + 0.15 * sin(2 * .pi * u))
        case .Background:
            // Idle drift half of the time, no hand otherwise.
            if v[4] < 0.5 { return nil }
            return HandState(pose: HandPose2D.open.mixed(.fist, 0.3 + 0.2 * v[5]), wrist: base + SIMD2(0.04 * sin(.pi * u), 0.02 * u),
                             size: size, angle: tilt + 0.1 * u)
        }
    }
}

/// Still poses for hand pose data.
public enum SynthPose: String, CaseIterable, Sendable {
    case open_palm, fist, point, peace, pinch, Background

    public var pose: HandPose2D? {
        switch self {
        case .open_palm: return .open
        case .fist: return .fist
        case .point: return .point
        case .peace: return .peace
        case .pinch: return .pinch
        case .Background: return nil
        }
    }
}

/// Renders frames: background, hand silhouette, blur and noise; returns the drawn joints (normalised).
public struct SceneRenderer {
    public let width: Int
    public let height: Int
    let background: Int
    let backgroundColor: SIMD3<Float>
    let skin: SIMD3<Float>
    let left: Bool
    var shapes: [(SIMD2<Float>, Float, SIMD3<Float>)] = []

    /// Skin tones across the range people have (sRGB, 0...255).
    static let skins: [SIMD3<Float>] = [[241, 194, 167], [224, 172, 135], [198, 134, 96], [161, 102, 68], [120, 75, 52], [88, 56, 40]]

    public init(width: Int, height: Int, left: Bool, rng: inout SeededGenerator) {
        self.width = width
        self.height = height
        self.left = left
        background = Int.random(in: 0..<4, using: &rng)
        let skinIndex = Int.random(in: 0..<Self.skins.count, using: &rng)
        skin = Self.skins[skinIndex]
        // Backgrounds contrast with the skin: darker for light skin, lighter for dark skin.
        let lum = (skin * SIMD3(0.3, 0.59, 0.11)).sum()
        let target: Float = lum > 150 ? Float.random(in: 50...95, using: &rng) : Float.random(in: 170...215, using: &rng)
        backgroundColor = SIMD3(target * Float.random(in: 0.8...1.1, using: &rng), target, target * Float.random(in: 0.9...1.25, using: &rng))
        for _ in 0..<5 {
            shapes.append((SIMD2(Float.random(in: 0...Float(width), using: &rng), Float.random(in: 0...Float(height), using: &rng)),
                           Float.random(in: 8...30, using: &rng), backgroundColor * Float.random(in: 0.75...1.2, using: &rng)))
        }
    }

    /// `occluded`: a grey box hides the hand (the joints returned are where it is behind the box).
    public func render(_ state: HandState?, occluded: Bool = false, rng: inout SeededGenerator) -> (frame: VideoFrame, joints: [SIMD2<Float>]?) {
        var canvas = Canvas(width: width, height: height, fill: backgroundColor)
        switch background {
        case 1:  // vertical gradient
            for y in 0..<height { for x in 0..<width { canvas.pixels[y * width + x] = backgroundColor * (0.85 + 0.3 * Float(y) / Float(height)) } }
        case 2:  // coarse texture
            for i in canvas.pixels.indices { canvas.pixels[i] = backgroundColor * Float.random(in: 0.92...1.08, using: &rng) }
        case 3:  // random shapes
            for (c, r, color) in shapes { canvas.disc(c, radius: r, color: color) }
        default: break
        }
        var joints: [SIMD2<Float>]? = nil
        if let s = state {
            let h = Float(height)
            let px = HandModel2D.joints(s.pose, wrist: SIMD2(s.wrist.x * Float(width), s.wrist.y * h), size: s.size * h, angle: s.angle, left: left)
            HandModel2D.draw(px, size: s.size * h, skin: skin, on: &canvas)
            joints = px.map { SIMD2($0.x / Float(width), $0.y / h) }
            if occluded {
                let lo = px.reduce(SIMD2<Float>(repeating: .greatestFiniteMagnitude)) { pointwiseMin($0, $1) }
                let hi = px.reduce(SIMD2<Float>(repeating: -.greatestFiniteMagnitude)) { pointwiseMax($0, $1) }
                let m = 0.35 * s.size * h
                canvas.polygon([SIMD2(lo.x - m, lo.y - m), SIMD2(hi.x + m, lo.y - m), SIMD2(hi.x + m, hi.y + m), SIMD2(lo.x - m, hi.y + m)],
                               color: SIMD3(repeating: 128))
            }
        }
        canvas.blur()
        canvas.noise(sigma: 4, rng: &rng)
        return (canvas.frame(), joints)
    }
}
