import FileSystem
import Foundation
import HTTPTypes
import Hummingbird

/// An answer other than success, thrown by a route or a middleware and written by `ErrorBodies`: its
/// status, the JSON body every such answer has, `{"error": "sentence"}` (a 409 adds `version`, a 422
/// `diagnostics`), and any header it needs besides (a 416's Content-Range). Hummingbird's own `HTTPError`
/// writes `{"error": {"message": ...}}`, not the shape the page and API.md take, so this conforms to
/// `HTTPResponseError` itself.
struct ReviewError: HTTPResponseError {
    let status: HTTPResponse.Status
    /// The JSON body, as sent.
    let body: Data
    /// Headers sent after Content-Type and Content-Length.
    var headers = HTTPFields()

    /// `{"error": message}`.
    init(_ status: HTTPResponse.Status, _ message: String) {
        self.status = status
        body = (try? ReviewJSON.encode(["error": message])) ?? Data("{\"error\": \"\"}".utf8)
    }

    /// A body with more than the sentence (a 409's version, a 422's findings).
    init(_ status: HTTPResponse.Status, body: some Encodable) throws {
        self.status = status
        self.body = try ReviewJSON.encode(body)
    }

    var response: Response {
        var response = ReviewJSON.response(status, type: "application/json", body: body)
        response.headers.append(contentsOf: headers)
        return response
    }

    func response(from request: Request, context: some RequestContext) throws -> Response { response }

    /// The answer to an error the server's own modules throw (a refused path, a file that cannot be
    /// read, a clip that cannot be played); nil for others.
    static func known(_ thrown: Error) -> ReviewError? {
        switch thrown {
        case let answer as ReviewError: return answer
        case let refusal as ReviewFolder.Refusal:
            switch refusal {
            case .missing: return ReviewError(.notFound, refusal.description)
            case .notRegular: return ReviewError(.unsupportedMediaType, refusal.description)
            case .malformed, .outside: return ReviewError(.forbidden, refusal.description)
            }
        case let unreadable as AnnotationDocument.Unreadable:
            switch unreadable.kind {
            // 410, not 404: the page takes a 404 for "no --annotations" and would show no segments, silently.
            case .missing: return ReviewError(.gone, unreadable.description)
            case .notRegular: return ReviewError(.unsupportedMediaType, unreadable.description)
            case .other: return ReviewError(.internalServerError, unreadable.description)
            }
        case let refusal as RegularFile.Refusal:
            return ReviewError(RegularFile.isSpecial(refusal.path) ? .unsupportedMediaType : .internalServerError, refusal.description)
        case let unreadable as ClipCatalog.Unreadable:
            return ReviewError(.unprocessableContent, "the keypoint file cannot be read: \(unreadable.description); run handpose extract again for this clip")
        case let unplayable as PlayableMedia.Unplayable: return ReviewError(.unsupportedMediaType, unplayable.description)
        default: return nil
        }
    }
}
