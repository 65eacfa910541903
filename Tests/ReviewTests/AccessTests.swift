import Foundation
import HTTPTypes
import HummingbirdTesting
import Review
import XCTest

/// The token on every request, nothing served from outside the root or the keypoint folder, and the
/// headers every answer carries.
final class AccessTests: ReviewTestCase, @unchecked Sendable {
    let addresses = ["/", "/static/review.js", "/static/api.js", "/api/clips", "/api/annotations", "/api/keypoints?clip=actions/grab_0.mp4",
                     "/media/actions/grab_0.mp4", "/nothing"]

    func testTheTokenIsRequiredEverywhere() async throws {
        try await serve { c in
            for path in self.addresses {
                let none = try await c.request(path, token: nil)
                XCTAssertEqual(none.status, .unauthorized, path)
                XCTAssertEqual(none.text, "{\"error\":\"this server needs its token: open the address `handpose review` printed, token included\"}")
                XCTAssertEqual(none.fields, ["content-type: application/json", "content-length: \(none.body.readableBytes)"] + safetyHeaders, path)
                // One character changed.
                let wrong = try await c.request(path, token: "1" + Self.token.dropFirst())
                XCTAssertEqual(wrong.status, .forbidden, path)
                XCTAssertEqual(wrong.text, "{\"error\":\"wrong token\"}")
                let r1 = try await c.request(path, token: Self.token + "0")
                XCTAssertEqual(r1.status, .forbidden, "longer: \(path)")
                let r2 = try await c.request(path, token: "")
                XCTAssertEqual(r2.status, .forbidden, "empty: \(path)")
            }
            let r3 = try await c.request("/?token=\(Self.token)", token: nil)
            XCTAssertEqual(r3.status, .ok, "the printed address works as it is")
            let r4 = try await c.request("/media/actions/grab_0.mp4?token=\(Self.token)", token: nil)
            XCTAssertEqual(r4.status, .ok, "media URLs carry it in their query")
            let r5 = try await c.request("/api/annotations", .put, token: nil, body: "{}")
            XCTAssertEqual(r5.status, .unauthorized, "no save without the token")
            let r6 = try await c.request("/api/annotations", .put, token: nil, body: "{}")
            XCTAssertEqual(r6.text.contains("\"error\""), true)
        }
    }

    func testEveryAnswerCarriesTheSafetyHeaders() async throws {
        try await serve { c in
            for (path, status) in [("/", HTTPResponse.Status.ok), ("/static/review.js", .ok), ("/api/clips", .ok), ("/media/actions/grab_0.mp4", .ok),
                                   ("/nothing", .notFound), ("/media/actions/none.mp4", .notFound)] {
                let reply = try await c.request(path)
                XCTAssertEqual(reply.status, status, path)
                XCTAssertEqual(Array(reply.fields.suffix(4)), safetyHeaders, path)
            }
        }
    }

    func testEveryErrorHasAJSONBody() async throws {
        try await serve { c in
            for (path, method, status) in [("/nothing", HTTPRequest.Method.get, HTTPResponse.Status.notFound), ("/api/clips", .post, .notFound),
                                           ("/static/other.js", .get, .notFound), ("/api/keypoints", .get, .badRequest), ("/media/actions/none.mp4", .get, .notFound)] {
                let reply = try await c.request(path, method)
                XCTAssertEqual(reply.status, status, "\(method) \(path)")
                XCTAssertEqual(reply.fields, ["content-type: application/json", "content-length: \(reply.body.readableBytes)"] + safetyHeaders, path)
                XCTAssertFalse(try reply.error().isEmpty)
            }
            let unknown = try await c.request("/nothing")
            XCTAssertEqual(unknown.text, "{\"error\":\"GET /nothing: no such address; the page's addresses are /, /static/..., /api/clips, /api/keypoints, " +
                           "/media/... and /api/annotations (Sources/Review/API.md)\"}")
        }
    }

    func testNothingOutsideTheFoldersIsServed() async throws {
        let outside = dir.appendingPathComponent("secret.mp4")
        try FileManager.default.copyItem(at: root.appendingPathComponent("actions/grab_0.mp4"), to: outside)
        try FileManager.default.createSymbolicLink(at: root.appendingPathComponent("link.mp4"), withDestinationURL: outside)
        try FileManager.default.createSymbolicLink(at: root.appendingPathComponent("elsewhere"), withDestinationURL: dir)
        let size = try Data(contentsOf: outside).count
        let malformed = ["/media/../secret.mp4", "/media/%2e%2e/secret.mp4", "/media/actions/../../secret.mp4", "/media/" + outside.path,
                         "/media/%2F" + outside.path.dropFirst(), "/media/./actions/grab_0.mp4", "/api/keypoints?clip=../secret.mp4",
                         "/api/keypoints?clip=" + outside.path]
        let linked = ["/media/link.mp4", "/media/elsewhere/secret.mp4", "/api/keypoints?clip=link.mp4"]
        try await serve { c in
            for path in malformed + linked {
                let reply = try await c.request(path)
                XCTAssertTrue([.forbidden, .notFound].contains(reply.status), "\(path): \(reply.status)")
                XCTAssertNotEqual(reply.body.readableBytes, size, "\(path) served the file outside the root")
                XCTAssertFalse(try reply.error().isEmpty)
            }
            for path in malformed where path.hasPrefix("/media/") && !path.contains("%2F") {
                let r7 = try await c.request(path)
                XCTAssertEqual(r7.status, .forbidden, path)
            }
            let out = try await c.request("/media/link.mp4")
            XCTAssertEqual(out.status, .forbidden)
            XCTAssertEqual(out.text, "{\"error\":\"link.mp4: leads outside the folder (a symbolic link out of it)\"}")
            let dots = try await c.request("/media/../secret.mp4")
            XCTAssertEqual(dots.text, "{\"error\":\"../secret.mp4: not a path inside the folder (absolute, '..', '.' or an empty part)\"}")
            let r8 = try await c.request("/media/actions/grab_0.mp4")
            XCTAssertEqual(r8.status, .ok)
            let missing = try await c.request("/media/actions/none.mp4")
            XCTAssertEqual(missing.status, .notFound)
            XCTAssertEqual(missing.text, "{\"error\":\"actions/none.mp4: no such file\"}")
            let r9 = try await c.request("/media/annotations.csv")
            XCTAssertEqual(r9.status, .unsupportedMediaType, "a file that is no clip is refused, not attempted")
            let r10 = try await c.request("/static/../annotations.csv")
            XCTAssertEqual(r10.status, .notFound)
            let r11 = try await c.request("/media/%ff%fe.mp4")
            XCTAssertEqual(r11.status, .badRequest, "not percent-encoded UTF-8")
        }
    }

    func testKeypointLinksOutOfTheirFolderAreRefused() async throws {
        let kp = keypoints.appendingPathComponent("actions/grab_0.mp4.hands.json"), outside = dir.appendingPathComponent("secret.hands.json")
        try FileManager.default.moveItem(at: kp, to: outside)
        try FileManager.default.createSymbolicLink(at: kp, withDestinationURL: outside)
        try await serve { c in
            let reply = try await c.request("/api/keypoints?clip=actions/grab_0.mp4")
            XCTAssertEqual(reply.status, .forbidden)
            XCTAssertTrue(try reply.error().contains("outside"))
            let r12 = try await c.request("/api/clips")
            let clips = try XCTUnwrap(try r12.object()["clips"] as? [[String: Any]])
            XCTAssertEqual(clips.first { $0["path"] as? String == "actions/grab_0.mp4" }?["keypoints"] as? Bool, false, "its figures not read either")
            let r13 = try await c.request("/api/keypoints?clip=actions/pinch_0.mp4")
            XCTAssertEqual(r13.status, .ok)
        }
    }

    func testSpecialFilesAreRefusedNeverWaitedOn() async throws {
        XCTAssertEqual(mkfifo(root.appendingPathComponent("actions/pipe.mp4").path, 0o644), 0)
        let kp = keypoints.appendingPathComponent("actions/grab_0.mp4.hands.json")
        try FileManager.default.removeItem(at: kp)
        XCTAssertEqual(mkfifo(kp.path, 0o644), 0)
        try await serve { c in
            let clip = try await c.request("/media/actions/pipe.mp4")
            XCTAssertEqual(clip.status, .unsupportedMediaType)
            XCTAssertEqual(clip.text, "{\"error\":\"actions/pipe.mp4 is a FIFO (named pipe), not a regular file: it is not read (reading it could wait forever); put the real file there\"}")
            let hands = try await c.request("/api/keypoints?clip=actions/grab_0.mp4")
            XCTAssertEqual(hands.status, .unsupportedMediaType)
            XCTAssertTrue(try hands.error().contains("FIFO"))
            let list = try await c.request("/api/clips")
            XCTAssertEqual(list.status, .ok)
            let clips = try XCTUnwrap(try list.object()["clips"] as? [[String: Any]])
            XCTAssertEqual(clips.compactMap { $0["path"] as? String }.sorted(), ["actions/grab_0.mp4", "actions/pinch_0.mp4"], "a FIFO is not listed")
        }
    }
}
