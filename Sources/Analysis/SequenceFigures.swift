import Foundation
import Keypoints

/// What `extract --complete` changes in a keypoint file, as `bench complete` reports it: frames with a
/// hand, tracks, handedness flips along tracks, hands by origin. Summed over files with `merge`.
public struct SequenceFigures: Sendable, Equatable {
    public var files = 0
    public var frames = 0
    public var framesWithHand = 0
    public var hands = 0
    /// Distinct track numbers, summed over files.
    public var tracks = 0
    /// Consecutive hands of one track whose chirality differs.
    public var flips = 0
    /// Hands the model found forward (as MediaPipe), backward, and interpolated (`KeypointFile.Hand.origin`).
    public var tracked = 0, backward = 0, interpolated = 0

    public init() {}

    public init(_ file: KeypointFile) {
        files = 1
        frames = file.frames.count
        var seen = Set<Int>()
        var last: [Int: Chirality] = [:]
        for frame in file.frames {
            if !frame.hands.isEmpty { framesWithHand += 1 }
            for hand in frame.hands {
                hands += 1
                switch hand.origin {
                case nil: tracked += 1
                case .some(KeypointFile.Hand.backward): backward += 1
                default: interpolated += 1
                }
                guard let track = hand.track else { continue }
                seen.insert(track)
                if let previous = last[track], previous != hand.chirality { flips += 1 }
                last[track] = hand.chirality
            }
        }
        tracks = seen.count
    }

    public mutating func merge(_ o: SequenceFigures) {
        files += o.files; frames += o.frames; framesWithHand += o.framesWithHand; hands += o.hands
        tracks += o.tracks; flips += o.flips; tracked += o.tracked; backward += o.backward; interpolated += o.interpolated
    }

    /// The file with only the hands whose `origin` is `origin` (nil: those found as MediaPipe finds them).
    public static func only(_ file: KeypointFile, origin: String?) -> KeypointFile {
        var out = file
        for f in out.frames.indices { out.frames[f].hands.removeAll { $0.origin != origin } }
        return out
    }

    /// Whether completion kept every hand plain extraction found: for each frame, `plain`'s hands
    /// and `completed`'s hands without an origin, in order, have the same landmarks, world landmarks,
    /// handedness and presence, bit for bit (chirality and track may differ: the vote and the joins).
    /// Returns the hands that differ (0 when all are kept) and those compared.
    public static func changedHands(plain: KeypointFile, completed: KeypointFile) -> (changed: Int, compared: Int) {
        var changed = 0, compared = 0
        let byIndex = Dictionary(completed.frames.map { ($0.i, $0) }, uniquingKeysWith: { a, _ in a })
        for frame in plain.frames {
            let kept = byIndex[frame.i]?.hands.filter { $0.origin == nil } ?? []
            compared += frame.hands.count
            if kept.count != frame.hands.count { changed += max(frame.hands.count, kept.count); continue }
            for (a, b) in zip(frame.hands, kept)
            where a.landmarks != b.landmarks || a.world != b.world || a.handedness != b.handedness || a.presence != b.presence {
                changed += 1
            }
        }
        return (changed, compared)
    }
}
