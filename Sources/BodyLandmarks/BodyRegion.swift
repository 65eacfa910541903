import Foundation
import Landmarking

/// Where the pose landmark model looks: a square around the whole body, turned so the body stands
/// upright. MediaPipe's AlignmentPointsRectsCalculator then RectTransformationCalculator.
public enum BodyRegion {
    /// A square centred on `centre` whose half side is the distance from `centre` to `scale` (pixels
    /// of a `width` x `height` frame), turned so `centre` -> `scale` points up (target 90 degrees), then
    /// enlarged 1.25 times (rect_transformation, scale 1.25, square_long).
    /// MediaPipe: pose_detection_to_roi.pbtxt and pose_landmarks_to_roi.pbtxt (the same two steps).
    public static func aligned(centre: SIMD2<Float>, scale: SIMD2<Float>, width: Int, height: Int) -> RegionOfInterest {
        RegionOfInterest.aligned(centre: centre, scale: scale, target: .pi / 2, width: width, height: height)
            .transformed(imageWidth: width, imageHeight: height, scale: 1.25, shiftY: 0)
    }

    /// The region for a detection: its keypoint 0 (the hips' midpoint) and 1 (the body's extent).
    public static func fromDetection(_ d: Detection, width: Int, height: Int) -> RegionOfInterest {
        aligned(centre: d.keypoints[0], scale: d.keypoints[1], width: width, height: height)
    }

    /// The next frame's region from this frame's two auxiliary landmarks (the model's landmarks 33 and
    /// 34, which play the detection's keypoints 0 and 1).
    public static func fromAuxiliary(_ aux: [Point3], width: Int, height: Int) -> RegionOfInterest {
        aligned(centre: SIMD2(aux[0].x, aux[0].y), scale: SIMD2(aux[1].x, aux[1].y), width: width, height: height)
    }
}
