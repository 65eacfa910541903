import FileSystem
import Foundation
import HTTPTypes
import Hummingbird

/// Every answer but a success carries a JSON body `{"error": "sentence"}`: a `ReviewError` a route or
/// the token check threw, an error of the server's modules (a refused path, a file that cannot be read:
/// `ReviewError.known`), Hummingbird's own (no such route, a body too large), or any other, said with the
/// request it befell. It answers rather than rethrows, so that `SafetyHeaders`, outside it, sees every
/// response.
struct ErrorBodies<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            if let known = ReviewError.known(error) { return known.response }
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
                return ReviewError(http.status, message).response
            }
            // Foundation's errors as a phrase (their POSIX reason), not a domain and a code; ours say themselves.
            return ReviewError(.internalServerError, "\(at) failed: \(describe(error))").response
        }
    }
}
