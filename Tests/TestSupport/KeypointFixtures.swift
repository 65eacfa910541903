import Keypoints

/// A keypoint file whose hand moves with `x(t)`; `present(i)` says which frames have it.
public func keypointFile(times: [Double], chirality: Chirality = .right, x: (Double) -> Float, present: (Int) -> Bool = { _ in true },
          second: Bool = false) -> KeypointFile {
    let frames = times.enumerated().map { i, t -> KeypointFile.Frame in
        var hands: [KeypointFile.Hand] = []
        if present(i) {
            let base: Float = x(t)
            var points: [[Float]] = []
            for j in 0..<21 { points.append([base + Float(j) * 0.001, 0.25, 0]) }
            let handedness: Float = chirality == .right ? 0.9 : 0.1
            hands.append(KeypointFile.Hand(chirality: chirality, handedness: handedness, presence: 0.8,
                                           landmarks: points, world: nil, region: nil))
        }
        if second {
            hands.append(KeypointFile.Hand(chirality: .left, handedness: 0.1, presence: 0.6,
                                           landmarks: Array(repeating: [Float(0.7), 0.7, 0], count: 21), world: nil, region: nil))
        }
        return KeypointFile.Frame(i: i, t: t, hands: hands)
    }
    return KeypointFile(source: "fixture.mp4", width: 100, height: 100, fps: 25, frames: frames, tool: nil, settings: nil, models: nil)
}
