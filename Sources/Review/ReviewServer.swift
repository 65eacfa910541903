import Annotations
import FileSystem
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Support

/// The review page's server: the page, the clip list, each clip's hands, the clips themselves (with
/// HTTP ranges, so the browser seeks) and the annotation file, read and saved. Every request must carry
/// the token (header `X-Handpose-Token` or query `token`): the server can write the annotation file.
/// It reads only under the clips' root and the keypoint folder, writes only the annotation file (and
/// its backup) and the transcode cache in the keypoint folder.
///
/// The router (`makeRouter`) is the same for `run` and for tests, which drive it in process: middleware
/// outermost first (`SafetyHeaders`, `ErrorBodies`, `TokenCheck`), then one route group per thing
/// served (`PageRoutes`, `ClipRoutes`, `MediaRoutes`, `AnnotationRoutes`), whose handlers throw
/// `ReviewError` for every answer but a success.
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

    /// `page`: the folder of the page's files; nil, where an installed or built handpose keeps them.
    public init(root: URL, keypoints: URL, annotations: URL?, options: AnnotationOptions, token: String = ReviewServer.newToken(),
                page: URL? = nil) throws {
        let folder = ReviewFolder(root)
        clips = folder
        catalog = ClipCatalog(clips: folder, keypoints: keypoints)
        media = PlayableMedia(keypoints: keypoints)
        document = annotations.map { AnnotationDocument(file: $0, options: options, clips: folder) }
        self.token = token
        self.page = try page ?? InstalledFiles(.page).folder(holding: ["index.html"])
    }

    /// 128 random bits, as hexadecimal.
    public static func newToken() -> String {
        var g = SystemRandomNumberGenerator()
        return (0..<4).map { _ in String(format: "%08x", UInt32.random(in: .min ... .max, using: &g)) }.joined()
    }

    /// The largest save body taken (a million segments fit).
    static let largestSave = 64 << 20

    /// Every route and middleware, listening nowhere: what `run` serves, and what tests drive in process.
    public func makeRouter() -> Router<ReviewContext> {
        let router = Router(context: ReviewContext.self)
        router.add(middleware: SafetyHeaders())
        // Outside the token check, so that its refusals and unknown addresses get a JSON body too.
        router.add(middleware: ErrorBodies())
        router.add(middleware: TokenCheck(token: token))
        PageRoutes(page: page, token: token).addRoutes(to: router)
        let api = router.group("api")
        ClipRoutes(clips: clips, catalog: catalog, document: document).addRoutes(to: api)
        AnnotationRoutes(document: document).addRoutes(to: api.group("annotations"))
        MediaRoutes(clips: clips, media: media).addRoutes(to: router.group("media"))
        return router
    }

    /// The application `run` runs: the router on `host` and `port`; `started` gets the page's address
    /// once it listens.
    public func makeApplication(started: @escaping @Sendable (URL) -> Void = { _ in }) -> some ApplicationProtocol {
        let token = self.token, host = self.host
        // Hummingbird's own log (each start, each failed request) only for what goes wrong: the tool prints the address.
        var logger = Logger(label: "handpose-review")
        logger.logLevel = .warning
        return Application(router: makeRouter(), configuration: .init(address: .hostname(host, port: port), serverName: "handpose-review"),
                           onServerRunning: { channel in
                               let port = channel.localAddress?.port ?? 0
                               let shown = host.contains(":") ? "[\(host)]" : host
                               started(URL(string: "http://\(shown):\(port)/?token=\(token)")!)
                           }, logger: logger)
    }

    /// Why the server could not listen, said with what to do.
    public struct ListenFailure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Serves until the process is interrupted (SIGINT, SIGTERM); `started` gets the page's address.
    /// Throws `ListenFailure` when the address cannot be listened on.
    public func run(started: @escaping @Sendable (URL) -> Void) async throws {
        do { try await makeApplication(started: started).runService() } catch { throw listenFailure(error) ?? error }
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
}
