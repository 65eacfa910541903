import Annotations
import FileSystem
import Foundation
import HTTPTypes
import Hummingbird
import Keypoints
import Logging
import Support

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

    public init(root: URL, keypoints: URL, annotations: URL?, options: AnnotationOptions, token: String = ReviewServer.newToken()) throws {
        let folder = ReviewFolder(root)
        clips = folder
        catalog = ClipCatalog(clips: folder, keypoints: keypoints)
        media = PlayableMedia(keypoints: keypoints)
        document = annotations.map { AnnotationDocument(file: $0, options: options, clips: folder) }
        self.token = token
        page = try InstalledFiles(.page).folder(holding: ["index.html"])
    }

    /// 128 random bits, as hexadecimal.
    public static func newToken() -> String {
        var g = SystemRandomNumberGenerator()
        return (0..<4).map { _ in String(format: "%08x", UInt32.random(in: .min ... .max, using: &g)) }.joined()
    }

    /// Why the server could not listen, said with what to do.
    public struct ListenFailure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Serves until the process is interrupted (SIGINT, SIGTERM); `started` gets the page's address.
    /// Throws `ListenFailure` when the address cannot be listened on.
    public func run(started: @escaping @Sendable (URL) -> Void) async throws {
        let router = Router()
        router.add(middleware: SafetyHeaders())
        // Outside the token check, so that its refusals and unknown addresses get a JSON body too.
        router.add(middleware: ErrorBodies())
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
        do { try await app.runService() } catch { throw listenFailure(error) ?? error }
    }

    /// A failure to listen said plainly. NIO's socket error is not a type this module sees (Hummingbird
    /// does not export it); its description holds the system's text for the error number, which is
    /// matched here, and nothing else is.
    func listenFailure(_ error: Error) -> ListenFailure? {
        let text = "\(error)"
        func says(_ code: Int32) -> Bool { text.contains(String(cString: strerror(code))) || text.contains("(errno: \(code))") }
        if says(EADDRINUSE) { return ListenFailure(description: "port \(port) is in use: choose another with --port (--port 0 takes any free one)") }
        if says(EACCES) {
            return ListenFailure(description: "port \(port) cannot be listened on by this user (ports below 1024 need root): choose another with --port")
        }
        if says(EADDRNOTAVAIL) {
            return ListenFailure(description: "--host \(host) is no address of this machine: give one of its addresses, or leave --host out for 127.0.0.1")
        }
        return nil
    }

    func addRoutes(_ router: Router<BasicRequestContext>) {
        let page = self.page, token = self.token
        // The page's own files too are read through RegularFile: nothing the server reads can hold it.
        router.get("/") { _, _ -> Response in
            let html = String(decoding: try RegularFile.read(page.appendingPathComponent("index.html").path), as: UTF8.self)
            return Self.response(.ok, type: "text/html; charset=utf-8", body: Data(html.replacingOccurrences(of: "{{TOKEN}}", with: token).utf8))
        }
        router.get("/static/:name") { _, context -> Response in
            let name = context.parameters.get("name") ?? ""
            let types = ["review.js": "text/javascript; charset=utf-8", "review.css": "text/css; charset=utf-8"]
            guard let type = types[name] else { return Self.error(.notFound, "/static/\(name): no such file; the page's files are /static/review.js and /static/review.css") }
            return Self.response(.ok, type: type, body: try RegularFile.read(page.appendingPathComponent(name).path))
        }
        router.get("/api/clips") { _, _ -> Response in
            var labels: [String: Set<String>] = [:], counts: [String: Int] = [:]
            var file: [String: String]? = nil
            if let document {
                // The list opens no clip: validate's findings come with the annotations, once a version.
                for s in try await document.rows() { if let c = s.clip { labels[c, default: []].insert(s.label); counts[c, default: 0] += 1 } }
                file = ["file": document.file.path, "format": document.format.rawValue]
            }
            let list = try await catalog.list(labels: labels.mapValues { $0.sorted() }, segments: counts)
            return try Self.json(ClipList(root: clips.url.path, keypoints: catalog.keypoints.root.path, annotations: file,
                                          classes: Set(labels.values.flatMap { $0 }).sorted(), clips: list))
        }
        // Refusals and unreadable files thrown here are answered by ErrorBodies (see `answer`).
        router.get("/api/keypoints") { request, _ -> Response in
            guard let clip = request.uri.queryParameters["clip"].map(String.init) else {
                return Self.error(.badRequest, "say which clip: /api/keypoints?clip=PATH, PATH as the clip list gives it")
            }
            guard let hands = try await catalog.hands(clip) else {
                return Self.error(.notFound, "\(clip) has no keypoint file in \(catalog.keypoints.root.path): run handpose extract on the clips' folder")
            }
            return try Self.json(hands)
        }
        router.get("/media/**") { request, _ -> Response in
            let raw = String(request.uri.path.dropFirst("/media/".count))
            guard let relative = raw.removingPercentEncoding else {
                return Self.error(.badRequest, "the clip's path is not valid percent-encoded UTF-8: ask for /media/PATH, PATH as the clip list gives it")
            }
            let clip = try clips.file(relative)
            let (file, type) = try await media.file(for: clip, relative: relative)
            return try Self.send(file, type: type, request: request)
        }
        router.get("/api/annotations") { _, _ -> Response in
            guard let document else { return Self.error(.notFound, "no annotation file: start review with --annotations FILE") }
            return try Self.json(try await document.state())
        }
        router.put("/api/annotations") { request, _ -> Response in
            guard let document else { return Self.error(.notFound, "no annotation file: start review with --annotations FILE") }
            var request = request
            let body = try await request.collectBody(upTo: Self.largestSave)
            let edit: AnnotationDocument.Edit
            switch SaveRequest.decode(Array(body.readableBytesView)) {
            case .success(let decoded): edit = decoded
            case .failure(.malformed(let message)): return Self.error(.badRequest, message)
            case .failure(.invalid(let problems)):
                return try Self.json(Invalid(error: "nothing was saved: \(problems.count) problem\(problems.count == 1 ? "" : "s") in the segments sent",
                                             diagnostics: problems.map { AnnotationDocument.Finding(severity: "error", message: $0, line: nil) }),
                                     status: .unprocessableContent)
            }
            do {
                return try Self.json(try await document.save(edit))
            } catch let e as AnnotationDocument.SaveError {
                switch e {
                case .conflict(let current):
                    return try Self.json(Conflict(error: "The annotation file changed on disk since this page loaded it; nothing was saved.", version: current), status: .conflict)
                case .invalid(let findings):
                    return try Self.json(Invalid(error: "nothing was saved: \(findings.count) problem\(findings.count == 1 ? "" : "s") in the segments sent", diagnostics: findings),
                                         status: .unprocessableContent)
                case .readOnly(let why): return Self.error(.methodNotAllowed, "nothing was saved: \(why)")
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
        // Paths are the most of what messages hold: written as they are, not as \/.
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return response(status, type: "application/json", body: try encoder.encode(value))
    }

    static func error(_ status: HTTPResponse.Status, _ message: String) -> Response {
        (try? json(["error": message], status: status)) ?? response(status, type: "application/json", body: Data("{\"error\": \"\"}".utf8))
    }

    static func refused(_ refusal: ReviewFolder.Refusal) -> Response {
        switch refusal {
        case .missing: return error(.notFound, refusal.description)
        case .notRegular: return error(.unsupportedMediaType, refusal.description)
        case .malformed, .outside: return error(.forbidden, refusal.description)
        }
    }

    /// The answer to an error a route threw, when it is one the server knows; nil for others.
    static func answer(_ thrown: Error) -> Response? {
        switch thrown {
        case let refusal as ReviewFolder.Refusal: return refused(refusal)
        case let unreadable as AnnotationDocument.Unreadable:
            switch unreadable.kind {
            // 410, not 404: the page takes a 404 for "no --annotations" and would show no segments, silently.
            case .missing: return error(.gone, unreadable.description)
            case .notRegular: return error(.unsupportedMediaType, unreadable.description)
            case .other: return error(.internalServerError, unreadable.description)
            }
        case let refusal as RegularFile.Refusal:
            return error(RegularFile.isSpecial(refusal.path) ? .unsupportedMediaType : .internalServerError, refusal.description)
        case let unreadable as ClipCatalog.Unreadable:
            return error(.unprocessableContent, "the keypoint file cannot be read: \(unreadable.description); run handpose extract again for this clip")
        case let unplayable as PlayableMedia.Unplayable: return error(.unsupportedMediaType, unplayable.description)
        default: return nil
        }
    }

    static func response(_ status: HTTPResponse.Status, type: String, body: Data) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.contentLength] = String(body.count)
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// The largest save body taken (a million segments fit).
    static let largestSave = 64 << 20

    /// An open file, closed when the last response body reading it is done with (or never written).
    final class OpenFile: Sendable {
        let fd: Int32
        init(_ fd: Int32) { self.fd = fd }
        deinit { close(fd) }
    }

    /// A file, whole or the one byte range the request asks for. Opened through `RegularFile` (never
    /// waiting on a FIFO) and read from that descriptor, so what is sent is the file that was checked.
    static func send(_ file: URL, type: String, request: Request) throws -> Response {
        let open = OpenFile(try RegularFile.open(file.path))
        var st = stat()
        guard fstat(open.fd, &st) == 0, let size = Int(exactly: st.st_size), size >= 0 else {
            throw RegularFile.Refusal(path: file.path, reason: "cannot be examined (\(String(cString: strerror(errno))))")
        }
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.acceptRanges] = "bytes"
        var range = 0..<size
        var status = HTTPResponse.Status.ok
        if let asked = request.headers[.range] {
            switch byteRange(asked, size: size) {
            case .whole: break
            case .part(let r):
                range = r.lowerBound..<(r.upperBound + 1)
                status = .partialContent
                headers[.contentRange] = "bytes \(r.lowerBound)-\(r.upperBound)/\(size)"
            case .unsatisfiable:
                var refusal = error(.rangeNotSatisfiable, "the range asked for (\(asked.prefix(80))) holds none of the clip's \(size) bytes; ask for bytes within 0-\(max(0, size - 1))")
                refusal.headers[.contentRange] = "bytes */\(size)"
                refusal.headers[.acceptRanges] = "bytes"
                return refusal
            }
        }
        headers[.contentLength] = String(range.count)
        let chunk = 256 << 10
        // Read on the task that writes the body: a regular file's reads are short, and the descriptor is
        // the one checked (a path handed to another reader could be swapped for a FIFO meanwhile).
        let sent = range
        let body = ResponseBody(contentLength: sent.count) { writer in
            var offset = sent.lowerBound
            var buffer = [UInt8](repeating: 0, count: min(chunk, max(sent.count, 1)))
            while offset < sent.upperBound {
                let want = min(buffer.count, sent.upperBound - offset)
                let n = buffer.withUnsafeMutableBytes { pread(open.fd, $0.baseAddress, want, off_t(offset)) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else {
                    throw RegularFile.Refusal(path: file.path, reason: n == 0 ? "became shorter while being sent" : "cannot be read (\(String(cString: strerror(errno))))")
                }
                try await writer.write(ByteBuffer(bytes: buffer[0..<n]))
                offset += n
            }
            try await writer.finish(nil)
        }
        return Response(status: status, headers: headers, body: body)
    }

    /// What a Range header asks of a file of `size` bytes.
    enum RangeAnswer: Equatable {
        /// Send it whole (200): no range asked that this server serves.
        case whole
        /// The bytes to send (206).
        case part(ClosedRange<Int>)
        /// A well-formed range wholly past the end (416).
        case unsatisfiable
    }

    /// A Range header read as RFC 9110 (14.1, 14.2) says: a unit other than bytes, or a range-set that
    /// does not parse, is ignored (the whole file, 200); so is a request for several ranges, which 14.2
    /// allows a server to do rather than answer with multipart/byteranges (browsers' players ask for
    /// one). One range: `first-last` (last clamped to the end; last before first makes it invalid, so
    /// ignored), `first-`, or `-suffix` (the last bytes); 416 only when it starts at or past the end,
    /// or is a suffix of zero bytes.
    static func byteRange(_ header: String, size: Int) -> RangeAnswer {
        guard let equals = header.firstIndex(of: "=") else { return .whole }
        // The range unit is case-insensitive.
        guard header[..<equals].lowercased() == "bytes" else { return .whole }
        // range-set = 1#range-spec: list elements with optional white space, empty ones ignored.
        let specs = header[header.index(after: equals)...].split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " \t")) }.filter { !$0.isEmpty }
        guard specs.count == 1 else { return .whole }
        let parts = specs[0].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return .whole }
        let first = parts[0], last = parts[1]
        func isNumber(_ s: Substring) -> Bool { !s.isEmpty && s.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }
        // A number too large for Int is larger than any file: as good as Int.max here.
        func value(_ s: Substring) -> Int { Int(s) ?? Int.max }
        if first.isEmpty {
            guard isNumber(last) else { return .whole }
            let n = value(last)
            guard n > 0 else { return .unsatisfiable }
            guard size > 0 else { return .whole }
            return .part(max(0, size - n)...(size - 1))
        }
        guard isNumber(first), last.isEmpty || isNumber(last) else { return .whole }
        if !last.isEmpty && Self.less(last, than: first) { return .whole }
        let a = value(first)
        guard a < size else { return .unsatisfiable }
        return .part(a...min(last.isEmpty ? size - 1 : value(last), size - 1))
    }

    /// Whether decimal digits `a` are a smaller number than `b`, however long either is.
    static func less(_ a: Substring, than b: Substring) -> Bool {
        let x = a.drop { $0 == "0" }, y = b.drop { $0 == "0" }
        return x.count != y.count ? x.count < y.count : x.lexicographicallyPrecedes(y)
    }
}

/// Every answer but a success carries a JSON body `{"error": "sentence"}`: an error a route threw (a
/// refused path, a file that cannot be read), Hummingbird's own (no such route, a body too large), or
/// any other, said with the request it befell.
struct ErrorBodies<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            if let known = ReviewServer.answer(error) { return known }
            let at = "\(request.method) \(request.uri.path)"
            if let http = error as? any HTTPResponseError {
                let message: String
                switch http.status {
                case .notFound:
                    message = "\(at): no such address; the page's addresses are /, /static/..., /api/clips, /api/keypoints, /media/... and /api/annotations (Sources/Review/API.md)"
                case .contentTooLarge:
                    message = "\(at): the body is larger than the \(ReviewServer.largestSave >> 20) MiB a save may be"
                default:
                    message = "\(at): \((error as? HTTPError)?.body ?? http.status.reasonPhrase)"
                }
                return ReviewServer.error(http.status, message)
            }
            // Foundation's errors as a phrase (their POSIX reason), not a domain and a code; ours say themselves.
            return ReviewServer.error(.internalServerError, "\(at) failed: \(describe(error))")
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
