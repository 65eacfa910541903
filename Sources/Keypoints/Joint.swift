/// Which hand: as seen in the image as given (not mirrored). Stored as `"left"` or `"right"`.
public enum Chirality: String, Codable, Sendable {
    case left, right
}

/// MediaPipe's and Apple Vision's joint order: wrist, thumb CMC to tip, then index, middle,
/// ring and little finger from MCP to tip. A keypoint file lists these names in `joints`.
public enum Joint {
    public static let names = [
        "wrist", "thumbCMC", "thumbMP", "thumbIP", "thumbTip",
        "indexMCP", "indexPIP", "indexDIP", "indexTip",
        "middleMCP", "middlePIP", "middleDIP", "middleTip",
        "ringMCP", "ringPIP", "ringDIP", "ringTip",
        "littleMCP", "littlePIP", "littleDIP", "littleTip",
    ]
    public static let count = 21
    /// MediaPipe's 21 hand connections (bones), for drawing.
    public static let bones: [(Int, Int)] = [
        (0, 1), (1, 2), (2, 3), (3, 4), (0, 5), (5, 6), (6, 7), (7, 8), (5, 9), (9, 10), (10, 11), (11, 12),
        (9, 13), (13, 14), (14, 15), (15, 16), (13, 17), (0, 17), (17, 18), (18, 19), (19, 20),
    ]
}
