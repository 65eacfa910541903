import Foundation
import HTTPTypes
import Hummingbird

/// `GET /media/PATH`: a clip or image under the root, or the H.264 transcode `PlayableMedia` makes of a
/// clip a browser cannot play, with byte ranges (`FileResponse`) so that the player seeks.
struct MediaRoutes: Sendable {
    let clips: ReviewFolder
    let media: PlayableMedia

    /// Under the `media` group.
    func addRoutes(to group: RouterGroup<ReviewContext>) {
        group.get("**", use: clip)
    }

    @Sendable func clip(_ request: Request, context: ReviewContext) async throws -> Response {
        let raw = String(request.uri.path.dropFirst("/media/".count))
        guard let relative = raw.removingPercentEncoding else {
            throw ReviewError(.badRequest, "the clip's path is not valid percent-encoded UTF-8: ask for /media/PATH, PATH as the clip list gives it")
        }
        let clip = try clips.file(relative)
        let (file, type) = try await media.file(for: clip, relative: relative)
        return try FileResponse.send(file, type: type, request: request)
    }
}
