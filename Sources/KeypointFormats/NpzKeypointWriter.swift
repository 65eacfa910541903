import FileSystem
import Foundation
import Keypoints

/// A clip's keypoints as NumPy arrays in one `.npz`, for `np.load`:
/// `landmarks` and `world` float32 `[frames, hands, 21, 3]`, `presence` and `handedness` float32
/// `[frames, hands]`, `track` int32 `[frames, hands]` (-1 where no hand), `mask` bool `[frames, hands]`
/// (true where a hand is real; everything else is 0 there), in files of `extract --complete` also
/// `interpolated` bool `[frames, hands]` (true where the hand was interpolated, not estimated by the
/// model), `frame` int64 and `time` float64
/// `[frames]`, and `header`: the keypoint file without its frames (source, frame size, rate, settings,
/// models) as a JSON string. `hands` is the most hands any frame has (at least 1), in the keypoint
/// file's order. Files of `extract --body` also hold `person` int32 `[frames, hands]` (the hand's body
/// in the frame's `bodies`, -1 where none) and the bodies: `body_landmarks` and `body_world` float32
/// `[frames, bodies, 33, 3]`, `body_visibility` and `body_presence` float32 `[frames, bodies, 33]`,
/// `body_score` float32 and `body_track` int32 `[frames, bodies]`, `body_mask` bool `[frames, bodies]`. Files
/// of `extract --holistic` hold the bodies too, and the faces: `face_landmarks` float32 `[frames, faces, 468, 3]` (478 with
/// `--refine-face`),
/// `face_presence` float32, `face_person` int32 (-1 where none) and `face_mask` bool `[frames, faces]`; with
/// `--hand-fallback` also `fallback` bool `[frames, hands]` (true where handpose's tracker gave the hand).
/// Hands are kept in a scratch file until the end; memory grows only by the frame index,
/// time and hand count (18 bytes a frame: about 2 MB for an hour at 30 fps).
public final class NpzKeypointWriter: KeypointOutput {
    public var url: URL { file.url }
    /// Where it is written until `commit` moves it to `url`.
    public var temporary: URL { file.temporary }
    private let file: StagedFile
    private let scratch: ScratchFile
    private var counts: [UInt16] = []
    private var times: [Double] = []
    private var indices: [Int64] = []
    private var mostHands = 1
    /// `extract --body`: bodies kept in their own scratch file, a record each.
    private let bodyScratch: ScratchFile?
    private var bodyCounts: [UInt16] = []
    private var mostBodies = 1
    /// `extract --holistic`: faces kept in their own scratch file, a record each.
    private let faceScratch: ScratchFile?
    private var faceCounts: [UInt16] = []
    private var mostFaces = 1
    /// Points of each face (468, or 478 refined); the per-face record: its landmarks x 3, presence, person.
    private let facePoints: Int
    private var faceRecordFloats: Int { facePoints * 3 + 2 }

    /// The per-hand record kept in scratch: 63 landmarks, 63 world, presence, handedness, track, and
    /// its mask value (1 estimated, 2 interpolated).
    static let recordFloats = 2 * Joint.count * 3 + 5
    /// The per-body record: 99 landmarks, 99 world, 33 visibility, 33 presence, score, track.
    static let bodyRecordFloats = 2 * BodyJoint.count * 3 + 2 * BodyJoint.count + 2

    /// `bodies`: the file holds bodies (`extract --body`); `faces`: and faces of that many points (`extract --holistic`).
    public init(url: URL, bodies: Bool = false, faces: Int? = nil) throws {
        facePoints = faces ?? KeypointFile.Face.meshPoints
        file = try StagedFile(url: url, open: false)   // ZIPFoundation writes the temporary file
        scratch = try ScratchFile(beside: url)
        bodyScratch = bodies ? try ScratchFile(beside: url) : nil
        faceScratch = faces != nil ? try ScratchFile(beside: url) : nil
    }

    public func append(_ frame: KeypointFile.Frame) throws {
        guard frame.hands.count <= Int(UInt16.max) else {
            throw KeypointError.unwritable(path: url.path, reason: "frame \(frame.i) has over 65535 hands")
        }
        counts.append(UInt16(frame.hands.count))
        times.append(frame.t)
        indices.append(Int64(frame.i))
        mostHands = max(mostHands, frame.hands.count)
        for hand in frame.hands {
            var record = hand.landmarks.flatMap { $0 }
            record += hand.world?.flatMap { $0 } ?? [Float](repeating: 0, count: Joint.count * 3)
            record += [hand.presence ?? 1, hand.handedness, Float(hand.track ?? -1),
                       hand.isInterpolated ? 2 : hand.origin == KeypointFile.Hand.fallback ? 3 : 1, Float(hand.person ?? -1)]
            scratch.append(record)
        }
        try scratch.spill()
        if let faceScratch {
            let faces = frame.faces ?? []
            if let other = faces.first(where: { $0.landmarks.count != facePoints }) {
                throw KeypointError.unwritable(path: url.path, reason: "frame \(frame.i)'s face has \(other.landmarks.count) points, the file's \(facePoints)")
            }
            guard faces.count <= Int(UInt16.max) else {
                throw KeypointError.unwritable(path: url.path, reason: "frame \(frame.i) has over 65535 faces")
            }
            faceCounts.append(UInt16(faces.count))
            mostFaces = max(mostFaces, faces.count)
            for face in faces {
                faceScratch.append(face.landmarks.flatMap { $0.prefix(3) } + [face.presence ?? 1, Float(face.person ?? -1)])
            }
            try faceScratch.spill()
        }
        if let bodyScratch {
            let bodies = frame.bodies ?? []
            guard bodies.count <= Int(UInt16.max) else {
                throw KeypointError.unwritable(path: url.path, reason: "frame \(frame.i) has over 65535 bodies")
            }
            bodyCounts.append(UInt16(bodies.count))
            mostBodies = max(mostBodies, bodies.count)
            for body in bodies {
                var record = body.landmarks.flatMap { $0 }
                record += body.world?.flatMap { $0 } ?? [Float](repeating: 0, count: BodyJoint.count * 3)
                record += body.visibility + body.presence + [body.score ?? 1, Float(body.track ?? -1)]
                bodyScratch.append(record)
            }
            try bodyScratch.spill()
        }
    }

    public func complete(_ header: KeypointFile) throws {
        var rest = header
        rest.frames = []
        rest.video.frames = counts.count
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json = String(decoding: try encoder.encode(rest), as: UTF8.self)
        let F = counts.count, H = mostHands, J = Joint.count

        /// A member built frame by frame from the scratch records: `perHand` values for each of H slots
        /// (`shape[1]`), from `source`'s records (`counts` of them a frame, `floats` each).
        func member<T>(_ name: String, _ dtype: Npy.DType, shape: [Int], fill: T,
                       from source: (scratch: ScratchFile, counts: [UInt16], floats: Int)? = nil,
                       pick: @escaping (UnsafeBufferPointer<Float>) -> [T]) throws -> NpzArchive.StreamedMember {
            let (scratch, counts, floats) = source ?? (self.scratch, self.counts, Self.recordFloats)
            let recordBytes = floats * 4
            let H = shape[1]
            let head = Npy.header(dtype, shape: shape)
            let perHand = shape.dropFirst(2).reduce(1, *)
            let reader = try scratch.reader()
            var pending = head
            var frame = 0
            let body = F * H * perHand * MemoryLayout<T>.stride
            return NpzArchive.StreamedMember(name: name + ".npy", size: head.count + body) { n in
                while pending.count < n && frame < F {
                    var values: [T] = []
                    values.reserveCapacity(H * perHand)
                    for _ in 0..<Int(counts[frame]) {
                        let record = try reader.read(recordBytes)
                        record.withUnsafeBytes { values += pick($0.bindMemory(to: Float.self)) }
                    }
                    values += [T](repeating: fill, count: (H - Int(counts[frame])) * perHand)
                    values.withUnsafeBufferPointer { pending.append(contentsOf: UnsafeRawBufferPointer($0)) }
                    frame += 1
                }
                let out = pending.prefix(n)
                pending = Data(pending.dropFirst(n))
                return Data(out)
            }
        }
        func whole(_ name: String, _ data: Data) -> NpzArchive.StreamedMember {
            var offset = 0
            return NpzArchive.StreamedMember(name: name + ".npy", size: data.count) { n in
                defer { offset += n }
                return data.subdata(in: offset..<offset + n)
            }
        }
        let lm = 3 * J
        let members = [
            try member("landmarks", .float32, shape: [F, H, J, 3], fill: Float(0)) { Array($0[0..<lm]) },
            try member("world", .float32, shape: [F, H, J, 3], fill: Float(0)) { Array($0[lm..<2 * lm]) },
            try member("presence", .float32, shape: [F, H], fill: Float(0)) { [$0[2 * lm]] },
            try member("handedness", .float32, shape: [F, H], fill: Float(0)) { [$0[2 * lm + 1]] },
            try member("track", .int32, shape: [F, H], fill: Int32(-1)) { [Int32($0[2 * lm + 2])] },
            try member("mask", .bool, shape: [F, H], fill: UInt8(0)) { _ in [UInt8(1)] },
            whole("frame", Npy.encode(indices, shape: [F])),
            whole("time", Npy.encode(times, .float64, shape: [F])),
            whole("header", Npy.encode(json)),
        ] + (header.settings?.completion == nil ? [] : [
            try member("interpolated", .bool, shape: [F, H], fill: UInt8(0)) { [$0[2 * lm + 3] == 2 ? 1 : 0] },
        ]) + (header.settings?.holistic?.hasSuffix("+hand-fallback") != true ? [] : [
            try member("fallback", .bool, shape: [F, H], fill: UInt8(0)) { [$0[2 * lm + 3] == 3 ? 1 : 0] },
        ]) + (try bodyScratch.map { bodies -> [NpzArchive.StreamedMember] in
            let B = mostBodies, K = BodyJoint.count, source = (bodies, bodyCounts, Self.bodyRecordFloats)
            return [
                try member("person", .int32, shape: [F, H], fill: Int32(-1)) { [Int32($0[2 * lm + 4])] },
                try member("body_landmarks", .float32, shape: [F, B, K, 3], fill: Float(0), from: source) { Array($0[0..<3 * K]) },
                try member("body_world", .float32, shape: [F, B, K, 3], fill: Float(0), from: source) { Array($0[3 * K..<6 * K]) },
                try member("body_visibility", .float32, shape: [F, B, K], fill: Float(0), from: source) { Array($0[6 * K..<7 * K]) },
                try member("body_presence", .float32, shape: [F, B, K], fill: Float(0), from: source) { Array($0[7 * K..<8 * K]) },
                try member("body_score", .float32, shape: [F, B], fill: Float(0), from: source) { [$0[8 * K]] },
                try member("body_track", .int32, shape: [F, B], fill: Int32(-1), from: source) { [Int32($0[8 * K + 1])] },
                try member("body_mask", .bool, shape: [F, B], fill: UInt8(0), from: source) { _ in [UInt8(1)] },
            ]
        } ?? []) + (try faceScratch.map { faces -> [NpzArchive.StreamedMember] in
            let N = mostFaces, P = facePoints, source = (faces, faceCounts, faceRecordFloats)
            return [
                try member("face_landmarks", .float32, shape: [F, N, P, 3], fill: Float(0), from: source) { Array($0[0..<3 * P]) },
                try member("face_presence", .float32, shape: [F, N], fill: Float(0), from: source) { [$0[3 * P]] },
                try member("face_person", .int32, shape: [F, N], fill: Int32(-1), from: source) { [Int32($0[3 * P + 1])] },
                try member("face_mask", .bool, shape: [F, N], fill: UInt8(0), from: source) { _ in [UInt8(1)] },
            ]
        } ?? [])
        do {
            try? FileManager.default.removeItem(at: file.temporary)
            try NpzArchive.write(members, to: file.temporary)
        } catch {
            abandon()
            if let e = error as? KeypointError { throw e }
            throw KeypointError.unwritable(path: url.path, reason: describe(error))
        }
    }

    public func commit() throws { try file.commit() }
    public func abandon() { file.abandon() }
}
