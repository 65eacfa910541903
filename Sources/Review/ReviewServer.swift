import Annotations
import FileSystem
import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// The review page's server: the page, the clip list, each clip's hands, the clips themselves (with
/// HTTP ranges, so the browser seeks) and the annotation file, read and saved. Every request must carry
/// the token (header `X-Handpose-Token` or query `token`): the server can write the annotation file.
/// It reads only under the clips' root and the keypoint folder, writes only the annotation file (and
/// its backup) and the transcode cache in the keypoint folder.
public struct ReviewServer: Sendable {
    public var host = "127.0.0.1"
    /// 0: any free port (the one bound is given to `run`'s `started`).
    public var port = 8765
    public let token: String
    let clips: ReviewFolder
    let catalog: ClipCatalog
    let media: PlayableMedia
    let document: AnnotationDocument?
    let page: URL

    /// Thrown when the page's files are not where an installed or built handpose keeps them.
    public struct PageMissing: Error, CustomStringConvertible {
        public var looked: [String]
        public var description: String { "the review page's files are missing (looked in \(looked.joined(separator: ", ")))" }
    }

    public init(root: URL, keypoints: URL, annotations: URL?, options: AnnotationOptions, token: String = ReviewServer.newToken()) throws {
        let folder = ReviewFolder(root)
        clips = folder
        catalog = ClipCatalog(clips: folder, keypoints: keypoints)
        media = PlayableMedia(cache: keypoints.appendingPathComponent(".review-cache"))
        document = annotations.map { AnnotationDocument(file: $0, options: options, clips: folder) }
        self.token = token
        page = try Self.pageFolder()
    }

    /// 128 random bits, as hexadecimal.
    public static func newToken() -> String {
        var g = SystemRandomNumberGenerator()
        return (0..<4).map { _ in String(format: "%08x", UInt32.random(in: .min ... .max, using: &g)) }.joined()
    }

    /// Where the page's files are: beside the executable (SwiftPM's resource bundle, in a build folder)
    /// or in the installed tree's share/handpose/review.
    static func pageFolder() throws -> URL {
        let bin = Executable.url?.deletingLastPathComponent()
        let candidates = [bin?.appendingPathComponent("handpose_Review.resources/Page"),
                          bin?.appendingPathComponent("../share/handpose/review").standardizedFileURL].compactMap { $0 }
        guard let found = candidates.first(where: { FileManager.default.fileExists(atPath: $0.appendingPathComponent("index.html").path) }) else {
            throw PageMissing(looked: candidates.map(\.path))
        }
        return found
    }

    /// Serves until the process is interrupted (SIGINT, SIGTERM); `started` gets the page's address.
    public func run(started: @escaping @Sendable (URL) -> Void) async throws {
        let router = Router()
        router.add(middleware: SafetyHeaders())
        router.add(middleware: TokenCheck(token: token))
        addRoutes(router)
        let token = self.token, host = self.host
        // Hummingbird's own log (each start, each failed request) only for what goes wrong: the tool prints the address.
        var logger = Logger(label: "handpose-review")
        logger.logLevel = .warning
        let app = Application(router: router, configuration: .init(address: .hostname(host, port: port), serverName: "handpose-review"),
                              onServerRunning: { channel in
                                  let port = channel.localAddress?.port ?? 0
                                  let shown = host.contains(":") ? "[\(host)]" : host
                                  started(URL(string: "http://\(shown):\(port)/?token=\(token)")!)
                              }, logger: logger)
        try await app.runService()
    }

    func addRoutes(_ router: Router<BasicRequestContext>) {
        let page = self.page, token = self.token
        router.get("/") { _, _ -> Response in
            let html = try String(contentsOf: page.appendingPathComponent("index.html"), encoding: .utf8)
            return Self.response(.ok, type: "text/html; charset=utf-8", body: Data(html.replacingOccurrences(of: "{{TOKEN}}", with: token).utf8))
        }
        router.get("/static/:name") { _, context -> Response in
            let name = context.parameters.get("name") ?? ""
            let types = ["review.js": "text/javascript; charset=utf-8", "review.css": "text/css; charset=utf-8"]
            guard let type = types[name] else { return Self.error(.notFound, "no such file") }
            return Self.response(.ok, type: type, body: try Data(contentsOf: page.appendingPathComponent(name)))
        }
        router.get("/api/clips") { _, _ -> Response in
            var labels: [String: Set<String>] = [:], counts: [String: Int] = [:]
            var file: [String: String]? = nil
            if let document {
                // The list opens no clip: validate's findings come with the annotations, once a version.
                for s in await document.rows() { if let c = s.clip { labels[c, default: []].insert(s.label); counts[c, default: 0] += 1 } }
                file = ["file": document.file.path, "format": document.format.rawValue]
            }
            let list = try await catalog.list(labels: labels.mapValues { $0.sorted() }, segments: counts)
            return try Self.json(ClipList(root: clips.url.path, keypoints: catalog.keypoints.root.path, annotations: file,
                                          classes: Set(labels.values.flatMap { $0 }).sorted(), clips: list))
        }
        router.get("/api/keypoints") { request, _ -> Response in
            guard let clip = request.uri.queryParameters["clip"].map(String.init) else { return Self.error(.badRequest, "say which clip: ?clip=PATH") }
            do {
                guard let hands = try await catalog.hands(clip) else { return Self.error(.notFound, "\(clip) has no keypoint file") }
                return try Self.json(hands)
            } catch let refusal as ReviewFolder.Refusal { return Self.refused(refusal) }
        }
        router.get("/media/**") { request, context -> Response in
            let raw = String(request.uri.path.dropFirst("/media/".count))
            guard let relative = raw.removingPercentEncoding else { return Self.error(.badRequest, "a malformed path") }
            do {
                let clip = try clips.file(relative)
                let (file, type) = try await media.file(for: clip, relative: relative)
                return try await Self.send(file, type: type, request: request, context: context)
            } catch let refusal as ReviewFolder.Refusal { return Self.refused(refusal)
            } catch let unplayable as PlayableMedia.Unplayable { return Self.error(.unsupportedMediaType, unplayable.description) }
        }
        router.get("/api/annotations") { _, _ -> Response in
            guard let document else { return Self.error(.notFound, "no annotation file: start review with --annotations FILE") }
            return try Self.json(try await document.state())
        }
        router.put("/api/annotations") { request, _ -> Response in
            guard let document else { return Self.error(.notFound, "no annotation file: start review with --annotations FILE") }
            var request = request
            let body = try await request.collectBody(upTo: 64 << 20)
            let edit: AnnotationDocument.Edit
            do { edit = try JSONDecoder().decode(AnnotationDocument.Edit.self, from: Data(body.readableBytesView)) } catch {
                return Self.error(.badRequest, "the body is not a save: \(Self.decodingReason(error))")
            }
            do {
                return try Self.json(try await document.save(edit))
            } catch let e as AnnotationDocument.SaveError {
                switch e {
                case .conflict(let current):
                    return try Self.json(Conflict(error: "The annotation file changed on disk since this page loaded it; nothing was saved.", version: current), status: .conflict)
                case .invalid(let findings):
                    return try Self.json(Invalid(error: "nothing was saved: \(findings.count) segment\(findings.count == 1 ? "" : "s") cannot be written", diagnostics: findings),
                                         status: .unprocessableContent)
                case .readOnly(let why): return Self.error(.methodNotAllowed, why)
                case .unwritable(let why): return Self.error(.internalServerError, why)
                }
            }
        }
    }

    struct ClipList: Encodable {
        var root: String, keypoints: String, annotations: [String: String]?, classes: [String], clips: [ClipCatalog.Clip]
    }
    struct Conflict: Encodable { var error: String; var version: String }
    struct Invalid: Encodable { var error: String; var diagnostics: [AnnotationDocument.Finding] }

    static func json<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return response(status, type: "application/json", body: try encoder.encode(value))
    }

    static func error(_ status: HTTPResponse.Status, _ message: String) -> Response {
        let body = (try? JSONEncoder().encode(["error": message])) ?? Data()
        return response(status, type: "application/json", body: body)
    }

    static func refused(_ refusal: ReviewFolder.Refusal) -> Response {
        if case .missing = refusal { return error(.notFound, refusal.description) }
        return error(.forbidden, refusal.description)
    }

    static func response(_ status: HTTPResponse.Status, type: String, body: Data) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.contentLength] = String(body.count)
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// A file, whole or the byte range the request asks for (`bytes=a-b`, `bytes=a-`, `bytes=-n`).
    static func send(_ file: URL, type: String, request: Request, context: BasicRequestContext) async throws -> Response {
        let size = (try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.acceptRanges] = "bytes"
        var range = 0...max(0, size - 1)
        var status = HTTPResponse.Status.ok
        if let asked = request.headers[.range] {
            guard let r = byteRange(asked, size: size) else {
                headers[.contentRange] = "bytes */\(size)"
                return Response(status: .rangeNotSatisfiable, headers: headers)
            }
            range = r
            status = .partialContent
            headers[.contentRange] = "bytes \(r.lowerBound)-\(r.upperBound)/\(size)"
        }
        headers[.contentLength] = String(size == 0 ? 0 : range.count)
        guard size > 0 else { return Response(status: .ok, headers: headers) }
        let body = try await FileIO().loadFile(path: file.path, range: range, context: context)
        return Response(status: status, headers: headers, body: body)
    }

    /// The first range of a Range header, clamped to the file; nil when it asks for none of it.
    static func byteRange(_ header: String, size: Int) -> ClosedRange<Int>? {
        guard header.hasPrefix("bytes="), size > 0 else { return nil }
        let spec = header.dropFirst(6).split(separator: ",").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2 else { return nil }
        if parts[0].isEmpty {
            guard let n = Int(parts[1]), n > 0 else { return nil }
            return max(0, size - n)...(size - 1)
        }
        guard let a = Int(parts[0]), a >= 0, a < size else { return nil }
        let b = parts[1].isEmpty ? size - 1 : (Int(parts[1]) ?? -1)
        guard b >= a else { return nil }
        return a...min(b, size - 1)
    }

    static func decodingReason(_ error: Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, let c): return "\(c.codingPath.map(\.stringValue) + [key.stringValue]) is missing"
        case DecodingError.typeMismatch(_, let c), DecodingError.valueNotFound(_, let c):
            return "\(c.codingPath.map(\.stringValue).joined(separator: ".")): \(c.debugDescription)"
        case DecodingError.dataCorrupted(let c): return c.codingPath.isEmpty ? "not JSON" : "\(c.codingPath.map(\.stringValue).joined(separator: ".")): \(c.debugDescription)"
        default: return "\(error)"
        }
    }
}

/// Every request must carry the token: 401 without one, 403 with a wrong one. Compared in constant
/// time, so response times do not tell how much of a guess was right.
struct TokenCheck<Context: RequestContext>: RouterMiddleware {
    let token: String
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let given = request.headers[HTTPField.Name("X-Handpose-Token")!] ?? request.uri.queryParameters["token"].map(String.init)
        guard let given else {
            return ReviewServer.error(.unauthorized, "this server needs its token: open the address `handpose review` printed, token included")
        }
        let a = Array(given.utf8), b = Array(token.utf8)
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for i in 0..<min(a.count, b.count) { difference |= a[i] ^ b[i] }
        guard difference == 0 else { return ReviewServer.error(.forbidden, "wrong token") }
        return try await next(request, context)
    }
}

/// The page loads nothing from elsewhere, is not framed by other sites and sends no referrer (the
/// address holds the token).
struct SafetyHeaders<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        response.headers[HTTPField.Name("Content-Security-Policy")!] =
            "default-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
        response.headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        response.headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        response.headers[.cacheControl] = "no-store"
        return response
    }
}
