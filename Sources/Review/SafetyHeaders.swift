import Foundation
import HTTPTypes
import Hummingbird

/// The page loads nothing from elsewhere (its scripts, ES modules included, and styles are 'self'), is
/// not framed by other sites and sends no referrer (the address holds the token). Outermost, so every
/// answer has them, errors included (`ErrorBodies` answers rather than rethrows).
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
