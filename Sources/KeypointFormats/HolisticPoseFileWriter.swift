import Foundation
import Keypoints

/// The `.pose` file pose-format's `video_to_pose` writes for MediaPipe Holistic, for `extract --holistic`:
/// the header of `holistic_components()` byte for byte (`HolisticHeader`, generated from pose-format) and
/// its data conventions (`pose_format/utils/holistic.py`), one person a frame:
/// - `POSE_LANDMARKS` (33): x, y in pixels, z as MediaPipe gives it; confidence the landmark's visibility.
/// - `FACE_LANDMARKS` (468, or 478 with `--refine-face`, pose-format's header for refine_face_landmarks): x, y in
///   pixels, z as given; confidence 1.
/// - `LEFT_HAND_LANDMARKS`, `RIGHT_HAND_LANDMARKS` (21 each, the person's own sides): as the face; a hand
///   `--hand-fallback` added has its presence score as confidence, at most 0.99.
/// - `POSE_WORLD_LANDMARKS` (33): metres, x and y multiplied by the frame's width and height as
///   video_to_pose does (it treats them as the image landmarks); confidence the visibility.
/// A part not found in a frame is zeros with confidence 0. Frames are at the clip's average rate.
public final class HolisticPoseFileWriter: KeypointOutput {
    public let url: URL
    /// Where it is written until `commit` moves it to `url`.
    public var temporary: URL { file.temporary }
    private let file: StagedFile
    private let coordinates: ScratchFile
    private let confidences: ScratchFile
    private var frames = 0

    /// Points of each face, and the header's: 468, or 478 refined.
    let facePoints: Int

    public init(url: URL, facePoints: Int = KeypointFile.Face.meshPoints) throws {
        guard KeypointFile.Face.pointCounts.contains(facePoints) else {
            throw KeypointError.unwritable(path: url.path, reason: "a .pose face has 468 or 478 points, not \(facePoints)")
        }
        self.url = url
        self.facePoints = facePoints
        file = try StagedFile(url: url)
        coordinates = try ScratchFile(beside: url)
        confidences = try ScratchFile(beside: url)
    }

    /// The five components, parsed once from the generated text: with the 468-point face, and with the 478-point one.
    static let components: [PoseFileWriter.Component] = HolisticHeader.plain.map(parse)
    static let refinedComponents: [PoseFileWriter.Component] = HolisticHeader.plain.map {
        parse($0.name == HolisticHeader.refinedFace.name ? HolisticHeader.refinedFace : $0)
    }
    static func parse(_ c: HolisticHeader.Component) -> PoseFileWriter.Component {
        func numbers(_ text: String) -> [UInt16] { text.split(separator: " ").map { UInt16($0)! } }
        let limbs = numbers(c.limbs), colors = numbers(c.colors)
        return PoseFileWriter.Component(name: c.name, format: c.format, points: c.points.split(separator: " ").map(String.init),
                                        limbs: stride(from: 0, to: limbs.count, by: 2).map { (limbs[$0], limbs[$0 + 1]) },
                                        colors: stride(from: 0, to: colors.count, by: 3).map { (colors[$0], colors[$0 + 1], colors[$0 + 2]) })
    }

    public func append(_ frame: KeypointFile.Frame) throws {
        var c: [Float] = [], k: [Float] = []
        func part(_ rows: [[Float]]?, count: Int, confidence: (Int) -> Float) {
            if let rows, rows.count == count {
                for row in rows { c.append(contentsOf: row.prefix(3)) }
                for i in 0..<count { k.append(confidence(i)) }
            } else {
                c.append(contentsOf: [Float](repeating: 0, count: count * 3))
                k.append(contentsOf: [Float](repeating: 0, count: count))
            }
        }
        let body = frame.bodies?.first
        let hands = Dictionary(frame.hands.filter { $0.person == 0 }.map { ($0.arm ?? $0.chirality.rawValue, $0) }) { a, _ in a }
        part(body?.landmarks, count: BodyJoint.count) { body!.visibility[$0] }
        let face = frame.faces?.first(where: { $0.person == 0 })
        if let face, face.landmarks.count != facePoints {
            throw KeypointError.unwritable(path: url.path, reason: "frame \(frame.i)'s face has \(face.landmarks.count) points, the file's header \(facePoints)")
        }
        part(face?.landmarks, count: facePoints) { _ in 1 }
        // A hand `--hand-fallback` took from handpose's tracker: its presence, at most 0.99, so it is told
        // from Holistic's own (1) while pose-format still counts it as seen.
        func confidence(_ hand: KeypointFile.Hand?) -> Float {
            hand?.origin == KeypointFile.Hand.fallback ? min(hand?.presence ?? 0.99, 0.99) : 1
        }
        part(hands["left"]?.landmarks, count: Joint.count) { _ in confidence(hands["left"]) }
        part(hands["right"]?.landmarks, count: Joint.count) { _ in confidence(hands["right"]) }
        part(body?.world, count: BodyJoint.count) { body!.visibility[$0] }
        coordinates.append(c)
        confidences.append(k)
        frames += 1
        try coordinates.spill()
        try confidences.spill()
    }

    public func complete(_ header: KeypointFile) throws {
        try PoseFileWriter.write(file, header: header, components: facePoints == KeypointFile.Face.refinedPoints ? Self.refinedComponents : Self.components, frames: frames, people: 1,
                                 coordinates: coordinates, confidences: confidences)
    }

    public func commit() throws { try file.commit() }
    public func abandon() { file.abandon() }
}
