import Foundation
import Keypoints
import Landmarking

/// `extract --complete`: what a live tracker cannot do, done once a whole clip has been read. MediaPipe
/// sees each frame once, in order, so a hand is reported only from the frame where palm detection first
/// fires, and a hand lost for a moment comes back as a new track. With the whole clip at hand:
///
/// 1. **Backward tracking** (`extendBackward`): from each track's first frame, the landmark model tracks
///    the hand back in time (the region from the later frame's landmarks, the presence threshold), up to
///    `backwardReach` seconds (`backwardFrames` at most), until the hand is gone, the frame already holds
///    `maxHands` hands, or the hand found is one already there (`overlaps`). Those hands are real
///    estimates, marked `.backward`.
/// 2. **Reconnection** (`finish`): a track that ends and one that starts at most `joinGap` seconds later
///    become one track when they are one hand: the same chirality by vote, sizes within `maxSizeRatio`,
///    and their positions, each carried to the middle of the gap at its own velocity, within
///    `maxJoinDistance` palm sizes. Never two tracks that hold a hand in the same frame, a track that
///    mostly doubles another hand, or when another track is already where the later one begins.
///    Closest first.
/// 3. **Gaps filled** (`finish`): inside a track, frames between two of its hands at most `fillSpan`
///    seconds apart get a hand interpolated linearly in time, joint by joint (image and world landmarks,
///    scores), marked `.interpolated`, when the frame has room and holds no hand it `overlaps`.
/// 4. **Handedness by track** (`finish`): every hand of a track takes the track's chirality, the vote of
///    its estimated hands weighted by presence (Σ presence x (handedness - 0.5) ≥ 0: right); each hand
///    keeps its own handedness score.
///
/// Tracks are then numbered by first appearance from 0. Hands forward tracking found keep their
/// landmarks and scores exactly; only their chirality (the vote) and track number can change.
public struct SequenceCompletion: Sendable {
    /// How keypoint files name this completion (`settings.completion`).
    public static let name = "backward-1s+join-0.5s+fill-0.3s+vote"
    /// How far back (seconds) a track is followed before its first frame. MediaPipe's palm detector
    /// usually fires within a few frames of a hand coming into view; a second holds those frames.
    public static let backwardReach = 1.0
    /// ... and at most this many frames, whatever the frame rate or the timestamps claim: the decoded
    /// frames held for the backward pass (6 MB each at 1080p) stay bounded (30 at 30 fps and above).
    public static let backwardFrames = 30
    /// Two hands whose landmark boxes overlap by more than this (IoU) with the same chirality are taken
    /// for one: backward tracking stops at such a hand, a gap is not filled over one, and a track that
    /// overlaps another in most of its frames (a hand found twice) is not joined.
    public static let sameHandOverlap: Float = 0.3
    /// The longest loss (seconds, from a track's last hand to the next track's first) joined into one
    /// track: the blinks of motion blur and brief occlusion; beyond it, position and speed no longer
    /// tell which hand comes back.
    public static let joinGap = 0.5
    /// The widest gap (seconds between the hands on either side) filled by interpolation: linear motion
    /// stays within a fraction of a palm size of a moving hand over that span (README, "`--complete`").
    public static let fillSpan = 0.3
    /// Reconnection: the largest distance (palm sizes) between the two ends carried to the gap's middle.
    public static let maxJoinDistance: Float = 1.5
    /// Reconnection: the largest ratio of the two ends' palm sizes.
    public static let maxSizeRatio: Float = 1.5

    public let maxHands: Int
    public let width: Int
    public let height: Int

    public init(maxHands: Int, width: Int, height: Int) {
        self.maxHands = maxHands; self.width = width; self.height = height
    }

    /// A track's first hand, where backward tracking starts: its position in the frames, track number
    /// and the earliest position within `backwardReach`.
    public struct Start: Sendable, Equatable {
        public var position: Int
        public var track: Int
        public var earliest: Int
    }

    /// The tracks that begin after the first frame with an earlier frame within reach, by position.
    public static func starts(_ frames: [TrackedFrame]) -> [Start] {
        var seen = Set<Int>()
        var out: [Start] = []
        var earliest = 0
        for (p, frame) in frames.enumerated() {
            while earliest < p && (frame.time - frames[earliest].time > backwardReach + 1e-6 || p - earliest > backwardFrames) { earliest += 1 }
            for hand in frame.hands where seen.insert(hand.track).inserted && earliest < p {
                out.append(Start(position: p, track: hand.track, earliest: earliest))
            }
        }
        return out
    }

    /// Tracks `start`'s hand back through the frames before it: `estimate(position, later)` looks for
    /// the hand `later` in the frame at `position` (nil: not there, or that frame cannot be had). Returns
    /// how many hands it added.
    @discardableResult
    public func extendBackward(_ frames: inout [TrackedFrame], from start: Start,
                               estimate: (Int, HandObservation) throws -> HandObservation?) rethrows -> Int {
        guard var later = frames[start.position].hands.first(where: { $0.track == start.track }) else { return 0 }
        var added = 0
        var p = start.position - 1
        while p >= start.earliest, frames[p].hands.count < maxHands, var hand = try estimate(p, later) {
            if frames[p].hands.contains(where: { overlaps($0, hand) }) { break }
            hand.track = start.track
            hand.origin = .backward
            frames[p].hands.append(hand)
            later = hand
            added += 1
            p -= 1
        }
        return added
    }

    /// Reconnects tracks, fills short gaps, sets each track's chirality by vote and renumbers tracks
    /// by first appearance (steps 2-4 above), after `extendBackward` has run for every start.
    public func finish(_ frames: inout [TrackedFrame]) {
        var merged = join(frames)
        for p in frames.indices { for h in frames[p].hands.indices { frames[p].hands[h].track = merged[frames[p].hands[h].track]! } }
        fill(&frames)
        // Chirality by each (joined) track's vote.
        let votes = Dictionary(grouping: frames.flatMap(\.hands), by: \.track).mapValues { Self.vote($0) }
        // Numbers by first appearance.
        merged = [:]
        for f in frames { for h in f.hands where merged[h.track] == nil { merged[h.track] = merged.count } }
        for p in frames.indices {
            for h in frames[p].hands.indices {
                let track = frames[p].hands[h].track
                frames[p].hands[h].chirality = votes[track, default: 0] >= 0 ? .right : .left
                frames[p].hands[h].track = merged[track]!
            }
        }
    }

    /// One track's ends, for reconnection.
    struct Ends {
        var first: Int, last: Int
        var chirality: Chirality
        /// Centre (pixels), palm size (pixels) and velocity (pixels a second) at each end.
        var firstCentre: SIMD2<Float>, lastCentre: SIMD2<Float>
        var firstSize: Float, lastSize: Float
        var firstVelocity: SIMD2<Float>, lastVelocity: SIMD2<Float>
    }

    /// Each track's new number after reconnection (the first track of a chain gives its number).
    func join(_ frames: [TrackedFrame]) -> [Int: Int] {
        var appearances: [Int: [Int]] = [:]
        var order: [Int] = []
        for (p, f) in frames.enumerated() {
            for h in f.hands {
                if appearances[h.track] == nil { order.append(h.track) }
                appearances[h.track, default: []].append(p)
            }
        }
        // Tracks that overlap another hand of their chirality in most of their frames are a hand found
        // twice (one-frame glitches): joined, they would be filled over the real hand.
        var doubled = Set<Int>()
        for track in order {
            let at = appearances[track]!
            let overlapping = at.filter { p in
                let h = frames[p].hands.first { $0.track == track }!
                return frames[p].hands.contains { $0.track != track && overlaps($0, h) }
            }.count
            if 2 * overlapping > at.count { doubled.insert(track) }
        }
        var ends: [Int: Ends] = [:]
        for track in order {
            let at = appearances[track]!
            func hand(_ p: Int) -> HandObservation { frames[p].hands.first { $0.track == track }! }
            let vote = Self.vote(at.map(hand))
            // Velocity over up to 0.1 s at each end.
            func velocity(_ a: Int, _ b: Int) -> SIMD2<Float> {
                let dt = Float(frames[b].time - frames[a].time)
                return dt > 0 ? (centre(hand(b)) - centre(hand(a))) / dt : .zero
            }
            let firstNext = at.last { frames[$0].time - frames[at[0]].time <= 0.1 }!
            let lastPrevious = at.first { frames[at.last!].time - frames[$0].time <= 0.1 }!
            ends[track] = Ends(first: at[0], last: at.last!, chirality: vote >= 0 ? .right : .left,
                               firstCentre: centre(hand(at[0])), lastCentre: centre(hand(at.last!)),
                               firstSize: palmSize(hand(at[0])), lastSize: palmSize(hand(at.last!)),
                               firstVelocity: velocity(at[0], firstNext), lastVelocity: velocity(lastPrevious, at.last!))
        }
        // Every pair (a ends, b starts after it within joinGap) that looks like one hand, closest first.
        var candidates: [(cost: Float, a: Int, b: Int)] = []
        for a in order {
            for b in order where a != b {
                let ea = ends[a]!, eb = ends[b]!
                guard ea.last < eb.first, ea.chirality == eb.chirality, !doubled.contains(a), !doubled.contains(b) else { continue }
                let gap = Float(frames[eb.first].time - frames[ea.last].time)
                guard Double(gap) <= Self.joinGap + 1e-6 else { continue }
                // Another track already where b begins, in the gap or b's first frame, explains b better.
                let bFirst = frames[eb.first].hands.first { $0.track == b }!
                let explained = (ea.last + 1...eb.first).contains { p in
                    frames[p].hands.contains { $0.track != a && $0.track != b && $0.chirality == bFirst.chirality && Joint.boxIoU($0.landmarks, bFirst.landmarks) > Self.sameHandOverlap }
                }
                guard !explained else { continue }
                let size = (ea.lastSize + eb.firstSize) / 2
                guard size > 0, max(ea.lastSize, eb.firstSize) <= Self.maxSizeRatio * min(ea.lastSize, eb.firstSize) else { continue }
                let forward = ea.lastCentre + ea.lastVelocity * (gap / 2)
                let backward = eb.firstCentre - eb.firstVelocity * (gap / 2)
                let distance = length(forward - backward) / size
                if distance <= Self.maxJoinDistance { candidates.append((distance, a, b)) }
            }
        }
        var next: [Int: Int] = [:], previous: [Int: Int] = [:]
        for c in candidates.sorted(by: { ($0.cost, $0.a, $0.b) < ($1.cost, $1.a, $1.b) })
        where next[c.a] == nil && previous[c.b] == nil {
            next[c.a] = c.b
            previous[c.b] = c.a
        }
        var number: [Int: Int] = [:]
        for track in order where previous[track] == nil {
            var t: Int? = track
            while let current = t { number[current] = track; t = next[current] }
        }
        return number
    }

    /// Fills each track's gaps of at most `fillSpan` seconds (see the type's comment).
    func fill(_ frames: inout [TrackedFrame]) {
        var last: [Int: Int] = [:]   // track -> position of its latest hand so far
        for q in frames.indices {
            for hand in frames[q].hands where hand.origin != .interpolated {
                defer { last[hand.track] = q }
                guard let p = last[hand.track], q - p > 1, frames[q].time - frames[p].time <= Self.fillSpan + 1e-6 else { continue }
                let a = frames[p].hands.first { $0.track == hand.track }!
                for m in p + 1..<q where frames[m].hands.count < maxHands {
                    let w = Float((frames[m].time - frames[p].time) / (frames[q].time - frames[p].time))
                    var filled = a
                    func mix(_ x: [Point3], _ y: [Point3]) -> [Point3] { zip(x, y).map { $0 + w * ($1 - $0) } }
                    filled.landmarks = mix(a.landmarks, hand.landmarks)
                    filled.world = mix(a.world, hand.world)
                    filled.handedness = a.handedness + w * (hand.handedness - a.handedness)
                    filled.presence = a.presence + w * (hand.presence - a.presence)
                    filled.origin = .interpolated
                    guard !frames[m].hands.contains(where: { overlaps($0, filled) }) else { continue }
                    frames[m].hands.append(filled)
                }
            }
        }
    }

    /// One hand found twice: MediaPipe Tasks' duplicate rule, or the same chirality with landmark boxes
    /// overlapping by more than `sameHandOverlap` (two crops of one blurred hand can miss the first).
    func overlaps(_ a: HandObservation, _ b: HandObservation) -> Bool {
        Joint.sameHand(a.landmarks, b.landmarks, imageWidth: width, imageHeight: height)
            || (a.chirality == b.chirality && Joint.boxIoU(a.landmarks, b.landmarks) > Self.sameHandOverlap)
    }

    /// A track's chirality score: Σ presence x (handedness - 0.5) over its estimated hands (≥ 0: right).
    static func vote<S: Sequence>(_ hands: S) -> Float where S.Element == HandObservation {
        hands.reduce(0) { $1.origin == .interpolated ? $0 : $0 + $1.presence * ($1.handedness - 0.5) }
    }

    /// Mean of the 21 landmarks, in pixels.
    func centre(_ h: HandObservation) -> SIMD2<Float> {
        var s = SIMD2<Float>.zero
        for p in h.landmarks { s += SIMD2(p.x, p.y) }
        return s / Float(h.landmarks.count) * SIMD2(Float(width), Float(height))
    }

    /// Wrist to middle-finger MCP, in pixels (the palm size comparisons measure in).
    func palmSize(_ h: HandObservation) -> Float {
        let d = SIMD2(h.landmarks[9].x - h.landmarks[0].x, h.landmarks[9].y - h.landmarks[0].y) * SIMD2(Float(width), Float(height))
        return length(d)
    }
}

private func length(_ v: SIMD2<Float>) -> Float { (v * v).sum().squareRoot() }
