import Foundation
import Keypoints

/// pose-format's `.pose` file (version 0.2, the layout `pose_format.Pose.read` reads and
/// sign-language-processing's `videos_to_poses` writes), with the two hand components MediaPipe
/// Holistic names: `LEFT_HAND_LANDMARKS` then `RIGHT_HAND_LANDMARKS`, 21 points each in MediaPipe's
/// joint order and names, format `XYZC`. One person; x and y in pixels, z MediaPipe's relative depth
/// as Holistic stores it; confidence is the hand's presence score on each of its points, 0 where the
/// frame has no hand of that side. Frames are at the clip's average rate (pose-format has no per-frame
/// times); a still image is one frame at rate 1.
///
/// Chirality picks the component. When one frame has two hands of one side, the one whose chirality
/// is surer (handedness further from 0.5) takes the component and the other is left out of the `.pose`
/// file (the keypoint file keeps both); a hand found as MediaPipe finds it goes before one `--complete`
/// tracked backward, and that before an interpolated one.
/// A hand `extract --complete` interpolated keeps its points with confidence 0, so pose-format's masked
/// arrays treat it as not observed (as its own `interpolate()` would fill it) while `data.data` holds it.
///
/// With bodies (`extract --body`) the file is laid out as Holistic's: `POSE_LANDMARKS` (33 points,
/// MediaPipe's `PoseLandmark` names, x and y in pixels, z as stored, confidence the landmark's
/// visibility) before the two hands, and a person for each of `--max-bodies`. A person keeps their slot
/// while their body's track goes on (a new track takes the first slot free in that frame), and holds the
/// hands tied to that body (`BodyAssociation`), each in the component of the arm it is on (the person's
/// own left or right, as Holistic assigns hands), not of the hand model's chirality. A hand tied to no
/// body is left out of the `.pose` file (the keypoint file keeps it), so a component never switches
/// rules along a clip; only a clip in which no body was found at all is written with its hands by
/// chirality, as without `--body`. pose-format's `normalize()`, `pose_normalization_info()` and
/// `estimate_active_hand()` then work.
///
/// Written by hand: pose-format is a Python library; the layout is its `pose_header.py` and
/// `numpy/pose_body.py` (little-endian; strings as a uint16 length and UTF-8 bytes).
public final class PoseFileWriter: KeypointOutput {
    public let url: URL
    /// Where it is written until `commit` moves it to `url`.
    public var temporary: URL { file.temporary }
    private let file: StagedFile
    private let coordinates: ScratchFile
    private let confidences: ScratchFile
    private var frames = 0

    /// MediaPipe's `HandLandmark` names, in landmark order.
    public static let pointNames = [
        "WRIST", "THUMB_CMC", "THUMB_MCP", "THUMB_IP", "THUMB_TIP",
        "INDEX_FINGER_MCP", "INDEX_FINGER_PIP", "INDEX_FINGER_DIP", "INDEX_FINGER_TIP",
        "MIDDLE_FINGER_MCP", "MIDDLE_FINGER_PIP", "MIDDLE_FINGER_DIP", "MIDDLE_FINGER_TIP",
        "RING_FINGER_MCP", "RING_FINGER_PIP", "RING_FINGER_DIP", "RING_FINGER_TIP",
        "PINKY_MCP", "PINKY_PIP", "PINKY_DIP", "PINKY_TIP",
    ]
    /// MediaPipe's `HAND_CONNECTIONS`: the palm, then each finger from its base.
    public static let limbs: [(UInt16, UInt16)] = [
        (0, 1), (0, 5), (5, 9), (9, 13), (13, 17), (0, 17),
        (1, 2), (2, 3), (3, 4), (5, 6), (6, 7), (7, 8), (9, 10), (10, 11), (11, 12),
        (13, 14), (14, 15), (15, 16), (17, 18), (18, 19), (19, 20),
    ]
    /// A colour per point (pose-format colours points and draws each limb in the mean of its ends'):
    /// the wrist grey, each finger its own hue.
    static let colors: [(UInt16, UInt16, UInt16)] = {
        let fingers: [(UInt16, UInt16, UInt16)] = [(230, 80, 60), (240, 200, 40), (60, 190, 80), (50, 140, 230), (170, 80, 220)]
        return [(128, 128, 128)] + (0..<20).map { fingers[$0 / 4] }
    }()
    public static let components = ["LEFT_HAND_LANDMARKS", "RIGHT_HAND_LANDMARKS"]
    /// Holistic's body component and its point names (MediaPipe's `PoseLandmark`, upper case).
    public static let bodyComponent = "POSE_LANDMARKS"
    public static let bodyPointNames = BodyJoint.names.map { $0.uppercased() }
    /// People per frame: 1, or `--max-bodies` with bodies.
    let people: Int
    let bodies: Bool

    /// `bodies`: the most bodies a frame holds (`extract --body`'s `--max-bodies`); 0 without bodies.
    public init(url: URL, bodies: Int = 0) throws {
        self.url = url
        self.bodies = bodies > 0
        people = max(1, bodies)
        // The file counts its people in 16 bits.
        guard people <= Int(UInt16.max) else {
            throw KeypointError.unwritable(path: url.path, reason: "pose-format holds up to 65535 people a frame, not \(people)")
        }
        file = try StagedFile(url: url)
        coordinates = try ScratchFile(beside: url)
        confidences = try ScratchFile(beside: url)
        slots = [Int?](repeating: nil, count: people)
        if bodies > 0 {
            byChirality = (try ScratchFile(beside: url), try ScratchFile(beside: url))
        }
    }

    /// With bodies: the same frames laid out as without them (hands to person 0 by chirality), kept in
    /// case the clip holds no body at all; then `complete` writes these, so hands-only footage extracted
    /// with `--body` still has its hands in the `.pose` file.
    private var byChirality: (coordinates: ScratchFile, confidences: ScratchFile)?
    /// Whether any frame held a body.
    private var sawBody = false
    /// The body track each person slot follows, so a person keeps their slot while tracked (nil: free).
    private var slots: [Int?]

    /// Which of two hands of one side goes first: found as MediaPipe finds it (2), tracked backward by
    /// `--complete` (1), interpolated (0).
    static func rank(_ hand: KeypointFile.Hand) -> Int {
        hand.origin == nil ? 2 : hand.isInterpolated ? 0 : 1
    }

    /// Which of the frame's bodies each person slot shows: a track already in a slot keeps it, a new one
    /// takes the first slot nothing is shown in this frame; a body past the last slot is left out.
    func assignSlots(_ found: [KeypointFile.Body]) -> [Int?] {
        var shown = [Int?](repeating: nil, count: people)
        var placed = Set<Int>()
        for (b, body) in found.enumerated() {
            if let track = body.track, let s = slots.firstIndex(of: track) { shown[s] = b; placed.insert(b) }
        }
        for (b, body) in found.enumerated() where !placed.contains(b) {
            guard let s = shown.indices.first(where: { shown[$0] == nil }) else { break }
            shown[s] = b
            slots[s] = body.track
        }
        for s in shown.indices where shown[s] == nil { slots[s] = nil }
        return shown
    }

    /// The frame size is known only at the end: points are kept normalised until then.
    public func append(_ frame: KeypointFile.Frame) throws {
        let found = frame.bodies ?? []
        sawBody = sawBody || !found.isEmpty
        let shown = bodies ? assignSlots(found) : [nil]
        func write(_ hands: [Chirality: KeypointFile.Hand], _ c: ScratchFile, _ k: ScratchFile) {
            for side in [Chirality.left, .right] {
                if let hand = hands[side] {
                    c.append(hand.landmarks.flatMap { $0 })
                    k.append([Float](repeating: hand.isInterpolated ? 0 : hand.presence ?? 1, count: Joint.count))
                } else {
                    c.append([Float](repeating: 0, count: Joint.count * 3))
                    k.append([Float](repeating: 0, count: Joint.count))
                }
            }
        }
        for person in 0..<people {
            if bodies {
                for (c, k) in [(coordinates, confidences)] + (byChirality.map { [$0] } ?? []) {
                    if let b = shown[person] {
                        c.append(found[b].landmarks.flatMap { $0 })
                        k.append(found[b].visibility)
                    } else {
                        c.append([Float](repeating: 0, count: BodyJoint.count * 3))
                        k.append([Float](repeating: 0, count: BodyJoint.count))
                    }
                }
                // A person's hands are those tied to their body, by arm.
                var tied: [Chirality: KeypointFile.Hand] = [:]
                if let b = shown[person] {
                    for hand in frame.hands where hand.person == b {
                        if let side = hand.arm.flatMap(Chirality.init(rawValue:)) { tied[side] = hand }
                    }
                }
                write(tied, coordinates, confidences)
                if let (c, k) = byChirality { write(person == 0 ? Self.byChirality(frame.hands) : [:], c, k) }
            } else {
                write(Self.byChirality(frame.hands), coordinates, confidences)
            }
        }
        frames += 1
        try coordinates.spill()
        try confidences.spill()
        if let (c, k) = byChirality { try c.spill(); try k.spill() }
    }

    /// The hand of each side by its chirality (without bodies): of two hands of one side, the one found
    /// as MediaPipe finds it, then the one whose chirality is surer.
    static func byChirality(_ all: [KeypointFile.Hand]) -> [Chirality: KeypointFile.Hand] {
        var chosen: [Chirality: KeypointFile.Hand] = [:]
        for hand in all {
            if let other = chosen[hand.chirality] {
                let (rank, otherRank) = (Self.rank(hand), Self.rank(other))
                if rank != otherRank { if rank < otherRank { continue } }
                else if abs(hand.handedness - 0.5) <= abs(other.handedness - 0.5) { continue }
            }
            chosen[hand.chirality] = hand
        }
        return chosen
    }

    public func complete(_ header: KeypointFile) throws {
        // The body grey-blue, its left side (the person's) lighter.
        let bodyColors = BodyJoint.names.map { $0.hasPrefix("left") ? (120, 170, 230) : $0.hasPrefix("right") ? (60, 90, 160) : (150, 150, 150) as (UInt16, UInt16, UInt16) }
        let body = Self.Component(name: Self.bodyComponent, points: Self.bodyPointNames, limbs: BodyJoint.bones.map { (UInt16($0.0), UInt16($0.1)) },
                                  colors: bodyColors)
        let hands = Self.components.map { Self.Component(name: $0, points: Self.pointNames, limbs: Self.limbs, colors: Self.colors) }
        // A clip with bodies: hands by arm; a clip in which no body was found: hands by chirality.
        let (chosenCoordinates, chosenConfidences) = sawBody ? (coordinates, confidences) : (byChirality ?? (coordinates, confidences))
        try Self.write(file, header: header, components: (bodies ? [body] : []) + hands, frames: frames, people: people,
                       coordinates: chosenCoordinates, confidences: chosenConfidences)
    }

    /// One component of a `.pose` header: its name, point names, limbs (pairs of point indices) and colours.
    struct Component {
        var name: String
        var format = "XYZC"
        var points: [String]
        var limbs: [(UInt16, UInt16)]
        var colors: [(UInt16, UInt16, UInt16)]
    }

    /// Writes a whole `.pose` file to `file`: the header (version 0.2, `header`'s frame size, `components`),
    /// then the body: fps, frame and people counts, the coordinates (normalised x and y become pixels as
    /// they are copied; z as stored) and the confidences. Abandons `file` on failure.
    static func write(_ file: StagedFile, header: KeypointFile, components: [Component], frames: Int, people: Int,
                      coordinates: ScratchFile, confidences: ScratchFile) throws {
        let width = header.video.width, height = header.video.height
        guard (1...65535).contains(width), (1...65535).contains(height) else {
            file.abandon()
            throw KeypointError.unwritable(path: file.url.path, reason: "pose-format holds frame sizes up to 65535, not \(width)x\(height)")
        }
        guard frames <= Int(UInt32.max) else {
            file.abandon()
            throw KeypointError.unwritable(path: file.url.path, reason: "pose-format counts frames in 32 bits, and \(frames) is more")
        }
        var out = Data()
        func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) } }
        func f32(_ v: Float) { withUnsafeBytes(of: v.bitPattern.littleEndian) { out.append(contentsOf: $0) } }
        func str(_ s: String) { u16(UInt16(s.utf8.count)); out.append(contentsOf: Array(s.utf8)) }
        f32(0.2)
        u16(UInt16(width)); u16(UInt16(height)); u16(0)
        u16(UInt16(components.count))
        for c in components {
            str(c.name)
            str(c.format)
            u16(UInt16(c.points.count)); u16(UInt16(c.limbs.count)); u16(UInt16(c.colors.count))
            for p in c.points { str(p) }
            for (a, b) in c.limbs { u16(a); u16(b) }
            for (r, g, b) in c.colors { u16(r); u16(g); u16(b) }
        }
        f32(Float(header.video.fps ?? 1))
        withUnsafeBytes(of: UInt32(frames).littleEndian) { out.append(contentsOf: $0) }
        u16(UInt16(people))
        do {
            try file.write(out)
            let points = try coordinates.reader()
            let scale = SIMD4<Float>(Float(width), Float(height), 1, 0)
            while !points.atEnd {
                var chunk = try points.read(3 * 4 * 4096)
                chunk.withUnsafeMutableBytes { raw in
                    let v = raw.bindMemory(to: Float.self)
                    for i in stride(from: 0, to: v.count, by: 3) { v[i] *= scale[0]; v[i + 1] *= scale[1] }
                }
                try file.write(chunk)
            }
            let conf = try confidences.reader()
            while !conf.atEnd { try file.write(try conf.read(1 << 16)) }
            try file.close()
        } catch {
            file.abandon()
            throw error
        }
    }

    public func commit() throws { try file.commit() }
    public func abandon() { file.abandon() }
}
