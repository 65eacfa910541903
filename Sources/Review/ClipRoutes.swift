import FileSystem
import Foundation
import HTTPTypes
import Hummingbird

/// What the clip list and a clip's page read: `GET /api/clips`, every clip under the root with its
/// figures and its labels in the annotation file, and `GET /api/keypoints?clip=PATH`, a clip's hands
/// (and bodies) per frame. Refusals and unreadable files are thrown, answered by `ErrorBodies`.
struct ClipRoutes: Sendable {
    let clips: ReviewFolder
    let catalog: ClipCatalog
    let document: AnnotationDocument?

    /// Under the `api` group.
    func addRoutes(to group: RouterGroup<ReviewContext>) {
        group.get("clips", use: list)
        group.get("keypoints", use: keypoints)
    }

    struct ClipList: ResponseEncodable {
        var root: String, keypoints: String, annotations: [String: String]?, classes: [String], clips: [ClipCatalog.Clip]
    }

    @Sendable func list(_ request: Request, context: ReviewContext) async throws -> ClipList {
        var labels: [PathKey: Set<String>] = [:], counts: [PathKey: Int] = [:]
        var file: [String: String]? = nil
        if let document {
            // The list opens no clip: validate's findings come with the annotations, once a version.
            for s in try await document.rows() { if let c = s.clip.map(PathKey.init) { labels[c, default: []].insert(s.label); counts[c, default: 0] += 1 } }
            file = ["file": document.file.path, "format": document.format.rawValue]
        }
        let list = try await catalog.list(labels: labels.mapValues { $0.sorted() }, segments: counts)
        return ClipList(root: clips.url.path, keypoints: catalog.keypoints.root.path, annotations: file,
                        classes: Set(labels.values.flatMap { $0 }).sorted(), clips: list)
    }

    @Sendable func keypoints(_ request: Request, context: ReviewContext) async throws -> ClipCatalog.Hands {
        guard let clip = request.uri.queryParameters["clip"].map(String.init) else {
            throw ReviewError(.badRequest, "say which clip: /api/keypoints?clip=PATH, PATH as the clip list gives it")
        }
        guard let hands = try await catalog.hands(clip) else {
            throw ReviewError(.notFound, "\(clip) has no keypoint file in \(catalog.keypoints.root.path): run handpose extract on the clips' folder")
        }
        return hands
    }
}

extension ClipCatalog.Hands: ResponseEncodable {}
