import Foundation
import Keypoints

/// A keypoint file over time: hands found, presence and handedness per frame, with labelled bands
/// (annotated segments) behind them.
public enum Timeline {
    /// A labelled stretch of time drawn as a band; `start`/`end` nil mean the clip's start or end.
    public struct Band {
        public var label: String
        public var colorIndex: Int
        public var start: Double?
        public var end: Double?
        public init(label: String, colorIndex: Int, start: Double?, end: Double?) {
            self.label = label; self.colorIndex = colorIndex; self.start = start; self.end = end
        }
    }

    public static func plot(_ file: KeypointFile, bands: [Band] = []) -> Canvas {
        let W = 1200, H = 360, left = 70, right = 20, top = 30
        var c = Canvas(width: W, height: H, fill: SIMD3(250, 250, 250))
        let duration = max(file.frames.last?.t ?? 1, 1e-3)
        func x(_ t: Double) -> Float { Float(left) + Float(t / duration) * Float(W - left - right) }
        // Lanes: hands found (0...2), presence (0...1), handedness (0 left ... 1 right).
        let lanes = [("HANDS", 2.0), ("PRESENCE", 1.0), ("RIGHT P", 1.0)]
        let laneH = (H - top - 30) / lanes.count
        func y(_ lane: Int, _ v: Double) -> Float { Float(top + lane * laneH + laneH - 8) - Float(v / lanes[lane].1) * Float(laneH - 16) }
        let colors: [SIMD3<Float>] = [[255, 220, 200], [200, 230, 255], [210, 250, 210], [250, 240, 190], [235, 215, 250]]
        for band in bands {
            let x0 = x(band.start ?? 0), x1 = x(band.end ?? duration)
            c.polygon([SIMD2(x0, Float(top)), SIMD2(x1, Float(top)), SIMD2(x1, Float(H - 30)), SIMD2(x0, Float(H - 30))],
                      color: colors[band.colorIndex % colors.count])
            c.text(band.label, x: Int(x0) + 3, y: H - 24, scale: 1, color: SIMD3(40, 40, 40), backing: false)
        }
        for (i, lane) in lanes.enumerated() {
            c.line(SIMD2(Float(left), y(i, 0)), SIMD2(Float(W - right), y(i, 0)), width: 1, color: SIMD3(160, 160, 160))
            c.text(lane.0, x: 4, y: top + i * laneH + laneH / 2 - 7, scale: 1, color: SIMD3(40, 40, 40), backing: false)
        }
        var previous: SIMD2<Float>? = nil
        for f in file.frames {
            let p = SIMD2(x(f.t), y(0, Double(f.hands.count)))
            if let q = previous { c.line(q, SIMD2(p.x, q.y), width: 2, color: SIMD3(40, 40, 40)); c.line(SIMD2(p.x, q.y), p, width: 2, color: SIMD3(40, 40, 40)) }
            previous = p
            for h in f.hands {
                let color: SIMD3<Float> = h.chirality == .left ? SIMD3(30, 140, 220) : SIMD3(220, 60, 40)
                c.disc(SIMD2(x(f.t), y(1, Double(h.presence ?? 1))), radius: 2, color: color)
                c.disc(SIMD2(x(f.t), y(2, Double(h.handedness))), radius: 2, color: color)
            }
        }
        c.text(String(format: "%@  %.2fS  %d FRAMES", (file.source.path as NSString).lastPathComponent, duration, file.frames.count),
               x: left, y: 8, scale: 1, color: SIMD3(20, 20, 20), backing: false)
        return c
    }
}
