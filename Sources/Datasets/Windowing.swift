import FileSystem
import Foundation
import Keypoints

/// Which hand a window follows. `track` follows one hand identity through a segment: the track present
/// in the most of its frames (keypoint files' `track` numbers; ties go to the earlier track), so a second
/// person's hand never takes over mid-action as it can with `any` (the most confident hand of each frame).
/// A file without track numbers (MediaPipe's reference files, say) is read as with `any`.
public enum HandChoice: String, Codable, Sendable, CaseIterable {
    case right, left, any, both, track
    var slots: Int { self == .both ? 2 : 1 }
}

/// What each joint carries, in order.
public enum FeatureSet: String, Codable, Sendable, CaseIterable {
    case xyc, xyz, xyzc
    public var count: Int { rawValue.count }
}

public enum Normalization: String, Codable, Sendable, CaseIterable { case none, wrist, bbox }

/// Which body joints go beside the hands (`export actions --body-joints`).
public enum BodyJoints: String, Codable, Sendable, CaseIterable {
    /// MediaPipe's upper body: landmarks 0 to 24 (face, arms with the hands' three points, hips), the
    /// 25 its former upper-body pose model gave.
    case upper
    /// The pose landmarks taken, in order.
    public var joints: [Int] { BodyJoint.upperBody }
}

/// A body at one instant after resampling: the chosen joints' x, y, z and their visibility.
public struct BodySample: Sendable, Equatable {
    public var joints: [SIMD3<Float>]
    public var visibility: [Float]

    public init(joints: [SIMD3<Float>], visibility: [Float]) { self.joints = joints; self.visibility = visibility }

    /// Blends two samples: `w` of the way from `a` to `b`.
    static func blend(_ a: BodySample, _ b: BodySample, _ w: Float) -> BodySample {
        BodySample(joints: zip(a.joints, b.joints).map { $0 + w * ($1 - $0) }, visibility: zip(a.visibility, b.visibility).map { $0 + w * ($1 - $0) })
    }

    /// The person's left joints trading places with their right ones (`joints` says which were taken),
    /// as a mirrored picture shows them.
    func sidesSwapped(_ joints: BodyJoints) -> BodySample {
        let taken = joints.joints
        let order = taken.map { j in taken.firstIndex(of: BodyJoint.mirrored[j]) ?? taken.firstIndex(of: j)! }
        return BodySample(joints: order.map { self.joints[$0] }, visibility: order.map { visibility[$0] })
    }
}
public enum Layout: String, Codable, Sendable, CaseIterable { case createml, ntjc }
public enum Origin: String, Codable, Sendable, CaseIterable { case bottomLeft = "bottom-left", topLeft = "top-left" }

/// One hand at one instant after resampling: 21 joints of x, y, z and its confidence.
public struct HandSample: Sendable, Equatable {
    public var joints: [SIMD3<Float>]
    public var confidence: Float
    public var chirality: Chirality
    /// Made from a hand `extract --complete` interpolated (no model saw it; between two frames, the nearer
    /// one's): the export's mask says 2 here rather than 1.
    public var interpolated: Bool

    public init(joints: [SIMD3<Float>], confidence: Float, chirality: Chirality, interpolated: Bool = false) {
        self.joints = joints; self.confidence = confidence; self.chirality = chirality; self.interpolated = interpolated
    }

    /// The export's mask value of a slot: 0 no hand, 1 a hand the model estimated, 2 an interpolated one.
    public static func mask(_ slot: HandSample?) -> UInt8 { slot.map { $0.interpolated ? 2 : 1 } ?? 0 }
}

/// A resampled track: per output frame and hand slot, a sample or nil (no hand), and the source frame times used.
public struct Track: Sendable {
    public var times: [Double]
    public var slots: [[HandSample?]]   // [frame][slot]
    public var sourceTimes: [[Double]]  // [frame] the keypoint frame times it came from
    /// [frame] the body followed (`resample`'s `body`); empty when no body was asked for.
    public var bodies: [BodySample?] = []
}

/// Turns keypoint files into uniform-rate tracks and windows.
public enum Windowing {
    /// The hands of one keypoint frame for the chosen slots.
    static func pick(_ hands: [KeypointFile.Hand], _ choice: HandChoice) -> [KeypointFile.Hand?] {
        // A hand the model estimated before one `--complete` interpolated, then the surest.
        func best(_ hs: [KeypointFile.Hand]) -> KeypointFile.Hand? {
            hs.max { ($0.isInterpolated ? 0 : 1, $0.presence ?? max($0.handedness, 1 - $0.handedness))
                < ($1.isInterpolated ? 0 : 1, $1.presence ?? max($1.handedness, 1 - $1.handedness)) }
        }
        switch choice {
        case .any, .track: return [best(hands)]
        case .right: return [best(hands.filter { $0.chirality == .right })]
        case .left: return [best(hands.filter { $0.chirality == .left })]
        case .both: return [best(hands.filter { $0.chirality == .left }), best(hands.filter { $0.chirality == .right })]
        }
    }

    static func sample(_ h: KeypointFile.Hand) -> HandSample {
        HandSample(joints: h.landmarks.map { SIMD3($0[0], $0[1], $0.count > 2 ? $0[2] : 0) }, confidence: h.presence ?? 1, chirality: h.chirality,
                   interpolated: h.isInterpolated)
    }

    /// Samples `[start, end)` holds at `fps` (`resample`'s count, and `ExportSize`'s); nil when past counting.
    public static func sampleCount(start: Double, end: Double, fps: Double) -> Int? {
        guard end > start else { return 0 }
        return InputRange.int(((end - start) * fps + 1e-9).rounded(.down), in: 0...Double(Int.max / 2))
    }

    /// Where a keypoint file's clip ends: one frame (at its rate) after its last frame's time.
    public static func clipEnd(_ file: KeypointFile) -> Double {
        let last = file.frames.map(\.t).max() ?? 0
        return last + (file.video.fps.map { $0 > 0 ? 1 / $0 : 0 } ?? 0)
    }

    /// The person a segment follows (a body `track`; -1 stands for bodies without one): the one its chosen
    /// hands are tied to (`extract --body`'s `person`) in the most frames of `[start, end)`, else the one
    /// seen in the most frames there; ties go to the earlier track. Nil when the segment has no body.
    /// One person for the whole segment, so a window never mixes two people's bodies.
    static func followedBody(_ frames: [KeypointFile.Frame], picked: [[KeypointFile.Hand?]], start: Double, end: Double) -> Int? {
        var tied: [Int: Int] = [:], seen: [Int: Int] = [:]
        for (k, f) in frames.enumerated() where f.t >= start - 1e-9 && f.t < end {
            let bodies = f.bodies ?? []
            for id in Set(bodies.map { $0.track ?? -1 }) { seen[id, default: 0] += 1 }
            for p in Set(picked[k].compactMap { $0?.person }) where p < bodies.count { tied[bodies[p].track ?? -1, default: 0] += 1 }
        }
        let counts = tied.isEmpty ? seen : tied
        return counts.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }?.key
    }

    static func sample(_ b: KeypointFile.Body, _ joints: BodyJoints) -> BodySample {
        BodySample(joints: joints.joints.map { SIMD3(b.landmarks[$0][0], b.landmarks[$0][1], b.landmarks[$0][2]) },
                   visibility: joints.joints.map { b.visibility[$0] })
    }

    /// A keypoint file's frames in time order and its clip's end, found once per file: each of its segments
    /// is then resampled from the frames its span reaches (found by binary search), not from the whole file,
    /// so thousands of glosses on an hour of video cost the glosses' length, not glosses x the clip's frames.
    public struct Timeline {
        public let file: KeypointFile
        /// `file.frames`' indices sorted by time (the order a stable sort by time gives).
        let order: [Int]
        /// The frames' times in that order.
        let times: [Double]
        /// `clipEnd(file)`.
        public let clipEnd: Double

        public init(_ file: KeypointFile) {
            self.file = file
            let frames = file.frames
            order = frames.indices.sorted { frames[$0].t < frames[$1].t }
            times = order.map { frames[$0].t }
            clipEnd = Windowing.clipEnd(file)
        }

        /// The number of sorted frames whose time is below `t` (by `<`), or at most `t` (`orEqual`).
        func count(below t: Double, orEqual: Bool = false) -> Int {
            var lo = 0, hi = times.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if times[mid] < t || (orEqual && times[mid] == t) { lo = mid + 1 } else { hi = mid }
            }
            return lo
        }

        /// The sorted frames `resample` can use for `[start, end)`: from the last at or before `start` (or the
        /// first at or after `start - 1e-9`, whichever is earlier; the first frame when none is) through the
        /// first at or after `end` (the second frame when none lies before `end`: a sample before the first
        /// frame names the second as its later neighbour).
        func frames(start: Double, end: Double) -> [KeypointFile.Frame] {
            let lo = max(0, min(count(below: start, orEqual: true) - 1, count(below: start - 1e-9)))
            let hi = min(times.count, max(count(below: end), 1) + 1)
            return lo < hi ? order[lo..<hi].map { file.frames[$0] } : []
        }
    }

    /// Resamples `file` to `fps` over `[start, end)` using the real timestamps: linear interpolation
    /// between the neighbouring frames where the slot's hand is present in both, otherwise the nearest frame.
    /// With `body`, the person the hands belong to (`followedBody`) is resampled the same way; frames
    /// without that person have no body. (Several segments of one file: make its `Timeline` once.)
    public static func resample(_ file: KeypointFile, start: Double, end asked: Double, fps: Double, hand: HandChoice,
                                body: BodyJoints? = nil) -> Track {
        resample(Timeline(file), start: start, end: asked, fps: fps, hand: hand, body: body)
    }

    public static func resample(_ timeline: Timeline, start: Double, end asked: Double, fps: Double, hand: HandChoice,
                                body: BodyJoints? = nil) -> Track {
        // Never past the clip's end: the nearest frame there would be its last one, copied into time the clip
        // does not have and marked as a real hand (a segment past the end is validate's error; this holds regardless).
        // Keypoint times are stored to 1e-6 s, so the end they give may fall a hair short of the clip's
        // (30 frames at 15 fps: 1.933333 + 1/15 < 2): 0.1 ms of slack keeps a segment to the end whole.
        let end = min(asked, timeline.clipEnd + 1e-4)
        // Every frame a sample's neighbours or the span's tracks and bodies can come from: the walk over these is
        // the walk over the whole file, since the frames before them lie before both `start` and the last frame at
        // or before it, and those after them after `end` and the first frame at or after it (`WindowingTests`).
        return resample(sorted: timeline.frames(start: start, end: end), start: start, end: end, fps: fps, hand: hand, body: body)
    }

    /// `resample` over `frames` in time order, `end` already within the clip.
    static func resample(sorted frames: [KeypointFile.Frame], start: Double, end: Double, fps: Double, hand: HandChoice,
                         body: BodyJoints?) -> Track {
        let count = sampleCount(start: start, end: end, fps: fps) ?? 0
        var track = Track(times: [], slots: [], sourceTimes: [])
        guard !frames.isEmpty else { return track }
        var picked = frames.map { pick($0.hands, hand) }
        if hand == .track, let followed = longestTrack(frames, start: start, end: end) {
            picked = frames.map { [$0.hands.first { $0.track == followed }] }
        }
        let person = body == nil ? nil : followedBody(frames, picked: picked, start: start, end: end)
        let bodies = body.map { joints in
            frames.map { f in person.flatMap { id in f.bodies?.first { ($0.track ?? -1) == id } }.map { sample($0, joints) } }
        }
        var j = 0
        for k in 0..<count {
            let t = start + Double(k) / fps
            while j + 1 < frames.count && frames[j + 1].t <= t { j += 1 }
            let a = j, b = min(j + 1, frames.count - 1)
            let ta = frames[a].t, tb = frames[b].t
            var slots: [HandSample?] = []
            for s in 0..<hand.slots {
                let ha = picked[a][s], hb = picked[b][s]
                if let ha, let hb, tb > ta, t > ta, t < tb {
                    let w = Float((t - ta) / (tb - ta))
                    let sa = sample(ha), sb = sample(hb)
                    slots.append(HandSample(joints: zip(sa.joints, sb.joints).map { $0 + w * ($1 - $0) },
                                            confidence: sa.confidence + w * (sb.confidence - sa.confidence),
                                            chirality: w < 0.5 ? sa.chirality : sb.chirality,
                                            interpolated: w < 0.5 ? sa.interpolated : sb.interpolated))
                } else {
                    let nearest = (t < ta || abs(t - ta) <= abs(tb - t)) ? a : b
                    slots.append(picked[nearest][s].map(sample))
                }
            }
            if let bodies {
                if let ba = bodies[a], let bb = bodies[b], tb > ta, t > ta, t < tb {
                    track.bodies.append(BodySample.blend(ba, bb, Float((t - ta) / (tb - ta))))
                } else {
                    track.bodies.append(bodies[(t < ta || abs(t - ta) <= abs(tb - t)) ? a : b])
                }
            }
            track.times.append(t)
            track.slots.append(slots)
            track.sourceTimes.append(Array(Set([ta, tb])).sorted())
        }
        return track
    }

    /// The track number present in the most frames of `[start, end)` (the earlier track on a tie), or nil
    /// when no hand there has one.
    static func longestTrack(_ frames: [KeypointFile.Frame], start: Double, end: Double) -> Int? {
        var counts: [Int: Int] = [:]
        for f in frames where f.t >= start - 1e-9 && f.t < end {
            for id in Set(f.hands.compactMap(\.track)) { counts[id, default: 0] += 1 }
        }
        return counts.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }?.key
    }

    /// Window start indices over a track of `count` frames: `window` long, `stride` apart. A track
    /// shorter than a window gives one padded window unless `dropShort`; a partial tail is kept (padded) when `padTail`.
    public static func windowStarts(count: Int, window: Int, stride: Int, dropShort: Bool, padTail: Bool) -> [Int] {
        if count == 0 { return [] }
        if count < window { return dropShort ? [] : [0] }
        var starts = Array(Swift.stride(from: 0, through: count - window, by: stride))
        if padTail, let last = starts.last, last + window < count { starts.append(last + stride) }
        return starts
    }
}
