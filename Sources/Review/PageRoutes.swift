import FileSystem
import Foundation
import HTTPTypes
import Hummingbird

/// The page itself: `GET /` (index.html, its `{{TOKEN}}` placeholders replaced by the token) and
/// `GET /static/NAME`, the page's script and style sheet. Files are read through `RegularFile`:
/// nothing the server reads can hold it.
struct PageRoutes: Sendable {
    let page: URL
    let token: String

    /// Every file under /static, with its media type, in the order a 404 names them.
    static let files: KeyValuePairs<String, String> = [
        "review.js": "text/javascript; charset=utf-8",
        "review.css": "text/css; charset=utf-8",
    ]

    func addRoutes(to router: Router<ReviewContext>) {
        router.get("/", use: index)
        router.group("static").get(":name", use: file)
    }

    /// index.html with the token in the addresses of its style sheet and script.
    @Sendable func index(_ request: Request, context: ReviewContext) throws -> Response {
        let html = String(decoding: try RegularFile.read(page.appendingPathComponent("index.html").path), as: UTF8.self)
        return ReviewJSON.response(.ok, type: "text/html; charset=utf-8", body: Data(html.replacingOccurrences(of: "{{TOKEN}}", with: token).utf8))
    }

    /// One of `files`.
    @Sendable func file(_ request: Request, context: ReviewContext) throws -> Response {
        let name = context.parameters.get("name") ?? ""
        guard let type = Self.files.first(where: { $0.key == name })?.value else {
            throw ReviewError(.notFound, "/static/\(name): no such file; the page's files are \(Self.named)")
        }
        return ReviewJSON.response(.ok, type: type, body: try RegularFile.read(page.appendingPathComponent(name).path))
    }

    /// "/static/a, /static/b and /static/c".
    static var named: String {
        let all = files.map { "/static/" + $0.key }
        return all.count < 2 ? all.joined() : all.dropLast().joined(separator: ", ") + " and " + all.last!
    }
}
