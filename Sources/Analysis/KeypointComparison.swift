import Datasets
import Foundation
import Keypoints

/// Agreement between two keypoint files of one clip (ours against MediaPipe's reference, or two runs):
/// frames matched by index, hands within a frame by the smallest mean landmark distance, deviation
/// in palm sizes (wrist to middle MCP of the second file's hand) so it does not depend on resolution.
public struct KeypointComparison: Sendable {
    public var frames = 0
    public var framesAgreeingOnCount = 0
    public var matchedHands = 0
    public var chiralityAgreements = 0
    /// Mean landmark deviation of each matched hand pair, in palm sizes.
    public var deviations: [Double] = []
    /// Frames (by index) present in only one file: not compared, and shown, since figures over the
    /// frames both hold say nothing of the others.
    public var framesOnlyInA = 0
    public var framesOnlyInB = 0
    /// Hands found by exactly one side.
    public var handsOnlyInA = 0
    public var handsOnlyInB = 0
    /// Frames in which a file reports one hand twice (MediaPipe Tasks' duplicate rule), as
    /// MediaPipe's legacy solution sometimes does.
    public var framesWithHandTwiceInA = 0
    public var framesWithHandTwiceInB = 0
    /// Frames in which neither file reports a hand twice, and those of them agreeing on the count.
    public var framesWithoutTwice = 0
    public var framesWithoutTwiceAgreeingOnCount = 0
    /// Per joint (MediaPipe's order), the summed distance over matched hands, in palm sizes.
    public var jointDeviationSums = [Double](repeating: 0, count: Joint.count)
    /// Joints compared (21 per matched hand pair).
    public var jointsCompared = 0
    /// The PCK thresholds, in palm sizes, and the joints within each.
    public static let pckThresholds = [0.05, 0.1, 0.2]
    public var jointsWithin = [Int](repeating: 0, count: pckThresholds.count)
    /// Jitter: for each hand of A whose track (A's `track` numbers) goes on from the previous frame while
    /// its matched B hand stays the same one (`sameReferenceHand`), the mean over joints of how far its
    /// deviation from that B hand moved since that frame, in palm sizes. Motion both sides share cancels,
    /// so against ground truth this is the estimate's own frame-to-frame noise, what smoothing should lower.
    public var jitters: [Double] = []

    public init() {}

    /// Percentage of correct keypoints: the share of compared joints within each of `pckThresholds`.
    /// Over matched hands only (hands one side lacks count in `handsOnlyInA`/`B`); nil when none matched.
    public var pck: [Double]? { jointsCompared == 0 ? nil : jointsWithin.map { Double($0) / Double(jointsCompared) } }
    /// Mean deviation of each joint over matched hands, in palm sizes.
    public var jointDeviations: [Double] {
        let hands = Double(jointsCompared / Joint.count)
        return jointDeviationSums.map { hands == 0 ? 0 : $0 / hands }
    }

    public var countAgreement: Double { frames == 0 ? 0 : Double(framesAgreeingOnCount) / Double(frames) }
    /// Count agreement over the frames in which neither file reports a hand twice.
    public var countAgreementWithoutTwice: Double {
        framesWithoutTwice == 0 ? 0 : Double(framesWithoutTwiceAgreeingOnCount) / Double(framesWithoutTwice)
    }
    public var chiralityAgreement: Double { matchedHands == 0 ? 0 : Double(chiralityAgreements) / Double(matchedHands) }
    public var meanDeviation: Double { deviations.isEmpty ? 0 : deviations.reduce(0, +) / Double(deviations.count) }
    /// Mean of `jitters`; nil when A has no track going on over two frames (stills, files without tracks).
    public var meanJitter: Double? { jitters.isEmpty ? nil : jitters.reduce(0, +) / Double(jitters.count) }
    public var p95Deviation: Double {
        guard !deviations.isEmpty else { return 0 }
        let s = deviations.sorted()
        return s[min(s.count - 1, Int((Double(s.count) * 0.95).rounded(.up)) - 1)]
    }

    public mutating func merge(_ o: KeypointComparison) {
        frames += o.frames; framesAgreeingOnCount += o.framesAgreeingOnCount
        matchedHands += o.matchedHands; chiralityAgreements += o.chiralityAgreements
        deviations += o.deviations
        framesOnlyInA += o.framesOnlyInA; framesOnlyInB += o.framesOnlyInB
        handsOnlyInA += o.handsOnlyInA; handsOnlyInB += o.handsOnlyInB
        framesWithHandTwiceInA += o.framesWithHandTwiceInA; framesWithHandTwiceInB += o.framesWithHandTwiceInB
        framesWithoutTwice += o.framesWithoutTwice; framesWithoutTwiceAgreeingOnCount += o.framesWithoutTwiceAgreeingOnCount
        for j in jointDeviationSums.indices { jointDeviationSums[j] += o.jointDeviationSums[j] }
        jointsCompared += o.jointsCompared
        for t in jointsWithin.indices { jointsWithin[t] += o.jointsWithin[t] }
        jitters += o.jitters
    }

    /// Whether some hand of `hands` is another one found twice.
    static func reportsHandTwice(_ hands: [KeypointFile.Hand], width: Int, height: Int) -> Bool {
        let points = hands.map { $0.landmarks.map { SIMD3<Float>($0.count > 0 ? $0[0] : 0, $0.count > 1 ? $0[1] : 0, 0) } }
        for i in points.indices {
            for j in points.indices where j > i {
                if Joint.sameHand(points[i], points[j], imageWidth: width, imageHeight: height) { return true }
            }
        }
        return false
    }

    /// The most hands a frame may hold for `compare`.
    public static let maxHandsPerFrame = 256

    /// Compares `a` with `b` (the reference). Sizes must agree.
    public static func compare(_ a: KeypointFile, _ b: KeypointFile, path: String) throws -> KeypointComparison {
        guard a.video.width == b.video.width, a.video.height == b.video.height else {
            throw DatasetError.mismatch(path: path, reason: "frame sizes differ: \(a.video.width)x\(a.video.height) and \(b.video.width)x\(b.video.height)")
        }
        // Frames are paired by index: at two frame rates the same index is two instants (keypoints of another clip).
        if let ra = a.video.fps, let rb = b.video.fps, ra > 0, rb > 0, abs(ra - rb) > 1e-3 * max(ra, rb) {
            throw DatasetError.mismatch(path: path, reason: "frame rates differ: \(ra) and \(rb) fps")
        }
        // Hands are paired in time cubic in a frame's hands, and checked for repeats in square time: a frame of
        // thousands (a hostile file; no tracker reports more than a few dozen) would take hours.
        for (file, name) in [(a, "the first file"), (b, "the second file")] {
            if let f = file.frames.first(where: { $0.hands.count > maxHandsPerFrame }) {
                throw DatasetError.invalid(path: path, reason: "frame \(f.i) of \(name) holds \(f.hands.count) hands; compare pairs up to \(maxHandsPerFrame) a frame")
            }
        }
        let (W, H) = (a.video.width, a.video.height)
        var result = KeypointComparison()
        let framesB = Dictionary(b.frames.map { ($0.i, $0) }, uniquingKeysWith: { x, _ in x })
        let indicesA = Set(a.frames.map(\.i))
        result.framesOnlyInA = indicesA.subtracting(framesB.keys).count
        result.framesOnlyInB = Set(framesB.keys).subtracting(indicesA).count
        // Per track of A: the frame it was last seen in, the B hand it was matched with there, and each
        // joint's deviation, in pixels.
        var lastDeviation: [Int: (frame: Int, reference: KeypointFile.Hand, joints: [SIMD2<Double>])] = [:]
        for fa in a.frames {
            guard let fb = framesB[fa.i] else { continue }
            result.frames += 1
            if fa.hands.count == fb.hands.count { result.framesAgreeingOnCount += 1 }
            let twiceA = reportsHandTwice(fa.hands, width: W, height: H), twiceB = reportsHandTwice(fb.hands, width: W, height: H)
            if twiceA { result.framesWithHandTwiceInA += 1 }
            if twiceB { result.framesWithHandTwiceInB += 1 }
            if !twiceA && !twiceB {
                result.framesWithoutTwice += 1
                if fa.hands.count == fb.hands.count { result.framesWithoutTwiceAgreeingOnCount += 1 }
            }
            for (ha, hb) in match(fa.hands, fb.hands, width: W, height: H) {
                result.matchedHands += 1
                if ha.chirality == hb.chirality { result.chiralityAgreements += 1 }
                let palm = max(simdLength(hb.pixel(9, width: W, height: H) - hb.pixel(0, width: W, height: H)), 1e-6)
                result.deviations.append(meanDistance(ha, hb, width: W, height: H) / palm)
                if ha.landmarks.count == Joint.count && hb.landmarks.count == Joint.count {
                    let offsets = (0..<Joint.count).map { ha.pixel($0, width: W, height: H) - hb.pixel($0, width: W, height: H) }
                    for (j, offset) in offsets.enumerated() {
                        let d = simdLength(offset) / palm
                        result.jointDeviationSums[j] += d
                        for (t, threshold) in pckThresholds.enumerated() where d <= threshold { result.jointsWithin[t] += 1 }
                    }
                    result.jointsCompared += Joint.count
                    if let track = ha.track {
                        if let last = lastDeviation[track], last.frame == fa.i - 1,
                           sameReferenceHand(last.reference, hb, among: fb.hands, tracked: b.settings?.mode == "video", width: W, height: H) {
                            result.jitters.append(zip(offsets, last.joints).map { simdLength($0 - $1) }.reduce(0, +) / Double(Joint.count) / palm)
                        }
                        lastDeviation[track] = (fa.i, hb, offsets)
                    }
                }
            }
            let pairs = min(fa.hands.count, fb.hands.count)
            result.handsOnlyInA += fa.hands.count - pairs
            result.handsOnlyInB += fb.hands.count - pairs
        }
        return result
    }

    /// Whether `current`, one of `hands`, is the B hand `previous` became one frame later: the same track
    /// where B's tracks carry hands from frame to frame (`tracked`: a handpose file made in video mode;
    /// in image mode every hand is a new track), else the nearest of `hands` to `previous`. A's track
    /// matched to another B hand (two hands crossing, one of them missed) measures no jitter: the jump
    /// between the two hands would swamp it.
    static func sameReferenceHand(_ previous: KeypointFile.Hand, _ current: KeypointFile.Hand, among hands: [KeypointFile.Hand],
                                  tracked: Bool, width: Int, height: Int) -> Bool {
        if tracked, let a = previous.track, let b = current.track { return a == b }
        let distances = hands.map { meanDistance(previous, $0, width: width, height: height) }
        return meanDistance(previous, current, width: width, height: height) <= distances.min() ?? .infinity
    }

    static func meanDistance(_ a: KeypointFile.Hand, _ b: KeypointFile.Hand, width: Int, height: Int) -> Double {
        let n = min(a.landmarks.count, b.landmarks.count)
        guard n > 0 else { return .infinity }
        return (0..<n).map { simdLength(a.pixel($0, width: width, height: height) - b.pixel($0, width: width, height: height)) }
            .reduce(0, +) / Double(n)
    }

    /// Pairs hands so the summed mean landmark distance is smallest: `min(a.count, b.count)` pairs, each hand in
    /// at most one. By the Hungarian method (`assignment`), in time cubic in the hands, not factorial: trying
    /// every pairing of 14 took hours. `compare` refuses frames of more than `maxHandsPerFrame` hands first.
    static func match(_ a: [KeypointFile.Hand], _ b: [KeypointFile.Hand], width: Int, height: Int) -> [(KeypointFile.Hand, KeypointFile.Hand)] {
        guard !a.isEmpty, !b.isEmpty else { return [] }
        let cost = a.map { ha in b.map { hb in meanDistance(ha, hb, width: width, height: height) } }
        return assignment(cost).map { (a[$0.0], b[$0.1]) }
    }

    /// The pairs (row, column) of `cost` (rows of equal length) with the smallest sum, one per row or column,
    /// whichever are fewer, sorted by row: the Hungarian method with potentials (Kuhn and Munkres), written
    /// by hand for want of a Swift package that has it. Costs past 1e15 (an infinite distance: no landmarks)
    /// and NaN count as 1e15.
    static func assignment(_ cost: [[Double]]) -> [(Int, Int)] {
        guard let columns = cost.first?.count, columns > 0 else { return [] }
        let transposed = cost.count > columns
        let n = transposed ? columns : cost.count, m = transposed ? cost.count : columns
        func c(_ i: Int, _ j: Int) -> Double {
            let v = transposed ? cost[j][i] : cost[i][j]
            return v.isNaN ? 1e15 : min(v, 1e15)
        }
        // 1-based: u, v the potentials of rows and columns, p[j] the row holding column j, way[j] the column
        // before j on the path being grown.
        var u = [Double](repeating: 0, count: n + 1), v = [Double](repeating: 0, count: m + 1)
        var p = [Int](repeating: 0, count: m + 1), way = [Int](repeating: 0, count: m + 1)
        for i in 1...n {
            p[0] = i
            var j0 = 0
            var minv = [Double](repeating: .infinity, count: m + 1), used = [Bool](repeating: false, count: m + 1)
            repeat {
                used[j0] = true
                let i0 = p[j0]
                var delta = Double.infinity, j1 = 0
                for j in 1...m where !used[j] {
                    let cur = c(i0 - 1, j - 1) - u[i0] - v[j]
                    if cur < minv[j] { minv[j] = cur; way[j] = j0 }
                    if minv[j] < delta { delta = minv[j]; j1 = j }
                }
                for j in 0...m {
                    if used[j] { u[p[j]] += delta; v[j] -= delta } else { minv[j] -= delta }
                }
                j0 = j1
            } while p[j0] != 0
            repeat {
                let j1 = way[j0]
                p[j0] = p[j1]
                j0 = j1
            } while j0 != 0
        }
        let pairs = (1...m).filter { p[$0] != 0 }.map { transposed ? ($0 - 1, p[$0] - 1) : (p[$0] - 1, $0 - 1) }
        return pairs.sorted { $0.0 < $1.0 }
    }
}

func simdLength(_ v: SIMD2<Double>) -> Double { (v * v).sum().squareRoot() }
