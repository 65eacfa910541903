import Foundation

/// Which person each hand belongs to, in one frame (`extract --body`).
///
/// The rule: a hand belongs to the body whose own hand is where it is. The pose model places four points
/// of each of the body's hands (wrist, pinky, index and thumb knuckles: landmarks 15, 17, 19, 21 on the
/// person's left, 16, 18, 20, 22 on the right); their mean is compared with the mean of the hand's 21
/// landmarks, in pixels, and the distance is divided by the hand's size (the diagonal of its landmarks'
/// bounding box, in pixels). Pairs within `maxDistance` hand sizes are taken closest first, each hand and
/// each body's hand at most once, so two hands never share an arm and one hand never takes both. A hand
/// left without one is kept and marked `unattached`.
///
/// Why means and the bounding box, not the two wrists and the palm: a hand pointing at the camera
/// foreshortens its palm to a few pixels and moves the hand model's wrist into the palm, while its
/// fingers still span it; on the shared corpus the wrist-to-wrist distance in palm sizes had a median of
/// 1.7 on such a clip (`mps_thumbs_up`) where this measure has 0.26. Over the corpus's 778 hands in
/// frames with a body, the measure's median is 0.26 and its 90th percentile 0.74 hand sizes; a hand a
/// whole hand size from every body's hand is another person's whose body was not found (out of frame,
/// past `--max-bodies`), or one of the two models is wrong.
public enum BodyAssociation {
    /// Hand sizes from a body's hand within which a hand is tied to it.
    public static let maxDistance: Float = 1.0
    /// The pose landmarks of each of the body's hands, the person's left first.
    public static let bodyHands: [[Int]] = [[15, 17, 19, 21], [16, 18, 20, 22]]
    /// `arm`'s values, in the order of `bodyHands`.
    public static let arms = ["left", "right"]

    /// Sets `person`, `arm` and `unattached` on every hand of `frame` from its `bodies`; nothing when the
    /// frame's bodies were not looked for.
    public static func tie(_ frame: inout KeypointFile.Frame, width: Int, height: Int) {
        guard let bodies = frame.bodies else { return }
        let size = SIMD2<Float>(Float(width), Float(height))
        func pixel(_ p: [Float]) -> SIMD2<Float> { SIMD2(p[0], p[1]) * size }
        func mean(_ points: [SIMD2<Float>]) -> SIMD2<Float> { points.reduce(.zero, +) / Float(points.count) }
        var pairs: [(distance: Float, hand: Int, body: Int, arm: Int)] = []
        for (h, hand) in frame.hands.enumerated() {
            let points = hand.landmarks.map(pixel)
            var lo = points[0], hi = points[0]
            for p in points { lo = pointwiseMin(lo, p); hi = pointwiseMax(hi, p) }
            let span = max(length(hi - lo), 1)
            let centre = mean(points)
            for (b, body) in bodies.enumerated() {
                for (arm, joints) in bodyHands.enumerated() {
                    let d = length(centre - mean(joints.map { pixel(body.landmarks[$0]) })) / span
                    if d <= maxDistance { pairs.append((d, h, b, arm)) }
                }
            }
        }
        // Closest first; equal distances in a fixed order, so the result depends on the values alone.
        pairs.sort { ($0.distance, $0.hand, $0.body, $0.arm) < ($1.distance, $1.hand, $1.body, $1.arm) }
        var handTaken = Set<Int>(), armTaken = Set<[Int]>()
        for h in frame.hands.indices {
            frame.hands[h].person = nil
            frame.hands[h].arm = nil
            frame.hands[h].unattached = true
        }
        for p in pairs where !handTaken.contains(p.hand) && !armTaken.contains([p.body, p.arm]) {
            handTaken.insert(p.hand)
            armTaken.insert([p.body, p.arm])
            frame.hands[p.hand].person = p.body
            frame.hands[p.hand].arm = arms[p.arm]
            frame.hands[p.hand].unattached = nil
        }
    }

    static func length(_ d: SIMD2<Float>) -> Float { (d * d).sum().squareRoot() }
}
