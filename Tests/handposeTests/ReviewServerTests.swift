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

/// `handpose review` as a user runs it, over a socket with curl (--path-as-is, so that paths reach the
/// server as written): one smoke test of the served HTTP (the page with its token and modules, the clip
/// list, a byte range, a save, Ctrl-C), and what the command says about its flags. The HTTP contract
/// itself (every status, header and body) is ReviewTests', in process.
final class ReviewServerTests: XCTestCase {
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

    func testTheServerAnswersOverHTTP() throws {
        let t = server.token
        // Refused without the token, with a JSON body and the safety headers, as a browser gets it.
        let (refused, refusedHead, refusal) = try curl("/api/clips", token: nil)
        XCTAssertEqual(refused, 401)
        XCTAssertFalse(try errorText(refusal).isEmpty)
        XCTAssertTrue(refusedHead.lowercased().contains("content-security-policy: default-src 'self'"), refusedHead)
        // The printed address works as it is; the page's own requests carry the token.
        let (status, head, page) = try curl(server.address.path + "?" + (server.address.query ?? ""), token: nil)
        XCTAssertEqual(status, 200)
        XCTAssertTrue(head.lowercased().contains("content-type: text/html; charset=utf-8"), head)
        XCTAssertTrue(String(decoding: page, as: UTF8.self).contains("review.js?token=\(t)"))
        // The page's scripts are modules: served as JavaScript, each import with the token.
        let (js, jsHead, script) = try curl("/static/review.js?token=\(t)", token: nil)
        XCTAssertEqual(js, 200)
        XCTAssertTrue(jsHead.lowercased().contains("content-type: text/javascript; charset=utf-8"), jsHead)
        XCTAssertFalse(String(decoding: script, as: UTF8.self).contains("{{TOKEN}}"))

        let clips = try XCTUnwrap(try json(try curl("/api/clips", token: t).2)["clips"] as? [[String: Any]])
        XCTAssertEqual(clips.compactMap { $0["path"] as? String }.sorted(), ["actions/grab_0.mp4", "actions/pinch_0.mp4"])
        XCTAssertEqual(clips.first { $0["path"] as? String == "actions/grab_0.mp4" }?["frames"] as? Int, 30, "extract's keypoint file read")
        let whole = try Data(contentsOf: root.appendingPathComponent("actions/grab_0.mp4"))
        let (partial, rangeHead, part) = try curl("/media/actions/grab_0.mp4", token: t, headers: ["Range: bytes=100-199"])
        XCTAssertEqual(partial, 206)
        XCTAssertEqual(part, whole[100..<200])
        XCTAssertTrue(rangeHead.lowercased().contains("content-range: bytes 100-199/\(whole.count)"), rangeHead)
        XCTAssertEqual(try curl("/media/../secret.mp4", token: t).0, 403, "a path out of the root, as written")

        let version = try XCTUnwrap(try json(try curl("/api/annotations", token: t).2)["version"] as? String)
        let body = "{\"version\": \"\(version)\", \"segments\": [{\"video\": \"actions/grab_0.mp4\", \"label\": \"grab\", \"start\": 0.25, \"end\": 1.5}," +
            " {\"video\": \"actions/pinch_0.mp4\", \"label\": \"pinch\", \"start\": 0.5, \"end\": 2.0}]}"
        let (saved, _, reply) = try curl("/api/annotations", token: t, method: "PUT", body: body)
        XCTAssertEqual(saved, 200, String(decoding: reply, as: UTF8.self))
        XCTAssertEqual(try String(contentsOf: csv, encoding: .utf8), "video,label,start,end\nactions/grab_0.mp4,grab,0.25,1.5\nactions/pinch_0.mp4,pinch,0.5,2.0\n")
        let (code, out) = try ToolRunner.run(["validate", csv.path])
        XCTAssertEqual(code, 0, "validate accepts the file review saved:\n\(out)")
        XCTAssertEqual(server.stop(), 0, "Ctrl-C stops it cleanly")
        server = nil
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

    /// The `error` sentence of a JSON error body (failing the test when the body is not one).
    func errorText(_ data: Data, _ context: String = "") throws -> String {
        let body = try XCTUnwrap(try? JSONSerialization.jsonObject(with: data) as? [String: Any], "not a JSON object: \(String(decoding: data, as: UTF8.self)) \(context)")
        return try XCTUnwrap(body["error"] as? String, "no error sentence: \(body) \(context)")
    }
}
