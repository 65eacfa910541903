import Keypoints
import Landmarking

/// How MediaPipe's face mesh with attention (face_landmark_with_attention.tflite) makes 478 points of its six
/// landmark outputs: LandmarksRefinementCalculator as face_landmark/tensors_to_face_landmarks_with_attention.pbtxt
/// configures it (mediapipe 0.10.14). The mesh's 468 points first; then the lips' and eyes' own x and y replace
/// the mesh's at the indices below (their z stays the mesh's); then the irises, 5 points each, appended as
/// 468-472 and 473-477, each given the average z of its eye's 16 contour points.
public enum FaceRefinement {
    public static let meshPoints = KeypointFile.Face.meshPoints
    public static let pointCount = KeypointFile.Face.refinedPoints
    /// The mesh indices of the lips model's 80 points, in its output order.
    public static let lips = [
        61, 146, 91, 181, 84, 17, 314, 405, 321, 375, 291, 185, 40, 39, 37, 0, 267, 269, 270, 409,
        78, 95, 88, 178, 87, 14, 317, 402, 318, 324, 308, 191, 80, 81, 82, 13, 312, 311, 310, 415,
        76, 77, 90, 180, 85, 16, 315, 404, 320, 307, 306, 184, 74, 73, 72, 11, 302, 303, 304, 408,
        62, 96, 89, 179, 86, 15, 316, 403, 319, 325, 292, 183, 42, 41, 38, 12, 268, 271, 272, 407,
    ]
    /// The model's "left eye" (the image's left: the person's right eye), 71 points. Its first 16 (the eye's
    /// lower and upper contour) give the iris its depth.
    public static let leftEye = [
        33, 7, 163, 144, 145, 153, 154, 155, 133, 246, 161, 160, 159, 158, 157, 173,
        130, 25, 110, 24, 23, 22, 26, 112, 243, 247, 30, 29, 27, 28, 56, 190,
        226, 31, 228, 229, 230, 231, 232, 233, 244, 113, 225, 224, 223, 222, 221, 189,
        35, 124, 46, 53, 52, 65, 143, 111, 117, 118, 119, 120, 121, 128, 245, 156, 70, 63, 105, 66, 107, 55, 193,
    ]
    public static let rightEye = [
        263, 249, 390, 373, 374, 380, 381, 382, 362, 466, 388, 387, 386, 385, 384, 398,
        359, 255, 339, 254, 253, 252, 256, 341, 463, 467, 260, 259, 257, 258, 286, 414,
        446, 261, 448, 449, 450, 451, 452, 453, 464, 342, 445, 444, 443, 442, 441, 413,
        265, 353, 276, 283, 282, 295, 372, 340, 346, 347, 348, 349, 350, 357, 465, 383, 300, 293, 334, 296, 336, 285, 417,
    ]
    static let contour = 16

    /// The 478 points (each in the model's input pixels divided by its size, as `mesh`) from the mesh's 468 x, y, z
    /// and the lips', eyes' and irises' x, y (`[x0, y0, x1, y1, ...]`).
    public static func refine(mesh: [Point3], lips lipPoints: UnsafeBufferPointer<Float>, leftEye left: UnsafeBufferPointer<Float>,
                              rightEye right: UnsafeBufferPointer<Float>, leftIris: UnsafeBufferPointer<Float>,
                              rightIris: UnsafeBufferPointer<Float>, scale: Float) -> [Point3] {
        precondition(mesh.count == meshPoints)
        var points = mesh
        for (indices, xy) in [(lips, lipPoints), (leftEye, left), (rightEye, right)] {
            for (k, i) in indices.enumerated() {
                points[i].x = xy[2 * k] / scale
                points[i].y = xy[2 * k + 1] / scale
            }
        }
        for (eye, iris) in [(leftEye, leftIris), (rightEye, rightIris)] {
            // Summed in double, as the calculator does, over the points already refined (their z is the mesh's).
            var sum = 0.0
            for i in eye.prefix(contour) { sum += Double(points[i].z) }
            let z = Float(sum / Double(contour))
            for k in 0..<5 { points.append(Point3(iris[2 * k] / scale, iris[2 * k + 1] / scale, z)) }
        }
        return points
    }
}
