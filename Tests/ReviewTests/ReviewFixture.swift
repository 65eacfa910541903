import Annotations
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Review
import XCTest

/// A review server on real files in a temporary folder, driven in process (HummingbirdTesting's router
/// framework: the application `handpose review` runs, with no socket): two Samples clips, their truth
/// keypoint files (in the keypoint schema, as extract writes it) and an annotation file naming both.
/// Unchecked Sendable: the requests' closures read `dir`, set once in setUp before any of them runs.
class ReviewTestCase: XCTestCase, @unchecked Sendable {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// The page as it is in the source tree (the folder `make install` copies and the build bundles).
    static let page = repository.appendingPathComponent("Sources/Review/Page")
    static let token = "0123456789abcdef0123456789abcdef"

    var dir: URL!
    var root: URL { dir.appendingPathComponent("clips") }
    var keypoints: URL { dir.appendingPathComponent("kp") }
    var csv: URL { root.appendingPathComponent("annotations.csv") }
    let fixture = "video,label,start,end\nactions/grab_0.mp4,grab,0.0,1.5\nactions/pinch_0.mp4,pinch,0.5,2.0\n"

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("review-tests-\(UUID().uuidString)")
        let samples = Self.repository.appendingPathComponent("Samples/actions")
        for folder in [root, keypoints].map({ $0.appendingPathComponent("actions") }) {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        for name in ["grab_0.mp4", "pinch_0.mp4"] {
            try FileManager.default.copyItem(at: samples.appendingPathComponent(name), to: root.appendingPathComponent("actions/\(name)"))
            try FileManager.default.copyItem(at: samples.appendingPathComponent(name + ".truth.hands.json"),
                                             to: keypoints.appendingPathComponent("actions/\(name).hands.json"))
        }
        try fixture.write(to: csv, atomically: true, encoding: .utf8)
    }

    override func tearDown() {
        if let dir {
            chmod(root.path, 0o755)
            try? FileManager.default.removeItem(at: dir)
        }
    }

    /// The server on the fixture (`annotations` nil: started without --annotations).
    func server(annotations: URL? = nil, withAnnotations: Bool = true, options: AnnotationOptions = AnnotationOptions()) throws -> ReviewServer {
        try ReviewServer(root: root, keypoints: keypoints, annotations: withAnnotations ? (annotations ?? csv) : nil, options: options,
                         token: Self.token, page: Self.page)
    }

    /// Runs `test` against the server's application, in process.
    func serve(_ server: ReviewServer? = nil, _ test: @escaping @Sendable (Client) async throws -> Void) async throws {
        let server = try server ?? self.server()
        try await server.makeApplication().test(.router) { client in try await test(Client(client: client)) }
    }

    /// Requests as the page makes them: the token in a header unless told otherwise.
    struct Client: Sendable {
        let client: any TestClientProtocol

        func request(_ uri: String, _ method: HTTPRequest.Method = .get, token: String? = ReviewTestCase.token, headers: [String: String] = [:],
                     body: String? = nil) async throws -> TestResponse {
            var fields = HTTPFields()
            if let token { fields[HTTPField.Name("X-Handpose-Token")!] = token }
            for (name, value) in headers { fields[HTTPField.Name(name)!] = value }
            return try await client.execute(uri: uri, method: method, headers: fields, body: body.map { ByteBuffer(string: $0) })
        }

        /// A save of `segments` (JSON text of the list) against the version the server gives now.
        func save(_ segments: String, version: String? = nil) async throws -> TestResponse {
            var known = version
            if known == nil { known = try await self.version() }
            let version = known!
            return try await request("/api/annotations", .put, body: "{\"version\": \"\(version)\", \"segments\": [\(segments)]}")
        }

        func version() async throws -> String {
            let r1 = try await request("/api/annotations")
            return try XCTUnwrap(try r1.object()["version"] as? String)
        }
    }
}

extension TestResponse {
    var text: String { String(decoding: body.readableBytesView, as: UTF8.self) }
    var data: Data { Data(body.readableBytesView) }

    func object(file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        try XCTUnwrap(try? JSONSerialization.jsonObject(with: data) as? [String: Any], "not a JSON object: \(text)", file: file, line: line)
    }

    /// The `error` sentence of a JSON error body.
    func error(file: StaticString = #filePath, line: UInt = #line) throws -> String {
        try XCTUnwrap(try object(file: file, line: line)["error"] as? String, "no error sentence: \(text)", file: file, line: line)
    }

    /// The findings' messages of a 422.
    func findings() throws -> [String] {
        try XCTUnwrap(try object()["diagnostics"] as? [[String: Any]]).compactMap { $0["message"] as? String }
    }

    /// The headers as sent, name and value, in order.
    var fields: [String] { headers.map { "\($0.name.canonicalName): \($0.value)" } }
}

/// What `SafetyHeaders` adds to every answer, in order.
let safetyHeaders = [
    "content-security-policy: default-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    "x-content-type-options: nosniff",
    "referrer-policy: no-referrer",
    "cache-control: no-store",
]
