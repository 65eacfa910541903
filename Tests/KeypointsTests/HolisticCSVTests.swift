import Foundation
import KeypointFormats
import Keypoints
import XCTest

/// The CSV of `extract --holistic`: every row as wide as the header, with and without `origin`; a hand's row
/// carries its person's body and face, a body without a hand and a face without a body have rows of their own,
/// and a face of another size than the file's is an error.
final class HolisticCSVTests: XCTestCase {
    static func hand(_ side: Chirality, person: Int?) -> KeypointFile.Hand {
        var h = KeypointFile.Hand(chirality: side, handedness: 0.9, presence: 0.8,
                                  landmarks: (0..<Joint.count).map { [Float($0), 0.5, 0] }, world: nil, region: nil, track: 1)
        h.person = person
        h.arm = person == nil ? nil : side.rawValue
        return h
    }

    static let body = KeypointFile.Body(landmarks: (0..<BodyJoint.count).map { [Float($0) / 33, 0.25, 0.5] },
                                        visibility: [Float](repeating: 0.9, count: BodyJoint.count),
                                        presence: [Float](repeating: 0.8, count: BodyJoint.count), world: nil, score: 0.7, region: nil, track: 3)

    static func face(person: Int?, points: Int = KeypointFile.Face.meshPoints, seed: Float) -> KeypointFile.Face {
        KeypointFile.Face(landmarks: (0..<points).map { [seed + Float($0) / 1000, 0.5, -0.01] }, presence: 0.95, region: nil, person: person)
    }

    func testRowsAreAsWideAsTheHeaderAndCarryTheirPersonsFace() throws {
        for origins in [false, true] {
            for points in [KeypointFile.Face.meshPoints, KeypointFile.Face.refinedPoints] {
                let dir = FileManager.default.temporaryDirectory.appendingPathComponent("holistic-csv-\(UUID().uuidString)")
                try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(at: dir) }
                let url = dir.appendingPathComponent("clip.csv")
                let writer = try HandCSVWriter(url: url, origins: origins, bodies: true, faces: points)
                let frames = [
                    // A hand on the person, whose face it carries.
                    KeypointFile.Frame(i: 0, t: 0, hands: [Self.hand(.left, person: 0)], bodies: [Self.body],
                                       faces: [Self.face(person: 0, points: points, seed: 0)]),
                    // The person without a hand: a body row, with the face.
                    KeypointFile.Frame(i: 1, t: 0.1, hands: [], bodies: [Self.body], faces: [Self.face(person: 0, points: points, seed: 1)]),
                    // A hand tied to no body, and a face tied to none: a row each.
                    KeypointFile.Frame(i: 2, t: 0.2, hands: [Self.hand(.right, person: nil)], bodies: [],
                                       faces: [Self.face(person: nil, points: points, seed: 2)]),
                    // A face whose person is past the frame's bodies is not lost: its own row.
                    KeypointFile.Frame(i: 3, t: 0.3, hands: [], bodies: [Self.body], faces: [Self.face(person: 4, points: points, seed: 3)]),
                ]
                for f in frames { try writer.append(f) }
                // A face of the other size is refused, naming the frame.
                let other = points == KeypointFile.Face.meshPoints ? KeypointFile.Face.refinedPoints : KeypointFile.Face.meshPoints
                XCTAssertThrowsError(try writer.append(KeypointFile.Frame(i: 4, t: 0.4, hands: [], bodies: [Self.body],
                                                                          faces: [Self.face(person: 0, points: other, seed: 4)]))) { error in
                    XCTAssertTrue("\(error)".contains("frame 4"), "\(error)")
                }
                try writer.complete(KeypointFile(source: "clip.mp4", width: 4, height: 4, fps: 10, frames: frames, tool: nil, settings: nil, models: nil))
                try writer.commit()
                let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
                let header = lines[0], rows = Array(lines.dropFirst())
                XCTAssertEqual(header.last, "face_z\(points - 1)")
                XCTAssertEqual(header.filter { $0.hasPrefix("face_") }.count, 1 + points * 3)
                XCTAssertEqual(header.contains("origin"), origins)
                for row in rows { XCTAssertEqual(row.count, header.count, "\(row.prefix(4))") }
                let column = { (name: String) in header.firstIndex(of: name)! }
                func cell(_ row: [String], _ name: String) -> String { row[column(name)] }
                XCTAssertEqual(rows.map { cell($0, "frame") }, ["0", "1", "2", "2", "3", "3"])
                // Frame 0: the hand's row has the body and the face.
                XCTAssertEqual(cell(rows[0], "chirality"), "left")
                XCTAssertEqual(cell(rows[0], "body_track"), "3")
                XCTAssertEqual(Float(cell(rows[0], "face_x1")), 0.001)
                XCTAssertEqual(cell(rows[0], "face_presence"), "0.95")
                // Frame 1: no hand, the body with its face.
                XCTAssertEqual(cell(rows[1], "chirality"), "")
                XCTAssertEqual(cell(rows[1], "body_track"), "3")
                XCTAssertEqual(Float(cell(rows[1], "face_x0")), 1)
                // Frame 2: the hand without body or face, then the face alone.
                XCTAssertEqual(cell(rows[2], "chirality"), "right")
                XCTAssertEqual(cell(rows[2], "person"), "")
                XCTAssertEqual(cell(rows[2], "face_x0"), "")
                XCTAssertEqual(cell(rows[3], "chirality"), "")
                XCTAssertEqual(cell(rows[3], "body_track"), "")
                XCTAssertEqual(Float(cell(rows[3], "face_x0")), 2)
                // Frame 3: the body without a face of its own, then the stray face.
                XCTAssertEqual(cell(rows[4], "body_track"), "3")
                XCTAssertEqual(cell(rows[4], "face_x0"), "")
                XCTAssertEqual(cell(rows[5], "body_track"), "")
                XCTAssertEqual(Float(cell(rows[5], "face_x0")), 3)
            }
        }
    }
}
