import FileSystem
import Foundation
import HTTPTypes
import Hummingbird

/// The page itself: `GET /` (index.html, its `{{TOKEN}}` placeholders replaced by the token) and
/// `GET /static/NAME`, the page's style sheet and scripts. The scripts are ES modules (review.js the
/// entry) that import each other as `./NAME.js?token={{TOKEN}}`: a browser sends no header with a
/// module's imports, and a relative import drops its importer's query, so the token is filled in there
/// as in index.html. Files are read through `RegularFile`: nothing the server reads can hold it.
struct PageRoutes: Sendable {
    let page: URL
    let token: String

    /// Every file under /static, with its media type (a module served as anything but JavaScript is not
    /// run), in the order a 404 names them. `make install` copies the whole Page folder; ReviewTests checks
    /// that this list and the folder agree and that every module's imports are in it.
    static let files: KeyValuePairs<String, String> = [
        "review.js": javaScript,
        "review.css": "text/css; charset=utf-8",
        "state.js": javaScript,
        "api.js": javaScript,
        "bar.js": javaScript,
        "segments.js": javaScript,
        "clip-list.js": javaScript,
        "clip-page.js": javaScript,
        "player.js": javaScript,
        "keypoints-overlay.js": javaScript,
        "timeline.js": javaScript,
        "keys.js": javaScript,
    ]
    static let javaScript = "text/javascript; charset=utf-8"

    func addRoutes(to router: Router<ReviewContext>) {
        router.get("/", use: index)
        router.group("static").get(":name", use: file)
    }

    /// index.html with the token in the addresses of its style sheet and script.
    @Sendable func index(_ request: Request, context: ReviewContext) throws -> Response {
        let html = String(decoding: try RegularFile.read(page.appendingPathComponent("index.html").path), as: UTF8.self)
        return ReviewJSON.response(.ok, type: "text/html; charset=utf-8", body: Data(html.replacingOccurrences(of: "{{TOKEN}}", with: token).utf8))
    }

    /// One of `files`; a module with the token in its imports.
    @Sendable func file(_ request: Request, context: ReviewContext) throws -> Response {
        let name = context.parameters.get("name") ?? ""
        guard let type = Self.files.first(where: { $0.key == name })?.value else {
            throw ReviewError(.notFound, "/static/\(name): no such file; the page's files are \(Self.named)")
        }
        var body = try RegularFile.read(page.appendingPathComponent(name).path)
        if type == Self.javaScript { body = Data(String(decoding: body, as: UTF8.self).replacingOccurrences(of: "{{TOKEN}}", with: token).utf8) }
        return ReviewJSON.response(.ok, type: type, body: body)
    }

    /// "/static/a, /static/b and /static/c".
    static var named: String {
        let all = files.map { "/static/" + $0.key }
        return all.count < 2 ? all.joined() : all.dropLast().joined(separator: ", ") + " and " + all.last!
    }
}
