/// How a landmarker treats the frames it is given (MediaPipe Tasks' running mode): as a video, tracked
/// from frame to frame and smoothed where MediaPipe smooths, or as unrelated images, each detected afresh.
public enum RunningMode: String, Codable, Sendable, CaseIterable { case video, image }
