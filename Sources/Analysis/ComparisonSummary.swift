import Keypoints

extension KeypointComparison {
    /// What `compare --json` prints for a file or the whole run: the figures, under stable snake_case names,
    /// an unknown one (no jitter, no PCK) as null.
    public struct Summary: Encodable, Sendable {
        public var comparison: KeypointComparison

        public init(_ comparison: KeypointComparison) { self.comparison = comparison }

        enum Key: String, CodingKey {
            case frames, frames_only_in_a, frames_only_in_b, count_agreement, matched_hands, chirality_agreement, mean_deviation_palms, p95_deviation_palms, jitter_palms,
                 hands_only_in_a, hands_only_in_b, frames_with_hand_twice_in_a, frames_with_hand_twice_in_b,
                 count_agreement_without_twice, pck, joint_deviation_palms
        }

        public func encode(to encoder: Encoder) throws {
            let c = comparison
            var o = encoder.container(keyedBy: Key.self)
            try o.encode(c.frames, forKey: .frames)
            try o.encode(c.framesOnlyInA, forKey: .frames_only_in_a)
            try o.encode(c.framesOnlyInB, forKey: .frames_only_in_b)
            try o.encode(c.countAgreement, forKey: .count_agreement)
            try o.encode(c.matchedHands, forKey: .matched_hands)
            try o.encode(c.chiralityAgreement, forKey: .chirality_agreement)
            try o.encode(c.meanDeviation, forKey: .mean_deviation_palms)
            try o.encode(c.p95Deviation, forKey: .p95_deviation_palms)
            try o.encode(c.meanJitter, forKey: .jitter_palms)
            try o.encode(c.handsOnlyInA, forKey: .hands_only_in_a)
            try o.encode(c.handsOnlyInB, forKey: .hands_only_in_b)
            try o.encode(c.framesWithHandTwiceInA, forKey: .frames_with_hand_twice_in_a)
            try o.encode(c.framesWithHandTwiceInB, forKey: .frames_with_hand_twice_in_b)
            try o.encode(c.countAgreementWithoutTwice, forKey: .count_agreement_without_twice)
            try o.encode(c.pck.map { Dictionary(uniqueKeysWithValues: zip(KeypointComparison.pckThresholds.map { "\($0)" }, $0)) },
                         forKey: .pck)
            try o.encode(Dictionary(uniqueKeysWithValues: zip(Joint.names, c.jointDeviations)), forKey: .joint_deviation_palms)
        }
    }
}
