import Foundation
import Support

/// Training-time changes to a window, each drawn from a seeded generator and recorded in the manifest.
public enum Augmentation: Equatable, Sendable, CustomStringConvertible {
    /// Mirror left-right: x -> 1 - x, left and right hands swapped.
    case flip
    /// Rotate about the frame centre by up to +-degrees.
    case rotate(degrees: Double)
    /// Scale about the frame centre by up to +-fraction.
    case scale(fraction: Double)
    /// Shift by up to +-fraction of the frame.
    case translate(fraction: Double)
    /// Drop each frame with this probability (mask 0).
    case drop(probability: Double)
    /// Play faster or slower by up to +-fraction, interpolating frames.
    case stretch(fraction: Double)

    /// Parses `flip,rotate=15,scale=0.1,translate=0.05,drop=0.1,stretch=0.2`: each named once, none empty.
    public static func parse(_ text: String) throws -> [Augmentation] {
        let items = text.split(separator: ",", omittingEmptySubsequences: false)
        if items.contains(where: { $0.trimmingCharacters(in: .whitespaces).isEmpty }) {
            throw DatasetError.invalid(path: "--augment", reason: "'\(text.prefix(80))' has an empty item: name each augmentation once, separated by commas")
        }
        let names = items.map { $0.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[0].trimmingCharacters(in: .whitespaces) }
        if let twice = names.first(where: { name in names.filter { $0 == name }.count > 1 }) {
            throw DatasetError.invalid(path: "--augment", reason: "\(twice) is named twice: give each augmentation once")
        }
        return try items.map { item in
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            let value = parts.count > 1 ? Double(parts[1]) : nil
            if parts[0] == "flip" && parts.count > 1 { throw DatasetError.invalid(path: "--augment", reason: "'\(item)': flip takes no number") }
            if parts.count > 1 && value == nil { throw DatasetError.invalid(path: "--augment", reason: "'\(item)' needs a number after '='") }
            // Each amount within what the augmentation can mean, checked here before any arithmetic uses it.
            func amount(_ fallback: Double, _ range: ClosedRange<Double>, _ unit: String) throws -> Double {
                let v = value ?? fallback
                guard v.isFinite, range.contains(v) else {
                    throw DatasetError.invalid(path: "--augment", reason: "'\(item)': \(parts[0]) takes \(unit) from \(range.lowerBound) to \(range.upperBound)")
                }
                return v
            }
            switch parts[0] {
            case "flip": return .flip
            case "rotate": return .rotate(degrees: try amount(15, 0...180, "degrees"))
            case "scale": return .scale(fraction: try amount(0.1, 0...0.9, "a fraction"))
            case "translate": return .translate(fraction: try amount(0.05, 0...1, "a fraction of the frame"))
            case "drop": return .drop(probability: try amount(0.1, 0...0.9, "a probability"))
            case "stretch": return .stretch(fraction: try amount(0.2, 0...0.9, "a fraction"))
            default: throw DatasetError.invalid(path: "--augment", reason: "unknown augmentation '\(parts[0])' (flip, rotate, scale, translate, drop, stretch)")
            }
        }
    }

    public var description: String {
        switch self {
        case .flip: return "flip"
        case .rotate(let d): return "rotate=\(d)"
        case .scale(let f): return "scale=\(f)"
        case .translate(let f): return "translate=\(f)"
        case .drop(let p): return "drop=\(p)"
        case .stretch(let f): return "stretch=\(f)"
        }
    }

    /// Applies every augmentation with parameters drawn from `rng`; returns what was drawn.
    static func apply(_ list: [Augmentation], to frames: inout [[HandSample?]], rng: inout SplitMix64) -> [String: Double] {
        var none: [BodySample?] = []
        return apply(list, to: &frames, bodies: &none, joints: nil, rng: &rng)
    }

    /// The same, with the window's bodies (`bodies`, one per frame, of `joints`; or empty) changed
    /// exactly as its hands: moved, mirrored (left and right joints trading places), dropped, stretched.
    static func apply(_ list: [Augmentation], to frames: inout [[HandSample?]], bodies: inout [BodySample?], joints: BodyJoints?,
                      rng: inout SplitMix64) -> [String: Double] {
        var drawn: [String: Double] = [:]
        func mapPoints(_ f: (SIMD2<Float>) -> SIMD2<Float>) {
            func moved(_ joints: [SIMD3<Float>]) -> [SIMD3<Float>] { joints.map { let p = f(SIMD2($0.x, $0.y)); return SIMD3(p.x, p.y, $0.z) } }
            for t in frames.indices {
                for s in frames[t].indices {
                    guard var h = frames[t][s] else { continue }
                    h.joints = moved(h.joints)
                    frames[t][s] = h
                }
            }
            for t in bodies.indices { if let b = bodies[t] { bodies[t] = BodySample(joints: moved(b.joints), visibility: b.visibility) } }
        }
        for a in list {
            switch a {
            case .flip:
                mapPoints { SIMD2(1 - $0.x, $0.y) }
                // The person's left arm now shows where the right was: its joints take the right's places.
                if let joints { for t in bodies.indices { bodies[t] = bodies[t]?.sidesSwapped(joints) } }
                for t in frames.indices {
                    for s in frames[t].indices {
                        let current = frames[t][s]?.chirality
                        frames[t][s]?.chirality = current == .left ? .right : .left
                    }
                    if frames[t].count == 2 { frames[t].swapAt(0, 1) }
                }
                drawn["flip"] = 1
            case .rotate(let degrees):
                let angle = rng.uniform(-degrees, degrees)
                let r = Float(angle * .pi / 180), c = cos(r), s = sin(r)
                mapPoints { p in let d = p - 0.5; return SIMD2(c * d.x - s * d.y, s * d.x + c * d.y) + 0.5 }
                drawn["rotate_degrees"] = angle
            case .scale(let f):
                let k = rng.uniform(1 - f, 1 + f)
                mapPoints { ($0 - 0.5) * Float(k) + 0.5 }
                drawn["scale"] = k
            case .translate(let f):
                let dx = rng.uniform(-f, f), dy = rng.uniform(-f, f)
                mapPoints { $0 + SIMD2(Float(dx), Float(dy)) }
                drawn["translate_x"] = dx; drawn["translate_y"] = dy
            case .drop(let p):
                var dropped = 0
                for t in frames.indices where rng.uniform(0, 1) < p {
                    frames[t] = frames[t].map { _ in nil }
                    if t < bodies.count { bodies[t] = nil }
                    dropped += 1
                }
                drawn["dropped_frames"] = Double(dropped)
            case .stretch(let f):
                let speed = rng.uniform(1 - f, 1 + f)
                let source = frames, sourceBodies = bodies
                for t in frames.indices {
                    let pos = min(Double(t) * speed, Double(source.count - 1))
                    let a = Int(pos), b = min(a + 1, source.count - 1), w = Float(pos - Double(a))
                    frames[t] = (0..<source[a].count).map { s in
                        guard let ha = source[a][s] else { return source[b][s] }
                        guard let hb = source[b][s], w > 0 else { return ha }
                        return HandSample(joints: zip(ha.joints, hb.joints).map { $0 + w * ($1 - $0) },
                                          confidence: ha.confidence + w * (hb.confidence - ha.confidence), chirality: ha.chirality,
                                          interpolated: w < 0.5 ? ha.interpolated : hb.interpolated)
                    }
                    if t < bodies.count {
                        bodies[t] = sourceBodies[a].map { ba in sourceBodies[b].map { w > 0 ? BodySample.blend(ba, $0, w) : ba } ?? ba } ?? sourceBodies[b]
                    }
                }
                drawn["speed"] = speed
            }
        }
        return drawn
    }
}

/// Stored as its text (`rotate=15.0`), as `--augment` takes it.
extension Augmentation: Codable {
    public init(from decoder: Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let parsed = try? Augmentation.parse(text), parsed.count == 1 else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "'\(text)' is not an augmentation"))
        }
        self = parsed[0]
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }
}
