import Foundation
import HTTPTypes
import HummingbirdTesting
@testable import Review
import XCTest

/// `GET /` and `/static/NAME`: the page with the token filled in, every file of the Page folder served
/// with its type (JavaScript as text/javascript: browsers run no module served as anything else), and
/// nothing else.
final class PageRoutesTests: ReviewTestCase, @unchecked Sendable {
    /// The Page folder's files but index.html.
    var pageFiles: [String] {
        get throws { try FileManager.default.contentsOfDirectory(atPath: Self.page.path).filter { $0 != "index.html" }.sorted() }
    }

    func testThePageCarriesTheToken() async throws {
        try await serve { c in
            let reply = try await c.request("/")
            XCTAssertEqual(reply.status, .ok)
            XCTAssertEqual(reply.fields, ["content-type: text/html; charset=utf-8", "content-length: \(reply.body.readableBytes)"] + safetyHeaders)
            XCTAssertFalse(reply.text.contains("{{TOKEN}}"))
            XCTAssertTrue(reply.text.contains("/static/review.js?token=\(Self.token)"), "the page's own requests carry the token")
            XCTAssertTrue(reply.text.contains("/static/review.css?token=\(Self.token)"))
        }
    }

    func testEveryFileOfThePageIsServedWithItsType() async throws {
        XCTAssertEqual(try pageFiles, PageRoutes.files.map(\.key).sorted(), "PageRoutes.files names the Page folder's files")
        try await serve { c in
            for name in try self.pageFiles {
                let reply = try await c.request("/static/\(name)")
                XCTAssertEqual(reply.status, .ok, name)
                XCTAssertEqual(reply.headers[.contentType], name.hasSuffix(".js") ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8", name)
                XCTAssertEqual(reply.headers[HTTPField.Name("X-Content-Type-Options")!], "nosniff")
                let source = try String(contentsOf: Self.page.appendingPathComponent(name), encoding: .utf8)
                XCTAssertEqual(reply.text, source.replacingOccurrences(of: "{{TOKEN}}", with: Self.token), name)
            }
            for name in ["other.js", "index.html", "..%2Fannotations.csv", ""] {
                let reply = try await c.request("/static/\(name)")
                XCTAssertEqual(reply.status, .notFound, name)
                XCTAssertEqual(reply.headers[.contentType], "application/json")
                XCTAssertTrue(try reply.error().contains("no such"), reply.text)
            }
            let other = try await c.request("/static/other.js")
            XCTAssertEqual(try other.error(), "/static/other.js: no such file; the page's files are \(PageRoutes.named)")
        }
    }

    /// Scripts load as the Content-Security-Policy allows ('self': no inline script, nothing from
    /// elsewhere), and each module's imports are files the server serves, with the token.
    func testTheModulesLoadUnderTheContentSecurityPolicy() throws {
        let html = try String(contentsOf: Self.page.appendingPathComponent("index.html"), encoding: .utf8)
        let scripts = html.components(separatedBy: "<script").dropFirst()
        XCTAssertEqual(scripts.count, 1, "one script")
        for script in scripts {
            let tag = script.prefix { $0 != ">" }
            XCTAssertTrue(tag.contains("src=\"/static/"), "no inline script: \(tag)")
            XCTAssertTrue(script.dropFirst(tag.count + 1).hasPrefix("</script>"), "no inline script")
        }
        XCTAssertFalse(html.contains("http://") || html.contains("https://"), "nothing from elsewhere")
        let served = Set(PageRoutes.files.map(\.key))
        for name in try pageFiles where name.hasSuffix(".js") {
            let source = try String(contentsOf: Self.page.appendingPathComponent(name), encoding: .utf8)
            XCTAssertFalse(source.contains("http://") || source.contains("https://") || source.contains("import("), name)
            for line in source.split(separator: "\n") where line.hasPrefix("import ") || line.hasPrefix("export ") && line.contains(" from ") {
                let specifier = try XCTUnwrap(line.split(separator: "\"").dropFirst().first.map(String.init), String(line))
                XCTAssertTrue(specifier.hasPrefix("./") && specifier.hasSuffix(".js?token={{TOKEN}}"),
                              "\(name): \(specifier) must be ./NAME.js?token={{TOKEN}} (one URL per module, with the token)")
                let target = String(specifier.dropFirst(2).prefix { $0 != "?" })
                XCTAssertTrue(served.contains(target), "\(name) imports \(target), which is not served")
            }
        }
    }
}
