extension Detection {
    /// MediaPipe's `DetectionLetterboxRemovalCalculator`: coordinates relative to the padded square
    /// (`RegionCrop.letterbox`) become relative to the frame.
    public func removingLetterbox(padding pad: SIMD2<Float>) -> Detection {
        let span = SIMD2<Float>(1, 1) - 2 * pad
        var out = self
        out.box = Box(xMin: (box.xMin - pad.x) / span.x, yMin: (box.yMin - pad.y) / span.y,
                      xMax: (box.xMax - pad.x) / span.x, yMax: (box.yMax - pad.y) / span.y)
        out.keypoints = keypoints.map { ($0 - pad) / span }
        return out
    }
}
