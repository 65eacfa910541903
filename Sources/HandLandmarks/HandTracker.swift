import Foundation
import Inference
import VideoIO

/// Settings of the hand pipeline, as `handpose extract` exposes them.
public struct HandTrackerOptions: Hashable, Sendable, Codable {
    public enum Complexity: String, Codable, Sendable { case full, lite }
    public enum Mode: String, Codable, Sendable { case video, image }

    public var model: Complexity = .full
    public var maxHands = 2
    public var minDetectionConfidence: Float = 0.5
    public var minPresenceConfidence: Float = 0.5
    public var mode: Mode = .video
    /// Footage is mirrored (selfie view): handedness is flipped back.
    public var mirrored = false
    /// One-Euro smoothing of landmarks over time (video mode).
    public var smoothing = false
    /// Keep hands found twice (a palm detection beside the tracked region of the same hand), as
    /// MediaPipe's legacy `mp.solutions.hands` does; by default they are merged as MediaPipe Tasks does.
    public var keepDuplicates = false

    public init() {}
}

/// MediaPipe Hands, frame by frame. In video mode the next frame's regions come from this frame's
/// landmarks and palm detection runs only while fewer than `maxHands` hands are tracked; in image
/// mode every frame is detected afresh.
public final class HandTracker {
    public let options: HandTrackerOptions
    public let models: HandModels
    let palms: PalmDetector
    let landmarker: HandLandmarker
    private var tracked: [RegionOfInterest] = []
    private var filters: [LandmarkSmoother] = []

    public init(models: HandModels, options: HandTrackerOptions, threads: Int = 1) throws {
        self.options = options
        self.models = models
        palms = try PalmDetector(model: models.palm, threads: threads, minScore: options.minDetectionConfidence)
        landmarker = try HandLandmarker(model: models.landmark, threads: threads)
    }

    /// Forgets tracked hands (call between clips).
    public func reset() {
        tracked = []
        filters = []
    }

    /// Hands in `frame`; `time` (seconds) drives smoothing.
    public func process(_ frame: VideoFrame, time: Double) throws -> [HandObservation] {
        let W = frame.width, H = frame.height
        let previous = options.mode == .video ? tracked : []
        var palmRegions: [RegionOfInterest] = []
        if previous.count < options.maxHands {
            palmRegions = try palms.detect(frame).prefix(options.maxHands)
                .map { RegionOfInterest.fromPalm($0, imageWidth: W, imageHeight: H) }
        }
        let regions = Self.associate(palmRegions + previous)
        var hands: [HandObservation] = []
        for region in regions {
            let r = try landmarker.estimate(frame, region: region)
            guard r.presence >= options.minPresenceConfidence else { continue }
            // The model's handedness output is the probability of a right hand in the image as given
            // (checked against MediaPipe's reference outputs); the legacy API's labels swap it, assuming
            // mirrored input. For mirrored footage the hand the person raised is the other one.
            let right = options.mirrored ? 1 - r.rawHandedness : r.rawHandedness
            hands.append(HandObservation(chirality: right >= 0.5 ? .right : .left, handedness: right, presence: r.presence,
                                         landmarks: r.landmarks, world: r.world, region: region))
        }
        if !options.keepDuplicates { hands = Self.removeDuplicates(hands, imageWidth: W, imageHeight: H) }
        if options.smoothing && options.mode == .video { smooth(&hands, time: time) }
        tracked = hands.map { RegionOfInterest.fromLandmarks($0.landmarks, imageWidth: W, imageHeight: H) }
        return hands
    }

    /// MediaPipe's AssociationNormRectCalculator (min_similarity_threshold 0.5): regions are added in
    /// order (palm regions, then tracked ones) and each removes any earlier region whose axis-aligned IoU
    /// with it exceeds 0.5, so tracked hands win over new palms and two tracked regions of one hand merge.
    static func associate(_ candidates: [RegionOfInterest]) -> [RegionOfInterest] {
        var kept: [RegionOfInterest] = []
        for r in candidates {
            kept.removeAll { $0.bounds.iou(r.bounds) > 0.5 }
            kept.append(r)
        }
        return kept
    }

    /// MediaPipe Tasks' duplicate rule: two hands are one when at least 10 of 21 landmarks lie within
    /// 0.2 x the baseline (the smaller hand's bounding-box diagonal... here its palm size, wrist to
    /// middle MCP, in pixels) of each other and their landmark boxes overlap with IoU > 0.2; the more
    /// present one is kept.
    static func removeDuplicates(_ hands: [HandObservation], imageWidth: Int, imageHeight: Int) -> [HandObservation] {
        let scale = SIMD2(Float(imageWidth), Float(imageHeight))
        func box(_ h: HandObservation) -> Box {
            var lo = SIMD2<Float>(repeating: .greatestFiniteMagnitude), hi = -lo
            for p in h.landmarks { lo = pointwiseMin(lo, SIMD2(p.x, p.y)); hi = pointwiseMax(hi, SIMD2(p.x, p.y)) }
            return Box(xMin: lo.x, yMin: lo.y, xMax: hi.x, yMax: hi.y)
        }
        var kept: [HandObservation] = []
        for h in hands.sorted(by: { $0.presence > $1.presence }) {
            let duplicate = kept.contains { k in
                let b = box(k)
                let baseline = ((SIMD2(b.xMax, b.yMax) - SIMD2(b.xMin, b.yMin)) * scale).squaredLength.squareRoot()
                let close = zip(h.landmarks, k.landmarks).filter { a, c in
                    ((SIMD2(a.x, a.y) - SIMD2(c.x, c.y)) * scale).squaredLength.squareRoot() < 0.2 * baseline
                }.count
                return close >= 10 && box(h).iou(b) > 0.2
            }
            if !duplicate { kept.append(h) }
        }
        return kept
    }

    private func smooth(_ hands: inout [HandObservation], time: Double) {
        // One filter per tracked slot; slots follow the order of regions, which tracking keeps stable.
        while filters.count < hands.count { filters.append(LandmarkSmoother()) }
        filters.removeLast(filters.count - hands.count)
        for i in hands.indices { hands[i].landmarks = filters[i].filter(hands[i].landmarks, time: time) }
    }
}

extension SIMD2 where Scalar == Float {
    var squaredLength: Float { x * x + y * y }
}
