import Foundation
import Keypoints
import VideoIO

/// Draws keypoint files over frames: each file in its own colour, left and right hands in two shades,
/// bones, joint dots, the region's rotated box, chirality and presence by the wrist, frame and time;
/// bodies (`extract --body`, `--holistic`) beneath the hands, and faces (`--holistic`) as their mesh's points.
public enum Overlay {
    /// Colours per keypoint file (left-hand shade, right-hand shade).
    static let palette: [(SIMD3<Float>, SIMD3<Float>)] = [
        (SIMD3(60, 220, 255), SIMD3(255, 90, 60)),     // ours: cyan / red
        (SIMD3(120, 255, 120), SIMD3(255, 230, 60)),   // second file: green / yellow
        (SIMD3(200, 120, 255), SIMD3(255, 150, 220)),  // third: violet / pink
    ]

    public static func draw(_ frame: VideoFrame, files: [KeypointFile], index: Int) -> Canvas {
        var canvas = Canvas(frame: frame)
        let W = Float(frame.width), H = Float(frame.height)
        let line = max(1.5, H / 360)
        for (k, file) in files.enumerated() {
            guard index < file.frames.count else { continue }
            let colors = palette[k % palette.count]
            // Bodies (`extract --body`) under the hands: bones in the file's colours mixed with grey, the
            // person's left side in the left-hand shade; a landmark less than half visible drawn dim.
            for body in file.frames[index].bodies ?? [] where body.landmarks.count == BodyJoint.count {
                let pts = body.landmarks.map { SIMD2($0[0] * W, $0[1] * H) }
                func seen(_ j: Int) -> Bool { j < body.visibility.count && body.visibility[j] >= 0.5 }
                for (a, b) in BodyJoint.bones {
                    let side = BodyJoint.names[b].hasPrefix("left") ? colors.0 : BodyJoint.names[b].hasPrefix("right") ? colors.1 : SIMD3(200, 200, 200)
                    let color = (side + SIMD3(160, 160, 160)) / 2 * (seen(a) && seen(b) ? 1 : 0.5)
                    canvas.line(pts[a], pts[b], width: line, color: color)
                }
                for j in pts.indices { canvas.disc(pts[j], radius: line * 1.2, color: SIMD3(230, 230, 230) * (seen(j) ? 1 : 0.5)) }
            }
            // Faces (`extract --holistic`): the mesh's points, small, in the file's colours lightened.
            for face in file.frames[index].faces ?? [] {
                let color = (colors.0 + colors.1) / 2 * 0.5 + SIMD3(110, 110, 110)
                for p in face.landmarks where p.count >= 2 { canvas.disc(SIMD2(p[0] * W, p[1] * H), radius: max(1, line * 0.5), color: color) }
            }
            for hand in file.frames[index].hands {
                let color = hand.chirality == .left ? colors.0 : colors.1
                let pts = hand.landmarks.map { SIMD2($0[0] * W, $0[1] * H) }
                if let r = hand.region {
                    let c = SIMD2(r.xCenter * W, r.yCenter * H), cs = cos(r.rotation), sn = sin(r.rotation)
                    let corners = [(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)].map { (u, v) -> SIMD2<Float> in
                        let d = SIMD2(Float(u) * r.width * W, Float(v) * r.height * H)
                        return c + SIMD2(cs * d.x - sn * d.y, sn * d.x + cs * d.y)
                    }
                    for i in 0..<4 { canvas.line(corners[i], corners[(i + 1) % 4], width: 1, color: color * 0.7) }
                }
                guard pts.count == 21 else { continue }
                for (a, b) in Joint.bones { canvas.line(pts[a], pts[b], width: line, color: color) }
                for p in pts { canvas.disc(p, radius: line * 1.4, color: SIMD3(255, 255, 255)) }
                let label = (hand.chirality == .left ? "L " : "R ") + String(format: "%.2f", hand.presence ?? hand.handedness)
                canvas.text(label, x: Int(min(max(pts[0].x, -1e6), 1e6)) + 6, y: Int(min(max(pts[0].y, -1e6), 1e6)) + 6, scale: max(1, frame.height / 360), color: color)
            }
        }
        let t = files.first.flatMap { index < $0.frames.count ? $0.frames[index].t : nil } ?? 0
        canvas.text(String(format: "FRAME %d  T %.3f", index, t), x: 6, y: 6, scale: max(1, frame.height / 300))
        return canvas
    }
}
