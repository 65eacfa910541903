import Foundation
import HTTPTypes
import HummingbirdTesting
import Review
import XCTest

/// `GET /api/clips` and `GET /api/keypoints`: the list with its figures from the keypoint files, each
/// clip's hands (and bodies) as the page draws them, and what is said when a file cannot be used.
final class ClipRoutesTests: ReviewTestCase, @unchecked Sendable {
    func testTheListAndAClipsHands() async throws {
        let truth = try JSONSerialization.jsonObject(with: Data(contentsOf: keypoints.appendingPathComponent("actions/grab_0.mp4.hands.json"))) as! [String: Any]
        let withHand = (truth["frames"] as! [[String: Any]]).filter { ($0["hands"] as? [Any])?.isEmpty == false }.count
        try await serve { c in
            let reply = try await c.request("/api/clips")
            XCTAssertEqual(reply.status, .ok)
            XCTAssertEqual(reply.fields, ["content-type: application/json", "content-length: \(reply.body.readableBytes)"] + safetyHeaders)
            let list = try reply.object()
            XCTAssertEqual(list["root"] as? String, self.root.path)
            XCTAssertEqual(list["keypoints"] as? String, self.keypoints.path)
            XCTAssertEqual(list["annotations"] as? [String: String], ["file": self.csv.path, "format": "csv"])
            XCTAssertEqual(list["classes"] as? [String], ["grab", "pinch"])
            let clips = try XCTUnwrap(list["clips"] as? [[String: Any]])
            XCTAssertEqual(clips.compactMap { $0["path"] as? String }.sorted(), ["actions/grab_0.mp4", "actions/pinch_0.mp4"])
            let grab = try XCTUnwrap(clips.first { $0["path"] as? String == "actions/grab_0.mp4" })
            XCTAssertEqual(grab["kind"] as? String, "video")
            XCTAssertEqual(grab["labels"] as? [String], ["grab"])
            XCTAssertEqual(grab["segments"] as? Int, 1)
            XCTAssertEqual(grab["keypoints"] as? Bool, true)
            XCTAssertEqual(grab["frames"] as? Int, 30)
            XCTAssertEqual(grab["framesWithHand"] as? Int, withHand)
            XCTAssertEqual(try XCTUnwrap(grab["detectionRate"] as? Double), Double(withHand) / 30, accuracy: 1e-9)
            XCTAssertTrue(reply.text.contains("\"root\":\"\(self.root.path)\""), "paths written as they are, not as \\/")

            let hands = try await c.request("/api/keypoints?clip=actions/grab_0.mp4").object()
            XCTAssertEqual(hands["clip"] as? String, "actions/grab_0.mp4")
            XCTAssertEqual(hands["width"] as? Int, 256)
            XCTAssertEqual((hands["bones"] as? [[Int]])?.count, 21, "MediaPipe's 21 hand connections")
            XCTAssertNil(hands["bodyBones"], "no bodies looked for, no body bones")
            let frames = try XCTUnwrap(hands["frames"] as? [[String: Any]])
            XCTAssertEqual(frames.count, 30)
            XCTAssertEqual(frames.filter { ($0["hands"] as? [Any])?.isEmpty == false }.count, withHand)
            let first = try XCTUnwrap((frames.first { ($0["hands"] as? [Any])?.isEmpty == false }?["hands"] as? [[String: Any]])?.first)
            XCTAssertEqual((first["landmarks"] as? [[Double]])?.count, 21)
            XCTAssertEqual((first["landmarks"] as? [[Double]])?.first?.count, 2, "x and y only")
            XCTAssertNil(first["origin"], "plain hands carry no origin")
        }
    }

    func testInterpolatedHandsAndBodiesReachThePage() async throws {
        let file = keypoints.appendingPathComponent("actions/pinch_0.mp4.hands.json")
        var kp = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as! [String: Any]
        var frames = kp["frames"] as! [[String: Any]]
        let filled = try XCTUnwrap(frames.firstIndex { ($0["hands"] as? [Any])?.isEmpty == false })
        var hands = frames[filled]["hands"] as! [[String: Any]]
        hands[0]["origin"] = "interpolated"
        frames[filled]["hands"] = hands
        // A file of extract --body: its bodies reach the page, x and y of each landmark with its visibility.
        kp["schema"] = "handpose/keypoints@2"
        let landmarks = (0..<33).map { j in [0.3 + 0.01 * Double(j), 0.6, 0.0] }
        kp["frames"] = frames.enumerated().map { k, frame -> [String: Any] in
            var f = frame
            f["bodies"] = k == filled ? [["landmarks": landmarks, "visibility": Array(repeating: 0.8, count: 33),
                                          "presence": Array(repeating: 0.9, count: 33), "track": 0]] : []
            return f
        }
        try JSONSerialization.data(withJSONObject: kp).write(to: file)
        try await serve { c in
            let served = try await c.request("/api/keypoints?clip=actions/pinch_0.mp4").object()
            let frames = try XCTUnwrap(served["frames"] as? [[String: Any]])
            XCTAssertEqual((frames[filled]["hands"] as? [[String: Any]])?.first?["origin"] as? String, "interpolated")
            XCTAssertNil((frames[filled + 1]["hands"] as? [[String: Any]])?.first?["origin"])
            XCTAssertEqual((served["bodyBones"] as? [[Int]])?.count, 35)
            let body = try XCTUnwrap((frames[filled]["bodies"] as? [[String: Any]])?.first)
            let last = try XCTUnwrap((body["landmarks"] as? [[Double]])?[32])
            XCTAssertEqual(last.count, 2)
            XCTAssertEqual(last[0], 0.62, accuracy: 1e-6)
            XCTAssertEqual(last[1], 0.6, accuracy: 1e-6)
            XCTAssertEqual((body["visibility"] as? [Double])?.count, 33)
            XCTAssertEqual((frames[filled + 1]["bodies"] as? [Any])?.count, 0)
        }
    }

    func testWhatCannotBeServedIsSaid() async throws {
        try FileManager.default.copyItem(at: root.appendingPathComponent("actions/grab_0.mp4"), to: root.appendingPathComponent("actions/bare.mp4"))
        try "garbage\n".write(to: keypoints.appendingPathComponent("actions/pinch_0.mp4.hands.json"), atomically: true, encoding: .utf8)
        try await serve { c in
            let unnamed = try await c.request("/api/keypoints")
            XCTAssertEqual(unnamed.status, .badRequest)
            XCTAssertEqual(unnamed.text, "{\"error\":\"say which clip: /api/keypoints?clip=PATH, PATH as the clip list gives it\"}")
            let bare = try await c.request("/api/keypoints?clip=actions/bare.mp4")
            XCTAssertEqual(bare.status, .notFound)
            XCTAssertEqual(try bare.error(), "actions/bare.mp4 has no keypoint file in \(self.keypoints.path): run handpose extract on the clips' folder")
            let garbage = try await c.request("/api/keypoints?clip=actions/pinch_0.mp4")
            XCTAssertEqual(garbage.status, .unprocessableContent)
            XCTAssertTrue(try garbage.error().hasPrefix("the keypoint file cannot be read: "), garbage.text)
            XCTAssertTrue(try garbage.error().hasSuffix("; run handpose extract again for this clip"), garbage.text)
            let r1 = try await c.request("/api/clips")
            let list = try XCTUnwrap(try r1.object()["clips"] as? [[String: Any]])
            let row = try XCTUnwrap(list.first { $0["path"] as? String == "actions/bare.mp4" })
            XCTAssertEqual(row["keypoints"] as? Bool, false)
            XCTAssertTrue(row["frames"] is NSNull, "figures null without a keypoint file")
            XCTAssertEqual(row["labels"] as? [String], [])
        }
    }

    func testWithoutAnAnnotationFile() async throws {
        try await serve(try server(withAnnotations: false)) { c in
            let list = try await c.request("/api/clips").object()
            XCTAssertNil(list["annotations"], "no annotations key without an annotation file")
            XCTAssertEqual(list["classes"] as? [String], [])
        }
    }
}
