/// The 33 body landmarks of MediaPipe's pose landmarker (BlazePose), in its order and with its names
/// (`PoseLandmark`): left and right are the person's own.
public enum BodyJoint {
    public static let names = [
        "nose", "left_eye_inner", "left_eye", "left_eye_outer", "right_eye_inner", "right_eye", "right_eye_outer",
        "left_ear", "right_ear", "mouth_left", "mouth_right", "left_shoulder", "right_shoulder", "left_elbow",
        "right_elbow", "left_wrist", "right_wrist", "left_pinky", "right_pinky", "left_index", "right_index",
        "left_thumb", "right_thumb", "left_hip", "right_hip", "left_knee", "right_knee", "left_ankle",
        "right_ankle", "left_heel", "right_heel", "left_foot_index", "right_foot_index",
    ]
    public static let count = 33
    public static let leftShoulder = 11, rightShoulder = 12, leftWrist = 15, rightWrist = 16, leftHip = 23, rightHip = 24
    /// Each landmark's counterpart on the person's other side (the nose its own): where each landmark
    /// of a mirrored picture comes from.
    public static let mirrored = [0, 4, 5, 6, 1, 2, 3, 8, 7, 10, 9, 12, 11, 14, 13, 16, 15, 18, 17, 20, 19, 22, 21, 24, 23,
                                  26, 25, 28, 27, 30, 29, 32, 31]
    /// The upper body: the face, the arms with the hands' three points, and the hips (landmarks 0 to 24).
    public static let upperBody = Array(0...24)
    /// MediaPipe's `POSE_CONNECTIONS`.
    public static let bones: [(Int, Int)] = [
        (0, 1), (1, 2), (2, 3), (3, 7), (0, 4), (4, 5), (5, 6), (6, 8), (9, 10),
        (11, 12), (11, 13), (13, 15), (15, 17), (15, 19), (15, 21), (17, 19),
        (12, 14), (14, 16), (16, 18), (16, 20), (16, 22), (18, 20),
        (11, 23), (12, 24), (23, 24), (23, 25), (24, 26), (25, 27), (26, 28),
        (27, 29), (28, 30), (29, 31), (30, 32), (27, 31), (28, 32),
    ]
}
