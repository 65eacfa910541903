import Foundation
import Inference
import Keypoints
import Landmarking
import VideoIO

/// Settings of the hand pipeline, as `handpose extract` exposes them.
public struct HandTrackerOptions: Hashable, Sendable, Codable {
    public enum Complexity: String, Codable, Sendable, CaseIterable { case full, lite }
    public typealias Mode = RunningMode

    public var model: Complexity = .full
    public var maxHands = 2
    public var minDetectionConfidence: Float = 0.5
    public var minPresenceConfidence: Float = 0.5
    public var mode: Mode = .video
    /// Footage is mirrored (selfie view): handedness is flipped back.
    public var mirrored = false
    /// Whose rules join new palms to tracked hands and merge hands found twice.
    public var rules: Rules = .tasks

    /// MediaPipe Tasks' HandLandmarker (the default), or the legacy `mp.solutions.hands` solution
    /// (for parity with outputs it made, such as the corpus references).
    public enum Rules: String, Codable, Sendable, CaseIterable {
        /// Tracked hands are kept; a new palm joins only if its region overlaps none of them (IoU at
        /// most 0.5); a hand found twice is merged (`removeDuplicates`); a palm's region is turned
        /// towards Tasks' target of 90 radians (`RegionOfInterest.PalmRotationTarget`).
        case tasks
        /// Each later region (tracked ones come after new palms) removes earlier ones it overlaps
        /// with IoU > 0.5; a hand found twice is reported twice.
        case legacy

        /// The angle palm regions are turned towards.
        var palmRotationTarget: RegionOfInterest.PalmRotationTarget { self == .tasks ? .tasks : .legacy }
    }

    public init() {}
}

/// MediaPipe Hands, frame by frame. In video mode the next frame's regions come from this frame's
/// landmarks and palm detection runs only while fewer than `maxHands` hands are tracked; in image
/// mode every frame is detected afresh.
public final class HandTracker {
    /// The tracker's settings. Changing them forgets tracked hands (as `reset` does) and keeps the
    /// planned models, so clips and stills of one run share one copy of the weights; `options.model`
    /// must stay the complexity of `models`.
    public var options: HandTrackerOptions {
        didSet {
            precondition(options.model == models.complexity, "a tracker's models are \(models.complexity.rawValue), not \(options.model.rawValue)")
            palms.minScore = options.minDetectionConfidence
            reset()
        }
    }
    public let models: HandModels
    let palms: PalmDetector
    let landmarker: HandLandmarker
    /// The instruction set of the kernels running the models (`baseline`, `avx2`, `avx512`).
    public var kernels: String { landmarker.plan.isa.rawValue }
    private var tracked: [RegionOfInterest] = []
    /// The track number of each tracked region.
    private var trackedIDs: [Int] = []
    private var nextTrack = 0
    private var processTime: Duration = .zero
    /// With two engine threads or more: the second thread of a frame's two parts, and the landmark model's
    /// second plan (both made on first need; see `process`).
    private var stage: StageThread<[Found]>?
    /// A landmark run's hand (nil: presence not above the threshold) or its error, taken in the order one
    /// thread would meet them.
    typealias Found = Result<HandObservation?, any Error>
    private var twin: HandLandmarker?
    /// Frames whose palm detection ran beside tracked hands' landmarks, and pairs of hands run side by side
    /// (for the tests).
    private(set) var sideBySide = (palms: 0, pairs: 0)

    /// Where `process` spent its time, summed over the frames since the last `reset`.
    public struct Timings: Sendable {
        /// Palm detection: the frame letterboxed into the model's input, the model, its outputs decoded
        /// (anchors, non-max suppression).
        public var letterbox: Duration = .zero, palmModel: Duration = .zero, palmDecode: Duration = .zero
        /// The landmark model, per hand: its crop, the model, its outputs projected back to the frame.
        public var crop: Duration = .zero, landmarkModel: Duration = .zero, landmarkDecode: Duration = .zero
        /// The rest: regions, association, duplicates.
        public var tracking: Duration = .zero
        /// How many times each model ran.
        public var palmRuns = 0, landmarkRuns = 0
        public init() {}
    }

    /// Time spent so far, for `bench extract --profile`.
    public var timings: Timings {
        let p = palms.timings, l = landmarker.timings, l2 = twin?.timings ?? Timings()
        var t = Timings()
        (t.letterbox, t.palmModel, t.palmDecode) = (p.letterbox, p.palmModel, p.palmDecode)
        (t.crop, t.landmarkModel, t.landmarkDecode) = (l.crop + l2.crop, l.landmarkModel + l2.landmarkModel, l.landmarkDecode + l2.landmarkDecode)
        (t.palmRuns, t.landmarkRuns) = (p.palmRuns, l.landmarkRuns + l2.landmarkRuns)
        // Parts run side by side overlap, so the rest is what is left of the time, if anything.
        t.tracking = max(.zero, processTime - (p.letterbox + p.palmModel + p.palmDecode + t.crop + t.landmarkModel + t.landmarkDecode))
        return t
    }

    /// The most engine threads the models run on (the process's `ThreadShare` may allow fewer).
    public let threads: Int

    public init(models: HandModels, options: HandTrackerOptions, threads: Int = 1) throws {
        precondition(options.model == models.complexity, "a tracker's models are \(models.complexity.rawValue), not \(options.model.rawValue)")
        self.threads = max(1, threads)
        self.options = options
        self.models = models
        palms = try PalmDetector(model: models.palm, threads: threads, minScore: options.minDetectionConfidence, sharing: models.sharing)
        landmarker = try HandLandmarker(model: models.landmark, threads: threads, sharing: models.sharing)
    }

    deinit { stage?.stop() }

    /// Forgets tracked hands and times (call between clips).
    public func reset() {
        palms.timings = Timings()
        landmarker.timings = Timings()
        twin?.timings = Timings()
        processTime = .zero
        tracked = []
        trackedIDs = []
        nextTrack = 0
    }

    /// Hands in `frame`.
    ///
    /// While the process's share (`ThreadShare`, up to `threads`) is two threads or more, two independent
    /// parts of the frame run at once, each on half the share, where one after the other they would each
    /// split every layer between the threads and wait at its end: palm detection beside the landmarks of
    /// the tracked hands (no palm can displace a tracked region: Tasks keeps tracked regions first, and the
    /// legacy rules let only a later region remove one, palms coming first), and two hands' landmarks side
    /// by side (the second on the model's twin plan). The values are those of one after the other, and so
    /// is the first error.
    public func process(_ frame: VideoFrame) throws -> [HandObservation] {
        let start = ContinuousClock.now
        defer { processTime += ContinuousClock.now - start }
        let W = frame.width, H = frame.height
        let previous = options.mode == .video ? tracked : []
        let share = min(threads, ThreadShare.forThisThread)
        var palmRegions: [RegionOfInterest] = []
        // Landmarks found beside palm detection, by the tracked region's place in `previous`.
        var early: [Int: Found] = [:]
        if previous.count < options.maxHands {
            let sure = share < 2 || previous.isEmpty ? [] : options.rules == .tasks ? Array(previous.indices) : Self.legacyKept(previous)
            let palmsFound: [Detection]
            if sure.isEmpty {
                palmsFound = try palms.detect(frame)
            } else {
                let (stage, second) = StageThread.split(&self.stage, share: share)
                let regions = sure.map { previous[$0] }, landmarker = landmarker
                // The first crop is made here, so the two sides' work is about even (palm: letterbox and
                // model; landmarks: the model, slightly the longer).
                landmarker.crop(frame, region: regions[0])
                stage.start {
                    ThreadShare.capped(second) {
                        regions.indices.map { i in Found { try self.landmarks(frame, region: regions[i], on: landmarker, cropped: i == 0) } }
                    }
                }
                let detected = Result { try ThreadShare.capped(share - second) { try self.palms.detect(frame) } }
                let marks = stage.wait()
                sideBySide.palms += 1
                palmsFound = try detected.get()
                for (i, hand) in zip(sure, try marks.get()) { early[i] = hand }  // the work itself never throws
            }
            palmRegions = palmsFound.prefix(options.maxHands)
                .map { RegionOfInterest.fromPalm($0, imageWidth: W, imageHeight: H, target: options.rules.palmRotationTarget) }
        }
        // Each region keeps the tracked region it came from (its place in `previous`); a palm's region has none.
        let candidates: [(region: RegionOfInterest, from: Int?)]
        if options.rules == .tasks {
            let kept = Self.associate(tracked: previous, palms: palmRegions, limit: options.maxHands)
            candidates = kept.enumerated().map { ($0.element, $0.offset < previous.count ? $0.offset : nil) }
        } else {
            let all = palmRegions.map { ($0, Int?.none) } + previous.indices.map { (previous[$0], Optional($0)) }
            candidates = Self.legacyKept(all.map(\.0)).map { all[$0] }
        }
        let rest = candidates.filter { $0.from.map { early[$0] == nil } ?? true }
        var later = try landmarks(frame, regions: rest.map(\.region), share: share).makeIterator()
        var hands: [HandObservation] = []
        for (region, from) in candidates {
            guard var hand = try (from.flatMap { early[$0] } ?? later.next()!).get() else { continue }
            assert(hand.region == region, "landmarks of another region")
            hand.track = from.map { trackedIDs[$0] } ?? -1
            hands.append(hand)
        }
        if options.rules == .tasks { hands = Self.removeDuplicates(hands, imageWidth: W, imageHeight: H) }
        // A hand found by palm detection (not carried over by tracking) starts a new track, numbered in
        // order of appearance from 0 in each clip.
        for i in hands.indices where hands[i].track < 0 {
            hands[i].track = nextTrack
            nextTrack += 1
        }
        // The next frame's regions come from the landmarks as estimated, as in MediaPipe (smoothing, which
        // comes after, shapes what is reported, never where the model looks next).
        tracked = hands.map { RegionOfInterest.fromLandmarks($0.landmarks, imageWidth: W, imageHeight: H) }
        trackedIDs = hands.map(\.track)
        return hands
    }

    /// The landmarks of `regions`, in order: with `share` two threads or more, two at a time, the first on
    /// the second thread and the other here on the twin plan.
    private func landmarks(_ frame: VideoFrame, regions: [RegionOfInterest], share: Int) throws -> [Found] {
        guard share >= 2, regions.count >= 2 else { return regions.map { r in Found { try landmarks(frame, region: r) } } }
        let twin = self.twin ?? HandLandmarker(twinOf: landmarker)
        self.twin = twin
        let (stage, second) = StageThread.split(&self.stage, share: share)
        var found: [Found] = []
        for pair in stride(from: 0, to: regions.count, by: 2) {
            guard pair + 1 < regions.count else {
                found.append(Found { try landmarks(frame, region: regions[pair]) })
                break
            }
            let a = regions[pair], b = regions[pair + 1], landmarker = landmarker
            stage.start { ThreadShare.capped(second) { [Found { try self.landmarks(frame, region: a, on: landmarker) }] } }
            let mine = ThreadShare.capped(share - second) { Found { try self.landmarks(frame, region: b, on: twin) } }
            found += try stage.wait().get()  // the work itself never throws
            found.append(mine)
            sideBySide.pairs += 1
        }
        return found
    }

    /// The landmark model on `region`: the hand there, or nil when its presence is not above the threshold.
    /// `cropped`: the model's input is already made (`HandLandmarker.crop`).
    private func landmarks(_ frame: VideoFrame, region: RegionOfInterest, on model: HandLandmarker? = nil, cropped: Bool = false) throws -> HandObservation? {
        let model = model ?? landmarker
        let r = try cropped ? model.estimateCropped(region: region) : model.estimate(frame, region: region)
        // MediaPipe's ThresholdingCalculator accepts a score strictly above the threshold.
        guard r.presence > options.minPresenceConfidence else { return nil }
        // The model's handedness output is the probability of a right hand in the image as given
        // (checked against MediaPipe's reference outputs); the legacy API's labels swap it, assuming
        // mirrored input. For mirrored footage the hand the person raised is the other one.
        let right = options.mirrored ? 1 - r.rawHandedness : r.rawHandedness
        return HandObservation(chirality: right >= 0.5 ? .right : .left, handedness: right, presence: r.presence,
                               landmarks: r.landmarks, world: r.world, region: region)
    }

    /// `--complete`'s backward step: the hand `later` (seen in the frame after `frame`) looked for in
    /// `frame`, by the same rules as tracking forward with time reversed: the region from `later`'s
    /// landmarks, the landmark model, its presence threshold. Nil when the hand is not there. The result
    /// keeps `later`'s track and is marked `.backward`. Tracked hands are not touched.
    public func trackBackward(_ frame: VideoFrame, from later: HandObservation) throws -> HandObservation? {
        let start = ContinuousClock.now
        defer { processTime += ContinuousClock.now - start }
        let region = RegionOfInterest.fromLandmarks(later.landmarks, imageWidth: frame.width, imageHeight: frame.height)
        guard var hand = try landmarks(frame, region: region) else { return nil }
        hand.track = later.track
        hand.origin = .backward
        return hand
    }

    /// MediaPipe Tasks' HandAssociationCalculator (min_similarity_threshold 0.5): every tracked region
    /// is kept, first; each new palm region follows unless its axis-aligned IoU with a region already
    /// kept exceeds 0.5. Then, as Tasks' ClipNormalizedRectVectorSizeCalculator, only the first `limit`
    /// regions go on: one tracked hand and two new palms make two regions, not three.
    public static func associate(tracked: [RegionOfInterest], palms: [RegionOfInterest], limit: Int = .max) -> [RegionOfInterest] {
        var kept = tracked
        for p in palms where !kept.contains(where: { $0.bounds.iou(p.bounds) > 0.5 }) { kept.append(p) }
        return Array(kept.prefix(limit))
    }

    /// The legacy solution's AssociationNormRectCalculator (min_similarity_threshold 0.5): regions are
    /// added in order (palm regions, then tracked ones) and each removes any earlier region whose
    /// axis-aligned IoU with it exceeds 0.5, so tracked hands win over new palms and two tracked
    /// regions of one hand merge.
    public static func associateLegacy(_ candidates: [RegionOfInterest]) -> [RegionOfInterest] {
        legacyKept(candidates).map { candidates[$0] }
    }

    /// The positions in `candidates` of the regions `associateLegacy` keeps, in its order.
    static func legacyKept(_ candidates: [RegionOfInterest]) -> [Int] {
        var kept: [Int] = []
        for (i, r) in candidates.enumerated() {
            kept.removeAll { candidates[$0].bounds.iou(r.bounds) > 0.5 }
            kept.append(i)
        }
        return kept
    }

    /// MediaPipe Tasks' duplicate rule (hand_landmarks_deduplication_calculator): in order, a hand is
    /// dropped when it is `sameHand` as a hand already kept.
    public static func removeDuplicates(_ hands: [HandObservation], imageWidth: Int, imageHeight: Int) -> [HandObservation] {
        var kept: [HandObservation] = []
        for h in hands where !kept.contains(where: { sameHand($0.landmarks, h.landmarks, imageWidth: imageWidth, imageHeight: imageHeight) }) {
            kept.append(h)
        }
        return kept
    }

    /// MediaPipe Tasks' rule for one hand found twice (`Joint.sameHand`, shared with keypoint comparisons).
    public static func sameHand(_ a: [Point3], _ b: [Point3], imageWidth: Int, imageHeight: Int) -> Bool {
        Joint.sameHand(a, b, imageWidth: imageWidth, imageHeight: imageHeight)
    }

}
