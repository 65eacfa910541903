import Foundation
import Keypoints

/// One row per hand per frame, under a header, for spreadsheets and pandas:
/// `frame, time, track, chirality, handedness, presence`, then `x0, y0, z0` to `x20, y20, z20`
/// (normalised to the frame, as in the keypoint file) and `world_x0` to `world_z20` (metres). A frame
/// without hands has no row; an unknown value (a reference file's missing presence or track) is empty.
/// Files of `extract --complete` end with an `origin` column: empty for hands found as MediaPipe finds
/// them, `backward` or `interpolated` for those the completion added (the keypoint file's `origin`).
public final class HandCSVWriter: KeypointOutput {
    public let url: URL
    private let file: StagedFile

    public static let header: [String] = ["frame", "time", "track", "chirality", "handedness", "presence"]
        + (0..<Joint.count).flatMap { j in ["x\(j)", "y\(j)", "z\(j)"] }
        + (0..<Joint.count).flatMap { j in ["world_x\(j)", "world_y\(j)", "world_z\(j)"] }

    /// Whether rows end with the hand's `origin`.
    let origins: Bool

    public init(url: URL, origins: Bool = false) throws {
        self.url = url
        self.origins = origins
        file = try StagedFile(url: url)
        try file.write((Self.header + (origins ? ["origin"] : [])).joined(separator: ",") + "\n")
    }

    public func append(_ frame: KeypointFile.Frame) throws {
        for hand in frame.hands {
            try file.write((Self.row(frame, hand) + (origins ? [hand.origin ?? ""] : [])).joined(separator: ",") + "\n")
        }
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
