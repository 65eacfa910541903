import HandLandmarks
import Keypoints
import Landmarking

/// `extract --holistic --hand-fallback`: Holistic finds hands only through crops cut from the pose's
/// arms, and loses hands the palm detector finds (mediapipe #5373, pose-format #78). A side Holistic
/// left empty in a frame with a body takes the hand handpose's own tracker found there, if that hand is
/// tied to that arm of Holistic's body by `BodyAssociation` (the rule `--body` ties hands with) and is not
/// the hand Holistic found for the other side (MediaPipe Tasks' duplicate rule, `Joint.sameHand`). Such a
/// hand is marked `origin: fallback`; its chirality is the arm's side, as Holistic's hands'.
enum HolisticFallback {
    static func fill(_ found: [HandObservation], tracked: [HandObservation], body: KeypointFile.Body,
                     width: Int, height: Int) -> [HandObservation] {
        let missing = [Chirality.left, .right].filter { side in !found.contains { $0.chirality == side } }
        guard !missing.isEmpty, !tracked.isEmpty else { return [] }
        var frame = KeypointFile.Frame(i: 0, t: 0, hands: tracked.map(KeypointFile.Hand.init), bodies: [body])
        BodyAssociation.tie(&frame, width: width, height: height)
        var out: [HandObservation] = []
        for (k, tied) in frame.hands.enumerated() {
            guard tied.person == 0, let side = tied.arm.flatMap(Chirality.init(rawValue:)), missing.contains(side),
                  !found.contains(where: { Joint.sameHand($0.landmarks, tracked[k].landmarks, imageWidth: width, imageHeight: height) }) else { continue }
            var hand = tracked[k]
            hand.chirality = side
            hand.handedness = side == .right ? 1 : 0
            hand.origin = .fallback
            out.append(hand)
        }
        return out
    }
}
