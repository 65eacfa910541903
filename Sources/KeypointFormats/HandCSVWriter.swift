import Foundation
import Keypoints

/// One row per hand per frame, under a header, for spreadsheets and pandas:
/// `frame, time, track, chirality, handedness, presence`, then `x0, y0, z0` to `x20, y20, z20`
/// (normalised to the frame, as in the keypoint file) and `world_x0` to `world_z20` (metres). A frame
/// without hands has no row; an unknown value (a reference file's missing presence or track) is empty.
/// Files of `extract --complete` end with an `origin` column: empty for hands found as MediaPipe finds
/// them, `backward` or `interpolated` for those the completion added (the keypoint file's `origin`).
/// Files of `extract --body` then have `person` and `arm` (the hand's body in the frame and which of
/// its arms, empty when the hand is tied to none) and that person's body: `body_track`, `body_score`,
/// `body_x0, body_y0, body_z0` to `body_z32`, `body_visibility0` to `body_visibility32`, `body_presence0`
/// to `body_presence32`; a body no hand is tied to has a row of its own with the hand's cells empty. The
/// body's world landmarks are in the keypoint file and the npz. Files of `extract --holistic` have the body
/// columns too, then that person's face: `face_presence`, `face_x0, face_y0, face_z0` to `face_z467` (468 points,
/// 1,405 columns; 478 points with `--refine-face`), empty where the frame has no face for the person. A face tied to
/// no body has a row of its own with the hand's and the body's cells empty.
public final class HandCSVWriter: KeypointOutput {
    public let url: URL
    /// Where it is written until `commit` moves it to `url`.
    public var temporary: URL { file.temporary }
    private let file: StagedFile

    public static let header: [String] = ["frame", "time", "track", "chirality", "handedness", "presence"]
        + (0..<Joint.count).flatMap { j in ["x\(j)", "y\(j)", "z\(j)"] }
        + (0..<Joint.count).flatMap { j in ["world_x\(j)", "world_y\(j)", "world_z\(j)"] }

    /// The columns `extract --body` adds.
    public static let bodyHeader: [String] = ["person", "arm", "body_track", "body_score"]
        + (0..<BodyJoint.count).flatMap { j in ["body_x\(j)", "body_y\(j)", "body_z\(j)"] }
        + (0..<BodyJoint.count).map { "body_visibility\($0)" } + (0..<BodyJoint.count).map { "body_presence\($0)" }

    /// The columns `extract --holistic` adds after the body's, for faces of `points` points.
    public static func faceHeader(points: Int) -> [String] {
        ["face_presence"] + (0..<points).flatMap { j in ["face_x\(j)", "face_y\(j)", "face_z\(j)"] }
    }

    /// Whether rows end with the hand's `origin`.
    let origins: Bool
    /// Whether rows carry the body columns.
    let bodies: Bool
    /// The points of each face when rows carry the face columns (`extract --holistic`).
    let facePoints: Int?

    /// `faces`: rows carry the body columns and then the face columns, for faces of that many points.
    public init(url: URL, origins: Bool = false, bodies: Bool = false, faces: Int? = nil) throws {
        self.url = url
        self.origins = origins
        self.bodies = bodies || faces != nil
        facePoints = faces
        file = try StagedFile(url: url)
        let columns = Self.header + (origins ? ["origin"] : []) + (self.bodies ? Self.bodyHeader : []) + (faces.map(Self.faceHeader) ?? [])
        try file.write(columns.joined(separator: ",") + "\n")
    }

    public func append(_ frame: KeypointFile.Frame) throws {
        let people = frame.bodies ?? [], faces = frame.faces ?? []
        if let facePoints, let other = faces.first(where: { $0.landmarks.count != facePoints }) {
            throw KeypointError.unwritable(path: url.path, reason: "frame \(frame.i)'s face has \(other.landmarks.count) points, the file's \(facePoints)")
        }
        for hand in frame.hands {
            var cells = Self.row(frame, hand) + (origins ? [hand.origin ?? ""] : [])
            if bodies { cells += Self.bodyCells(hand.person.map { ($0, people[$0]) }, arm: hand.arm) + faceCells(hand.person, faces) }
            try file.write(cells.joined(separator: ",") + "\n")
        }
        guard bodies else { return }
        let handless = ["\(frame.i)", "\(frame.t)"] + [String](repeating: "", count: Self.header.count - 2 + (origins ? 1 : 0))
        for (p, body) in people.enumerated() where !frame.hands.contains(where: { $0.person == p }) {
            try file.write((handless + Self.bodyCells((p, body), arm: nil) + faceCells(p, faces)).joined(separator: ",") + "\n")
        }
        guard let facePoints else { return }
        // A face tied to no body of the frame (none, or an index past its bodies) has a row of its own.
        for face in faces where face.person.map({ !people.indices.contains($0) }) ?? true {
            let cells = handless + [String](repeating: "", count: Self.bodyHeader.count) + Self.faceCells(face, points: facePoints)
            try file.write(cells.joined(separator: ",") + "\n")
        }
    }

    /// The face columns of the person at `person` (none without face columns; empty cells without that person's face).
    private func faceCells(_ person: Int?, _ faces: [KeypointFile.Face]) -> [String] {
        guard let facePoints else { return [] }
        return Self.faceCells(person.flatMap { p in faces.first { $0.person == p } }, points: facePoints)
    }

    static func faceCells(_ face: KeypointFile.Face?, points: Int) -> [String] {
        guard let face else { return [String](repeating: "", count: 1 + points * 3) }
        return [face.presence.map { "\($0)" } ?? ""] + face.landmarks.flatMap { $0.prefix(3).map { "\($0)" } }
    }

    /// `person`, `arm` and the body columns; empty cells without a body.
    static func bodyCells(_ person: (Int, KeypointFile.Body)?, arm: String?) -> [String] {
        guard let (p, body) = person else { return [String](repeating: "", count: bodyHeader.count) }
        return ["\(p)", arm ?? "", body.track.map { "\($0)" } ?? "", body.score.map { "\($0)" } ?? ""]
            + body.landmarks.flatMap { $0.map { "\($0)" } } + body.visibility.map { "\($0)" } + body.presence.map { "\($0)" }
    }

    static func row(_ frame: KeypointFile.Frame, _ hand: KeypointFile.Hand) -> [String] {
        var cells = ["\(frame.i)", "\(frame.t)", hand.track.map { "\($0)" } ?? "", hand.chirality.rawValue,
                     "\(hand.handedness)", hand.presence.map { "\($0)" } ?? ""]
        cells += hand.landmarks.flatMap { $0.map { "\($0)" } }
        if let world = hand.world { cells += world.flatMap { $0.map { "\($0)" } } } else {
            cells += [String](repeating: "", count: Joint.count * 3)
        }
        return cells
    }

    public func complete(_ header: KeypointFile) throws { try file.close() }
    public func commit() throws { try file.commit() }
    public func abandon() { file.abandon() }
}
