import Foundation
import Landmarking

/// Where the hand landmark model looks: a region from a palm detection, or from the hand's landmarks in
/// the frame before. MediaPipe: palm_detection_detection_to_roi.pbtxt, hand_landmark_landmarks_to_roi.pbtxt.
extension RegionOfInterest {
    /// The rotation target of a palm's region. The legacy solution asks for 90 degrees
    /// (`palm_detection_detection_to_roi.pbtxt`: `rotation_vector_target_angle_degrees: 90`), which turns
    /// the wrist-to-middle-finger line upright. MediaPipe Tasks' hand detector graph passes 90 to the
    /// field in radians (`hand_detector_graph.cc`: `set_rotation_vector_target_angle(90)`), so every
    /// region it cuts from a palm is turned 90 - pi/2 (mod 2 pi) = 0.4646 radians (26.6 degrees) further
    /// and its centre moves with the turned shift. Landmarks are projected back through the same region,
    /// so they stay in place, but the model sees the hand tilted and answers a little differently:
    /// reproducing this is what makes our still images equal Tasks' (0.08 palm sizes apart before).
    public enum PalmRotationTarget: Sendable {
        case legacy, tasks
        var radians: Float { self == .legacy ? .pi / 2 : 90 }
    }

    /// The hand region for a palm detection: rotation from the wrist (keypoint 0) to the middle
    /// finger's MCP (keypoint 2) towards `target`, then MediaPipe: rect_transformation_calculator, scale 2.6, shift_y -0.5, square_long.
    public static func fromPalm(_ palm: Detection, imageWidth: Int, imageHeight: Int,
                                target: PalmRotationTarget = .legacy) -> RegionOfInterest {
        let W = Float(imageWidth), H = Float(imageHeight)
        let k0 = palm.keypoints[0] * SIMD2(W, H), k2 = palm.keypoints[2] * SIMD2(W, H)
        let box = RegionOfInterest(xCenter: (palm.box.xMin + palm.box.xMax) / 2, yCenter: (palm.box.yMin + palm.box.yMax) / 2,
                                   width: palm.box.xMax - palm.box.xMin, height: palm.box.yMax - palm.box.yMin,
                                   rotation: rotation(from: k0, to: k2, target: target.radians))
        return box.transformed(imageWidth: imageWidth, imageHeight: imageHeight, scale: 2.6, shiftY: -0.5)
    }

    /// Landmark subset MediaPipe uses to place the next frame's region: wrist, thumb CMC/MCP/IP,
    /// and each finger's MCP and PIP.
    static let trackingSubset = [0, 1, 2, 3, 5, 6, 9, 10, 13, 14, 17, 18]

    /// The next frame's region from this frame's landmarks (MediaPipe's `HandLandmarksToRectCalculator`
    /// then rect_transformation_calculator, scale 2.0, shift_y -0.1, square_long).
    public static func fromLandmarks(_ landmarks: [Point3], imageWidth: Int, imageHeight: Int) -> RegionOfInterest {
        let W = Float(imageWidth), H = Float(imageHeight)
        let pts = trackingSubset.map { SIMD2(landmarks[$0].x * W, landmarks[$0].y * H) }
        // Rotation: wrist towards the mean of the middle MCP and the midpoint of the index and ring MCPs.
        let p1 = ((pts[4] + pts[8]) / 2 + pts[6]) / 2
        let rot = rotation(from: pts[0], to: p1)
        let reverse = normalizeRadians(-rot)
        var lo = pts[0], hi = pts[0]
        for p in pts { lo = pointwiseMin(lo, p); hi = pointwiseMax(hi, p) }
        let axisCenter = (lo + hi) / 2
        var plo = SIMD2<Float>(repeating: .greatestFiniteMagnitude), phi = -plo
        for p in pts {
            let o = p - axisCenter
            let q = SIMD2(o.x * cos(reverse) - o.y * sin(reverse), o.x * sin(reverse) + o.y * cos(reverse))
            plo = pointwiseMin(plo, q); phi = pointwiseMax(phi, q)
        }
        let pc = (plo + phi) / 2
        let cx = pc.x * cos(rot) - pc.y * sin(rot) + axisCenter.x
        let cy = pc.x * sin(rot) + pc.y * cos(rot) + axisCenter.y
        let r = RegionOfInterest(xCenter: cx / W, yCenter: cy / H, width: (phi.x - plo.x) / W, height: (phi.y - plo.y) / H, rotation: rot)
        return r.transformed(imageWidth: imageWidth, imageHeight: imageHeight, scale: 2.0, shiftY: -0.1)
    }
}
