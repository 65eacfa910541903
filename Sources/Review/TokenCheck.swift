import Foundation
import HTTPTypes
import Hummingbird

/// Every request must carry the token (header `X-Handpose-Token` or query `token`): 401 without one,
/// 403 with a wrong one, thrown for `ErrorBodies` to answer. Compared in constant time, so response
/// times do not tell how much of a guess was right.
struct TokenCheck<Context: RequestContext>: RouterMiddleware {
    let token: String
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let given = request.headers[HTTPField.Name("X-Handpose-Token")!] ?? request.uri.queryParameters["token"].map(String.init)
        guard let given else {
            throw ReviewError(.unauthorized, "this server needs its token: open the address `handpose review` printed, token included")
        }
        let a = Array(given.utf8), b = Array(token.utf8)
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for i in 0..<min(a.count, b.count) { difference |= a[i] ^ b[i] }
        guard difference == 0 else { throw ReviewError(.forbidden, "wrong token") }
        return try await next(request, context)
    }
}
