import Foundation
import Synchronization
import VideoIO
import XCTest

/// A running `handpose review` in the background, on a free port, with its output in a file.
final class ReviewProcess {
    let pid: pid_t
    let log: URL
    let address: URL
    var base: String { "http://\(address.host!):\(address.port!)" }
    var token: String { URLComponents(url: address, resolvingAgainstBaseURL: false)!.queryItems!.first { $0.name == "token" }!.value! }

    init(_ arguments: [String]) throws {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("handpose")
        log = FileManager.default.temporaryDirectory.appendingPathComponent("review-\(UUID().uuidString).log")
        let pid = try ToolRunner.launch([binary.path, "review"] + arguments + ["--port", "0"], log: log)
        self.pid = pid
        // The address it prints once listening.
        var found: URL?
        for _ in 0..<600 {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("handpose review: open ") }) {
                found = URL(string: String(line.dropFirst("handpose review: open ".count)))
                break
            }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid { throw NSError(domain: "review", code: 1, userInfo: [NSLocalizedDescriptionKey: "review exited: \(text)"]) }
            usleep(100_000)
        }
        guard let found else { kill(pid, SIGKILL); throw NSError(domain: "review", code: 2, userInfo: [NSLocalizedDescriptionKey: "review printed no address"]) }
        address = found
    }

    /// Stops it with SIGINT, as Ctrl-C does; its exit code.
    @discardableResult
    func stop() -> Int32 {
        kill(pid, SIGINT)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        try? FileManager.default.removeItem(at: log)
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
}

/// `handpose review` over HTTP, without a browser (curl, with --path-as-is so that `..` reaches the
/// server as written): the token on every request, nothing served from outside the root or the
/// keypoint folder, byte ranges for seeking, saves that are whole or refused, and clips a browser
/// cannot play converted once to H.264.
/// Unchecked: its two concurrent saves read `dir` and `server`, set once in setUp, and write only their own slot.
final class ReviewServerTests: XCTestCase, @unchecked Sendable {
    var dir: URL!
    var root: URL { dir.appendingPathComponent("clips") }
    var keypoints: URL { dir.appendingPathComponent("kp") }
    var csv: URL { root.appendingPathComponent("annotations.csv") }
    var server: ReviewProcess!

    override func setUpWithError() throws {
        _ = try ToolRunner.models()
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("review-\(UUID().uuidString)")
        let samples = ToolRunner.root.appendingPathComponent("Samples/actions")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("actions"), withIntermediateDirectories: true)
        for name in ["grab_0.mp4", "pinch_0.mp4"] {
            try FileManager.default.copyItem(at: samples.appendingPathComponent(name), to: root.appendingPathComponent("actions/\(name)"))
        }
        try "video,label,start,end\nactions/grab_0.mp4,grab,0.0,1.5\nactions/pinch_0.mp4,pinch,0.5,2.0\n".write(to: csv, atomically: true, encoding: .utf8)
        let (code, out) = try ToolRunner.run(["extract", root.path, "-r", "-o", keypoints.path, "-q"])
        XCTAssertEqual(code, 0, out)
        server = try ReviewProcess([root.path, "--keypoints", keypoints.path, "--annotations", csv.path])
    }

    override func tearDown() {
        server?.stop()
        if let dir { try? FileManager.default.removeItem(at: dir) }
    }

    /// Status, headers and body of a request made with curl.
    func curl(_ path: String, token: String?, method: String = "GET", body: String? = nil, headers: [String] = []) throws -> (Int, String, Data) {
        let out = dir.appendingPathComponent("body-\(UUID().uuidString)")
        var args = ["-s", "--path-as-is", "-o", out.path, "-D", "-", "-X", method, server.base + path]
        if let token { args += ["-H", "X-Handpose-Token: \(token)"] }
        for h in headers { args += ["-H", h] }
        if let body { args += ["-H", "Content-Type: application/json", "--data-binary", body] }
        let (code, head) = try ToolRunner.process("/usr/bin/curl", args)
        XCTAssertEqual(code, 0, head)
        let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? -1
        let data = (try? Data(contentsOf: out)) ?? Data()
        try? FileManager.default.removeItem(at: out)
        return (status, head, data)
    }

    func json(_ data: Data) throws -> [String: Any] { try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any]) }

    func testTheTokenIsRequiredEverywhere() throws {
        for path in ["/", "/static/review.js", "/api/clips", "/api/annotations", "/api/keypoints?clip=actions/grab_0.mp4", "/media/actions/grab_0.mp4", "/nothing"] {
            XCTAssertEqual(try curl(path, token: nil).0, 401, path)
            // One character changed (a token starting with 0 gets a 1 there).
            let wrong = (server.token.hasPrefix("0") ? "1" : "0") + server.token.dropFirst()
            XCTAssertEqual(try curl(path, token: wrong).0, 403, path)
        }
        XCTAssertEqual(try curl("/?token=\(server.token)", token: nil).0, 200, "the printed address works as it is")
        let (status, head, page) = try curl("/", token: server.token)
        XCTAssertEqual(status, 200)
        XCTAssertTrue(String(decoding: page, as: UTF8.self).contains("review.js?token=\(server.token)"), "the page's own requests carry the token")
        XCTAssertTrue(head.lowercased().contains("content-security-policy: default-src 'self'"), head)
        XCTAssertEqual(try curl("/api/annotations", token: nil, method: "PUT", body: "{}").0, 401, "no save without the token")
    }

    func testNothingOutsideTheFoldersIsServed() throws {
        let outside = dir.appendingPathComponent("secret.mp4")
        try FileManager.default.copyItem(at: root.appendingPathComponent("actions/grab_0.mp4"), to: outside)
        try FileManager.default.createSymbolicLink(at: root.appendingPathComponent("link.mp4"), withDestinationURL: outside)
        try FileManager.default.createSymbolicLink(at: root.appendingPathComponent("elsewhere"), withDestinationURL: dir)
        let t = server.token
        for path in ["/media/../secret.mp4", "/media/%2e%2e/secret.mp4", "/media/actions/../../secret.mp4", "/media/" + outside.path,
                     "/media/%2F" + outside.path.dropFirst(), "/media/link.mp4", "/media/elsewhere/secret.mp4", "/media/./actions/grab_0.mp4",
                     "/api/keypoints?clip=../secret.mp4", "/api/keypoints?clip=" + outside.path, "/api/keypoints?clip=link.mp4"] {
            let (status, _, body) = try curl(path, token: t)
            XCTAssertTrue([403, 404].contains(status), "\(path): \(status)")
            XCTAssertNotEqual(body.count, try Data(contentsOf: outside).count, "\(path) served the file outside the root")
        }
        XCTAssertEqual(try curl("/media/actions/grab_0.mp4", token: t).0, 200)
        XCTAssertEqual(try curl("/media/actions/none.mp4", token: t).0, 404)
        XCTAssertEqual(try curl("/media/annotations.csv", token: t).0, 415, "a file that is no clip is refused, not attempted")
        XCTAssertEqual(try curl("/static/../annotations.csv", token: t).0, 404)
    }

    func testRangesAndTheClipList() throws {
        let t = server.token
        let whole = try Data(contentsOf: root.appendingPathComponent("actions/grab_0.mp4"))
        let (status, head, part) = try curl("/media/actions/grab_0.mp4", token: t, headers: ["Range: bytes=100-199"])
        XCTAssertEqual(status, 206)
        XCTAssertEqual(part, whole[100..<200])
        XCTAssertTrue(head.lowercased().contains("content-range: bytes 100-199/\(whole.count)"), head)
        XCTAssertEqual(try curl("/media/actions/grab_0.mp4", token: t, headers: ["Range: bytes=-10"]).2, whole.suffix(10))
        XCTAssertEqual(try curl("/media/actions/grab_0.mp4", token: t, headers: ["Range: bytes=\(whole.count)-"]).0, 416)

        let list = try json(try curl("/api/clips", token: t).2)
        let clips = try XCTUnwrap(list["clips"] as? [[String: Any]])
        XCTAssertEqual(clips.compactMap { $0["path"] as? String }.sorted(), ["actions/grab_0.mp4", "actions/pinch_0.mp4"])
        let grab = try XCTUnwrap(clips.first { $0["path"] as? String == "actions/grab_0.mp4" })
        XCTAssertEqual(grab["labels"] as? [String], ["grab"])
        XCTAssertEqual(grab["frames"] as? Int, 30)
        // The list's figures from the clip's own keypoint frames.
        let hands = try json(try curl("/api/keypoints?clip=actions/grab_0.mp4", token: t).2)
        let frames = try XCTUnwrap(hands["frames"] as? [[String: Any]])
        XCTAssertEqual(frames.count, 30)
        let withHand = frames.filter { ($0["hands"] as? [Any])?.isEmpty == false }.count
        XCTAssertEqual(grab["framesWithHand"] as? Int, withHand)
        XCTAssertEqual(try XCTUnwrap(grab["detectionRate"] as? Double), Double(withHand) / 30, accuracy: 1e-9)
        XCTAssertFalse(frames.contains { ($0["hands"] as? [[String: Any]])?.contains { $0["origin"] != nil } == true }, "plain hands carry no origin")

        // A hand extract --complete interpolated reaches the page marked as such (drawn dashed there).
        let file = keypoints.appendingPathComponent("actions/pinch_0.mp4.hands.json")
        var kp = try json(try Data(contentsOf: file))
        var kpFrames = try XCTUnwrap(kp["frames"] as? [[String: Any]])
        let filled = try XCTUnwrap(kpFrames.firstIndex { ($0["hands"] as? [Any])?.isEmpty == false })
        var kpHands = kpFrames[filled]["hands"] as! [[String: Any]]
        kpHands[0]["origin"] = "interpolated"
        kpFrames[filled]["hands"] = kpHands
        kp["frames"] = kpFrames
        try JSONSerialization.data(withJSONObject: kp).write(to: file)
        let served = try XCTUnwrap(json(try curl("/api/keypoints?clip=actions/pinch_0.mp4", token: t).2)["frames"] as? [[String: Any]])
        XCTAssertEqual((served[filled]["hands"] as? [[String: Any]])?.first?["origin"] as? String, "interpolated")
        XCTAssertNil((served[filled + 1]["hands"] as? [[String: Any]])?.first?["origin"])
        XCTAssertNil(try json(try curl("/api/keypoints?clip=actions/pinch_0.mp4", token: t).2)["bodyBones"], "no bodies looked for, no body bones")

        // A file of extract --body: its bodies reach the page, x and y of each landmark with its visibility.
        kp["schema"] = "handpose/keypoints@2"
        let landmarks = (0..<33).map { j in [0.3 + 0.01 * Double(j), 0.6, 0.0] }
        kp["frames"] = (kp["frames"] as! [[String: Any]]).enumerated().map { k, frame -> [String: Any] in
            var f = frame
            f["bodies"] = k == filled ? [["landmarks": landmarks, "visibility": Array(repeating: 0.8, count: 33),
                                          "presence": Array(repeating: 0.9, count: 33), "track": 0]] : []
            return f
        }
        try JSONSerialization.data(withJSONObject: kp).write(to: file)
        let withBodies = try json(try curl("/api/keypoints?clip=actions/pinch_0.mp4", token: t).2)
        XCTAssertEqual((withBodies["bodyBones"] as? [[Int]])?.count, 35)
        let bodyFrames = try XCTUnwrap(withBodies["frames"] as? [[String: Any]])
        let body = try XCTUnwrap((bodyFrames[filled]["bodies"] as? [[String: Any]])?.first)
        let last = try XCTUnwrap((body["landmarks"] as? [[Double]])?[32])
        XCTAssertEqual(last.count, 2)
        XCTAssertEqual(last[0], 0.62, accuracy: 1e-6)
        XCTAssertEqual(last[1], 0.6, accuracy: 1e-6)
        XCTAssertEqual((body["visibility"] as? [Double])?.count, 33)
        XCTAssertEqual((bodyFrames[filled + 1]["bodies"] as? [Any])?.count, 0)
    }

    func testSavesAreWholeOrRefused() throws {
        let t = server.token
        let original = try Data(contentsOf: csv)
        let state = try json(try curl("/api/annotations", token: t).2)
        let version = try XCTUnwrap(state["version"] as? String)
        XCTAssertEqual(state["editable"] as? Bool, true)
        // Malformed bodies and unwritable segments: 4xx, the file untouched.
        for body in ["", "not json", "{\"version\": \"\(version)\"}", "{\"version\": \"\(version)\", \"segments\": [{\"video\": 3}]}",
                     "[1, 2]", "{\"version\": \"\(version)\", \"segments\": [{\"video\": \"actions/grab_0.mp4\", \"label\": \"x\", \"start\": \"soon\"}]}"] {
            XCTAssertEqual(try curl("/api/annotations", token: t, method: "PUT", body: body).0, 400, body)
        }
        for bad in ["{\"video\": \"actions/grab_0.mp4\", \"label\": \" \", \"start\": 0, \"end\": 1}",
                    "{\"video\": \"actions/grab_0.mp4\", \"label\": \"grab\", \"start\": 1, \"end\": 0.5}",
                    "{\"video\": \"../secret.mp4\", \"label\": \"grab\", \"start\": 0, \"end\": 1}",
                    "{\"video\": \"actions/none.mp4\", \"label\": \"grab\", \"start\": 0, \"end\": 1}",
                    "{\"video\": \"actions/grab_0.mp4\", \"label\": \"gr\\u0001ab\", \"start\": 0, \"end\": 1}",
                    // A start without an end where the other rows give both: the file would not read back.
                    "{\"video\": \"actions/pinch_0.mp4\", \"label\": \"pinch\", \"start\": 0.5, \"end\": 2.0}, {\"video\": \"actions/grab_0.mp4\", \"label\": \"grab\", \"start\": 0.5, \"end\": null}"] {
            let (status, _, body) = try curl("/api/annotations", token: t, method: "PUT", body: "{\"version\": \"\(version)\", \"segments\": [\(bad)]}")
            XCTAssertEqual(status, 422, bad)
            XCTAssertFalse(((try json(body))["diagnostics"] as? [Any] ?? []).isEmpty)
        }
        XCTAssertEqual(try Data(contentsOf: csv), original)

        // Two saves naming the same version at once: one is written, the other refused; the file is whole.
        let bodies = (1...2).map { k in
            "{\"version\": \"\(version)\", \"segments\": [{\"video\": \"actions/grab_0.mp4\", \"label\": \"grab\", \"start\": 0.\(k), \"end\": 1.5}," +
                " {\"video\": \"actions/pinch_0.mp4\", \"label\": \"pinch\", \"start\": 0.5, \"end\": 2.0}]}"
        }
        let saved = Mutex([Int](repeating: 0, count: 2))
        DispatchQueue.concurrentPerform(iterations: 2) { k in
            let status = (try? curl("/api/annotations", token: t, method: "PUT", body: bodies[k]).0) ?? -1
            saved.withLock { $0[k] = status }
        }
        let statuses = saved.withLock { $0 }
        XCTAssertEqual(statuses.sorted(), [200, 409])
        let winner = statuses.firstIndex(of: 200)! + 1
        XCTAssertEqual(try String(contentsOf: csv, encoding: .utf8),
                       "video,label,start,end\nactions/grab_0.mp4,grab,0.\(winner),1.5\nactions/pinch_0.mp4,pinch,0.5,2.0\n")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: csv.path + ".bak")), original, "the previous version kept beside it")
        let (code, out) = try ToolRunner.run(["validate", csv.path])
        XCTAssertEqual(code, 0, out)

        // A file changed on disk since the page loaded it is not overwritten.
        let now = try json(try curl("/api/annotations", token: t).2)["version"] as! String
        try "video,label,start,end\nactions/grab_0.mp4,grab,0.0,1.0\n".write(to: csv, atomically: true, encoding: .utf8)
        let (status, _, reply) = try curl("/api/annotations", token: t, method: "PUT", body: bodies[0].replacingOccurrences(of: version, with: now))
        XCTAssertEqual(status, 409)
        XCTAssertNotEqual(try json(reply)["version"] as? String, now)
        XCTAssertEqual(try String(contentsOf: csv, encoding: .utf8), "video,label,start,end\nactions/grab_0.mp4,grab,0.0,1.0\n")
    }

    func testAClipABrowserCannotPlayIsConvertedOnce() throws {
        // An MJPEG AVI, as many cameras write.
        let avi = root.appendingPathComponent("actions/cam.avi")
        let (code, out) = try ToolRunner.process("/usr/bin/ffmpeg", ["-v", "error", "-i", root.appendingPathComponent("actions/grab_0.mp4").path,
                                                                    "-c:v", "mjpeg", "-q:v", "3", avi.path])
        XCTAssertEqual(code, 0, out)
        let (status, head, body) = try curl("/media/actions/cam.avi", token: server.token)
        XCTAssertEqual(status, 200)
        XCTAssertTrue(head.lowercased().contains("content-type: video/mp4"), head)
        let cached = keypoints.appendingPathComponent(".review-cache/actions/cam.avi.mp4")
        XCTAssertEqual(try Data(contentsOf: cached), body)
        let stamp = try cached.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate
        _ = try curl("/media/actions/cam.avi", token: server.token)
        XCTAssertEqual(try cached.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate, stamp, "made once")
        // H.264, and every frame at the time the source gives it (the keypoint file's clock).
        let converted = try VideoReader(url: cached), source = try VideoReader(url: avi)
        XCTAssertEqual(converted.info.codec, "h264")
        var times: [[Double]] = [[], []]
        for (k, r) in [converted, source].enumerated() { while let f = try r.nextFrame() { times[k].append(f.time) } }
        XCTAssertEqual(times[0].count, 30)
        for (a, b) in zip(times[0], times[1]) { XCTAssertEqual(a, b, accuracy: 0.001) }
    }
    /// An ELAN file: its --tier rewritten in place by a save, the other tier and the header kept, the
    /// media's TIME_ORIGIN taken off the page's clip times; a Label Studio export is shown, not saved.
    func testAnELANTierIsSavedInPlace() throws {
        server.stop()
        let eaf = root.appendingPathComponent("actions/grab_0.eaf")
        try """
        <?xml version="1.0" encoding="UTF-8"?>
        <ANNOTATION_DOCUMENT AUTHOR="" DATE="2026-01-01T00:00:00+00:00" FORMAT="3.0" VERSION="3.0">
            <HEADER MEDIA_FILE="" TIME_UNITS="milliseconds">
                <MEDIA_DESCRIPTOR MEDIA_URL="file:///elsewhere/grab_0.mp4" MIME_TYPE="video/mp4" RELATIVE_MEDIA_URL="./grab_0.mp4" TIME_ORIGIN="200"/>
                <PROPERTY NAME="lastUsedAnnotationId">2</PROPERTY>
            </HEADER>
            <TIME_ORDER>
                <TIME_SLOT TIME_SLOT_ID="ts1" TIME_VALUE="0"/>
                <TIME_SLOT TIME_SLOT_ID="ts2" TIME_VALUE="800"/>
                <TIME_SLOT TIME_SLOT_ID="ts3" TIME_VALUE="1000"/>
                <TIME_SLOT TIME_SLOT_ID="ts4" TIME_VALUE="1500"/>
            </TIME_ORDER>
            <TIER LINGUISTIC_TYPE_REF="gesture" TIER_ID="RH">
                <ANNOTATION>
                    <ALIGNABLE_ANNOTATION ANNOTATION_ID="a1" TIME_SLOT_REF1="ts1" TIME_SLOT_REF2="ts2">
                        <ANNOTATION_VALUE>grab</ANNOTATION_VALUE>
                    </ALIGNABLE_ANNOTATION>
                </ANNOTATION>
            </TIER>
            <TIER LINGUISTIC_TYPE_REF="gesture" TIER_ID="LH">
                <ANNOTATION>
                    <ALIGNABLE_ANNOTATION ANNOTATION_ID="a2" TIME_SLOT_REF1="ts3" TIME_SLOT_REF2="ts4">
                        <ANNOTATION_VALUE>rest</ANNOTATION_VALUE>
                    </ALIGNABLE_ANNOTATION>
                </ANNOTATION>
            </TIER>
            <LINGUISTIC_TYPE GRAPHIC_REFERENCES="false" LINGUISTIC_TYPE_ID="gesture" TIME_ALIGNABLE="true"/>
        </ANNOTATION_DOCUMENT>

        """.write(to: eaf, atomically: true, encoding: .utf8)
        server = try ReviewProcess([root.path, "--keypoints", keypoints.path, "--annotations", eaf.path, "--tier", "RH"])
        let t = server.token
        let state = try json(try curl("/api/annotations", token: t).2)
        XCTAssertEqual(state["editable"] as? Bool, true, "\(state)")
        let rows = try XCTUnwrap(state["segments"] as? [[String: Any]])
        XCTAssertEqual(rows.count, 1)
        XCTAssertEqual(rows[0]["clip"] as? String, "actions/grab_0.mp4")
        XCTAssertEqual(rows[0]["start"] as? Double, 0.2, "TIME_ORIGIN added")
        let version = try XCTUnwrap(state["version"] as? String), video = try XCTUnwrap(rows[0]["video"] as? String)
        let body = "{\"version\": \"\(version)\", \"segments\": [{\"video\": \"\(video)\", \"label\": \"grab\", \"start\": 0.5, \"end\": 1.25}," +
            " {\"video\": \"actions/grab_0.mp4\", \"label\": \"point\", \"start\": 1.5, \"end\": 1.9}]}"
        let (status, _, reply) = try curl("/api/annotations", token: t, method: "PUT", body: body)
        XCTAssertEqual(status, 200, String(decoding: reply, as: UTF8.self))
        let text = try String(contentsOf: eaf, encoding: .utf8)
        XCTAssertTrue(text.contains("TIME_VALUE=\"300\"") && text.contains("TIME_VALUE=\"1050\""), "clip times less the origin:\n\(text)")
        XCTAssertTrue(text.contains("<ANNOTATION_VALUE>rest</ANNOTATION_VALUE>") && text.contains("TIER_ID=\"LH\""), "the other tier kept")
        XCTAssertTrue(text.contains("<PROPERTY NAME=\"lastUsedAnnotationId\">4</PROPERTY>"))
        let (code, out) = try ToolRunner.run(["validate", eaf.path, "--tier", "RH"])
        XCTAssertEqual(code, 0, out)
        let again = try XCTUnwrap(try json(try curl("/api/annotations", token: t).2)["segments"] as? [[String: Any]])
        XCTAssertEqual(again.map { [$0["label"] as! String, "\($0["start"]!)", "\($0["end"]!)"] }, [["grab", "0.5", "1.25"], ["point", "1.5", "1.9"]])
        // With --label-map the labels shown are not the file's: nothing may be saved.
        server.stop()
        server = try ReviewProcess([root.path, "--keypoints", keypoints.path, "--annotations", eaf.path, "--tier", "RH", "--label-map", "grab=take"])
        let mapped = try json(try curl("/api/annotations", token: server.token).2)
        XCTAssertEqual(mapped["editable"] as? Bool, false)
        XCTAssertTrue((mapped["readOnlyReason"] as? String ?? "").contains("--label-map"))
        let mappedBody = "{\"version\": \"\(mapped["version"] as! String)\", \"segments\": []}"
        XCTAssertEqual(try curl("/api/annotations", token: server.token, method: "PUT", body: mappedBody).0, 405)
        server.stop()
        server = try ReviewProcess([root.path, "--keypoints", keypoints.path, "--annotations", eaf.path, "--tier", "RH"])
        let t2 = server.token
        // A segment of another clip does not go into this clip's ELAN file.
        let now = try json(try curl("/api/annotations", token: t2).2)["version"] as! String
        let other = "{\"version\": \"\(now)\", \"segments\": [{\"video\": \"actions/pinch_0.mp4\", \"label\": \"pinch\", \"start\": 0, \"end\": 1}]}"
        XCTAssertEqual(try curl("/api/annotations", token: t2, method: "PUT", body: other).0, 422)
    }

    // Issue #45: hostile input. Each test replays a finding over HTTP and checks the server answers after it.

    /// The `error` sentence of a JSON error body (failing the test when the body is not one).
    func errorText(_ data: Data, _ context: String = "") throws -> String {
        let body = try XCTUnwrap(try? JSONSerialization.jsonObject(with: data) as? [String: Any], "not a JSON object: \(String(decoding: data, as: UTF8.self)) \(context)")
        return try XCTUnwrap(body["error"] as? String, "no error sentence: \(body) \(context)")
    }

    /// A save of the two fixture rows with `segment` in place of the first; its status and body.
    func save(_ segment: String) throws -> (Int, Data) {
        let version = try XCTUnwrap(try json(try curl("/api/annotations", token: server.token).2)["version"] as? String)
        let body = "{\"version\": \"\(version)\", \"segments\": [\(segment), {\"video\": \"actions/pinch_0.mp4\", \"label\": \"pinch\", \"start\": 0.5, \"end\": 2.0}]}"
        let (status, _, reply) = try curl("/api/annotations", token: server.token, method: "PUT", body: body)
        return (status, reply)
    }

    /// The findings' messages of a 422.
    func findings(_ data: Data) throws -> [String] {
        try XCTUnwrap(try json(data)["diagnostics"] as? [[String: Any]]).compactMap { $0["message"] as? String }
    }

    func testTimesOutOfRangeAreRefusedNamingTheField() throws {
        let original = try Data(contentsOf: csv)
        // 9.3e15 s once trapped converting milliseconds to Int64 and killed the server; 1e400 is valid JSON no Double holds.
        for (end, written) in [("9.3e15", "9.3e+15"), ("1e400", "1e400"), ("-1", "-1.0")] {
            let (status, reply) = try save("{\"video\": \"actions/grab_0.mp4\", \"label\": \"grab\", \"start\": 0, \"end\": \(end)}")
            XCTAssertEqual(status, 422, String(decoding: reply, as: UTF8.self))
            let said = try findings(reply)
            XCTAssertTrue(said.contains { $0.hasPrefix("segment 1: end \(written) is out of range") }, "\(said)")
            XCTAssertFalse(try errorText(reply).contains("not valid JSON"))
            XCTAssertEqual(try curl("/api/clips", token: server.token).0, 200, "the server answers after end \(end)")
        }
        let (status, reply) = try save("{\"video\": \"actions/grab_0.mp4\", \"label\": \"grab\", \"start\": 1e16, \"end\": 1e17}")
        XCTAssertEqual(status, 422)
        XCTAssertEqual(try findings(reply).filter { $0.contains("out of range") }.count, 2, "both times named")
        XCTAssertEqual(try Data(contentsOf: csv), original, "nothing written")
        XCTAssertEqual(try save("{\"video\": \"actions/grab_0.mp4\", \"label\": \"grab\", \"start\": 0, \"end\": 10000000}").0, 200, "the range's end is a time")
    }

    func testLabelsFollowTheSharedLabelRule() throws {
        let original = try Data(contentsOf: csv)
        for (label, said) in [(" wave", "begins or ends with white space"), ("wave ", "begins or ends with white space"),
                              ("wa\\u0000ve", "NUL"), ("wa\\nve", "line break"), ("", "empty")] {
            let (status, reply) = try save("{\"video\": \"actions/grab_0.mp4\", \"label\": \"\(label)\", \"start\": 0, \"end\": 1}")
            XCTAssertEqual(status, 422, "\(label): \(String(decoding: reply, as: UTF8.self))")
            let messages = try findings(reply)
            XCTAssertTrue(messages.contains { $0.hasPrefix("segment 1: ") && $0.contains(said) }, "\(label): \(messages)")
        }
        XCTAssertEqual(try Data(contentsOf: csv), original, "' wave' is refused, not saved as 'wave'")
        XCTAssertEqual(try save("{\"video\": \"actions/grab_0.mp4\", \"label\": \"wave\", \"start\": 0, \"end\": 1}").0, 200)
    }

    func testSpecialFilesAreRefusedNeverWaitedOn() throws {
        let t = server.token
        // The annotation file replaced by a FIFO for a moment: every request naming it says so, none waits.
        let aside = dir.appendingPathComponent("annotations.csv.aside")
        try FileManager.default.moveItem(at: csv, to: aside)
        XCTAssertEqual(mkfifo(csv.path, 0o644), 0)
        for (path, method, body) in [("/api/clips", "GET", nil), ("/api/annotations", "GET", nil), ("/api/annotations", "PUT", "{\"version\": \"x\", \"segments\": []}")] {
            let (status, _, reply) = try curl(path, token: t, method: method, body: body)
            XCTAssertEqual(status, 415, "\(method) \(path)")
            let said = try errorText(reply)
            XCTAssertTrue(said.contains(csv.lastPathComponent) && said.contains("FIFO"), said)
        }
        try FileManager.default.removeItem(at: csv)
        try FileManager.default.moveItem(at: aside, to: csv)
        XCTAssertEqual(try curl("/api/clips", token: t).0, 200, "answers again once the file is back")
        XCTAssertEqual(try curl("/api/annotations", token: t).0, 200)

        // A clip and a keypoint file that are FIFOs: refused, named, and the list still answers.
        XCTAssertEqual(mkfifo(root.appendingPathComponent("actions/pipe.mp4").path, 0o644), 0)
        let (clipStatus, _, clipReply) = try curl("/media/actions/pipe.mp4", token: t)
        XCTAssertEqual(clipStatus, 415)
        XCTAssertTrue(try errorText(clipReply).contains("FIFO"))
        let kp = keypoints.appendingPathComponent("actions/grab_0.mp4.hands.json")
        try FileManager.default.removeItem(at: kp)
        XCTAssertEqual(mkfifo(kp.path, 0o644), 0)
        let (kpStatus, _, kpReply) = try curl("/api/keypoints?clip=actions/grab_0.mp4", token: t)
        XCTAssertEqual(kpStatus, 415)
        XCTAssertTrue(try errorText(kpReply).contains("FIFO"))
        let (listStatus, _, list) = try curl("/api/clips", token: t)
        XCTAssertEqual(listStatus, 200)
        let clips = try XCTUnwrap(try json(list)["clips"] as? [[String: Any]])
        XCTAssertEqual(clips.compactMap { $0["path"] as? String }.sorted(), ["actions/grab_0.mp4", "actions/pinch_0.mp4"], "a FIFO is not listed")
        XCTAssertEqual(clips.first { $0["path"] as? String == "actions/grab_0.mp4" }?["keypoints"] as? Bool, false)
    }

    func testSavesKeepTheFilesModeAndOwner() throws {
        let t = server.token
        let owner: UInt32? = geteuid() == 0 ? 1234 : nil
        XCTAssertEqual(chmod(csv.path, 0o600), 0)
        if let owner { XCTAssertEqual(chown(csv.path, owner, owner), 0) }
        XCTAssertEqual(try save("{\"video\": \"actions/grab_0.mp4\", \"label\": \"grab\", \"start\": 0.25, \"end\": 1.5}").0, 200)
        for path in [csv.path, csv.path + ".bak"] {
            var st = stat()
            XCTAssertEqual(stat(path, &st), 0)
            XCTAssertEqual(st.st_mode & 0o7777, 0o600, "\(path) is as private as the file was")
            if let owner {
                XCTAssertEqual(st.st_uid, owner, path)
                XCTAssertEqual(st.st_gid, owner, path)
            }
        }

        // A file made read-only (root too must not replace it), and one whose folder is read-only.
        let cases: [(make: () -> Int32, undo: () -> Int32, said: String)] = [
            ({ chmod(self.csv.path, 0o444) }, { chmod(self.csv.path, 0o644) }, "is read-only"),
            ({ chmod(self.root.path, 0o555) }, { chmod(self.root.path, 0o755) }, "its folder"),
        ]
        for (make, undo, said) in cases {
            XCTAssertEqual(make(), 0)
            defer { _ = undo() }
            let before = try Data(contentsOf: csv)
            var inode = stat()
            stat(csv.path, &inode)
            let state = try json(try curl("/api/annotations", token: t).2)
            XCTAssertEqual(state["editable"] as? Bool, false, said)
            XCTAssertTrue((state["readOnlyReason"] as? String ?? "").contains(said), "\(state["readOnlyReason"] ?? "none")")
            let (status, reply) = try save("{\"video\": \"actions/grab_0.mp4\", \"label\": \"grab\", \"start\": 0.5, \"end\": 1.5}")
            XCTAssertEqual(status, 405)
            XCTAssertTrue(try errorText(reply).contains(said))
            var after = stat()
            stat(csv.path, &after)
            XCTAssertEqual(try Data(contentsOf: csv), before, "not replaced")
            XCTAssertEqual(after.st_ino, inode.st_ino, "the same file, not a new one")
        }
        XCTAssertEqual(try curl("/api/annotations", token: t).0, 200)
    }

    func testKeypointLinksOutOfTheirFolderAreRefused() throws {
        let t = server.token
        let kp = keypoints.appendingPathComponent("actions/grab_0.mp4.hands.json"), outside = dir.appendingPathComponent("secret.hands.json")
        try FileManager.default.moveItem(at: kp, to: outside)
        try FileManager.default.createSymbolicLink(at: kp, withDestinationURL: outside)
        let (status, _, reply) = try curl("/api/keypoints?clip=actions/grab_0.mp4", token: t)
        XCTAssertEqual(status, 403)
        XCTAssertTrue(try errorText(reply).contains("outside"))
        let clips = try XCTUnwrap(try json(try curl("/api/clips", token: t).2)["clips"] as? [[String: Any]])
        XCTAssertEqual(clips.first { $0["path"] as? String == "actions/grab_0.mp4" }?["keypoints"] as? Bool, false, "its figures not read either")
        XCTAssertEqual(try curl("/api/keypoints?clip=actions/pinch_0.mp4", token: t).0, 200)
    }

    func testEveryErrorHasAJSONBody() throws {
        let t = server.token
        for (path, method, status) in [("/nothing", "GET", 404), ("/api/clips", "POST", 404), ("/static/other.js", "GET", 404), ("/api/keypoints", "GET", 400)] {
            let (got, head, reply) = try curl(path, token: t, method: method)
            XCTAssertEqual(got, status, "\(method) \(path)")
            XCTAssertTrue(head.lowercased().contains("content-type: application/json"), head)
            XCTAssertFalse(try errorText(reply, path).isEmpty)
        }
        XCTAssertFalse(try errorText(try curl("/api/clips", token: nil).2).isEmpty, "401 too")
        let version = try XCTUnwrap(try json(try curl("/api/annotations", token: t).2)["version"] as? String)
        // Malformed bodies: said where, in the page's words, never the decoder's.
        for (body, said) in [("not json", "line 1, column 1"), ("{\"version\": \"\(version)\",\n \"segments\": [}", "line 2, column 15"),
                             ("{\"version\": \"\(version)\", \"segments\": [{\"video\": 3, \"label\": \"x\"}]}", "segment 1's video must be text"),
                             ("{\"version\": \"\(version)\", \"segments\": [{\"video\": \"a\", \"label\": \"x\", \"start\": \"soon\"}]}", "segment 1's start must be a number of seconds"),
                             ("{\"version\": \"\(version)\"}", "has no \"segments\""),
                             ("{\"version\": \"\(version)\", \"segments\": [], \"other\": 1e999}", "other is the number 1e999")] {
            let (status, _, reply) = try curl("/api/annotations", token: t, method: "PUT", body: body)
            XCTAssertEqual(status, 400, body)
            let text = try errorText(reply, body)
            XCTAssertTrue(text.contains(said), "\(body): \(text)")
            XCTAssertFalse(text.contains("The given data") || text.contains("CodingKeys") || text.contains("Expected to decode"), text)
        }
        // The annotation file gone: 410 naming it, not a 500 with nothing in it.
        let aside = dir.appendingPathComponent("annotations.csv.aside")
        try FileManager.default.moveItem(at: csv, to: aside)
        for path in ["/api/annotations", "/api/clips"] {
            let (status, _, reply) = try curl(path, token: t)
            XCTAssertEqual(status, 410, path)
            XCTAssertTrue(try errorText(reply).contains(csv.path), path)
        }
        try FileManager.default.moveItem(at: aside, to: csv)
        XCTAssertEqual(try curl("/api/annotations", token: t).0, 200)
    }

    func testRangesFollowRFC9110() throws {
        let t = server.token
        let whole = try Data(contentsOf: root.appendingPathComponent("actions/grab_0.mp4"))
        // Another unit, broken syntax, several ranges, last before first: ignored, the whole clip sent.
        for range in ["items=0-5", "bytes=abc", "bytes=0-1,5-9", "bytes=5-2", "bytes=1-2-3", "bytes=", "bytes=--5"] {
            let (status, head, body) = try curl("/media/actions/grab_0.mp4", token: t, headers: ["Range: \(range)"])
            XCTAssertEqual(status, 200, range)
            XCTAssertEqual(body, whole, range)
            XCTAssertFalse(head.lowercased().contains("content-range"), range)
        }
        // One range: the unit in any case, white space around it, an end past the file clamped.
        for (range, part) in [("BYTES=0-3", whole[0..<4]), ("bytes= 10-19 ", whole[10..<20]), ("bytes=0-99999999999999999999999", whole[...]),
                              ("bytes=\(whole.count - 1)-", whole.suffix(1)), ("bytes=-99999999999999999999", whole[...])] {
            let (status, _, body) = try curl("/media/actions/grab_0.mp4", token: t, headers: ["Range: \(range)"])
            XCTAssertEqual(status, 206, range)
            XCTAssertEqual(body, Data(part), range)
        }
        // Well-formed and wholly past the end: 416, with the size and a JSON body.
        for range in ["bytes=\(whole.count)-", "bytes=99999999999999999999999-", "bytes=-0"] {
            let (status, head, body) = try curl("/media/actions/grab_0.mp4", token: t, headers: ["Range: \(range)"])
            XCTAssertEqual(status, 416, range)
            XCTAssertTrue(head.lowercased().contains("content-range: bytes */\(whole.count)"), head)
            XCTAssertFalse(try errorText(body).isEmpty)
        }
    }

    func testReviewSaysPlainlyWhatItTakes() throws {
        // A port in use, said as such; the server already on it answers still.
        let port = server.address.port!
        let (code, out) = try ToolRunner.run(["review", root.path, "--keypoints", keypoints.path, "--port", "\(port)"])
        XCTAssertNotEqual(code, 0)
        XCTAssertTrue(out.contains("port \(port) is in use: choose another with --port"), out)
        XCTAssertFalse(out.contains("errno"), out)
        XCTAssertEqual(try curl("/api/clips", token: server.token).0, 200)
        for bad in ["70000", "-1"] {
            let (code, out) = try ToolRunner.run(["review", root.path, "--keypoints", keypoints.path, "--port=\(bad)"])
            XCTAssertNotEqual(code, 0)
            XCTAssertTrue(out.contains("--port \(bad) is no port"), out)
        }
        // An annotation file outside ROOT whose paths lead nowhere from its folder: the hint names what review takes.
        server.stop()
        let outside = dir.appendingPathComponent("outside.csv")
        try "video,label,start,end\nactions/grab_0.mp4,grab,0.0,1.5\n".write(to: outside, atomically: true, encoding: .utf8)
        server = try ReviewProcess([root.path, "--keypoints", keypoints.path, "--annotations", outside.path])
        let said = try XCTUnwrap(try json(try curl("/api/annotations", token: server.token).2)["diagnostics"] as? [[String: Any]]).compactMap { $0["message"] as? String }
        XCTAssertFalse(said.isEmpty)
        XCTAssertFalse(said.contains { $0.contains("--root") }, "\(said)")
        XCTAssertTrue(said.contains { $0.contains(dir.path) }, "\(said)")
    }
}
