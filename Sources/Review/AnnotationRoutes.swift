import Foundation
import HTTPTypes
import Hummingbird

/// The annotation file: `GET /api/annotations`, its segments, findings and version, and `PUT`, a save of
/// the whole list (`SaveRequest`, then `AnnotationDocument`). Without --annotations both are 404, which
/// the page takes for "no annotation file".
struct AnnotationRoutes: Sendable {
    let document: AnnotationDocument?

    /// Under the `api/annotations` group.
    func addRoutes(to group: RouterGroup<ReviewContext>) {
        group.get(use: state)
        group.put(use: save)
    }

    struct Conflict: Encodable { var error: String; var version: String }
    struct Invalid: Encodable { var error: String; var diagnostics: [AnnotationDocument.Finding] }

    func opened() throws -> AnnotationDocument {
        guard let document else { throw ReviewError(.notFound, "no annotation file: start review with --annotations FILE") }
        return document
    }

    @Sendable func state(_ request: Request, context: ReviewContext) async throws -> AnnotationDocument.State {
        try await opened().state()
    }

    @Sendable func save(_ request: Request, context: ReviewContext) async throws -> AnnotationDocument.Saved {
        let document = try opened()
        var request = request
        let body = try await request.collectBody(upTo: ReviewServer.largestSave)
        let edit: AnnotationDocument.Edit
        switch SaveRequest.decode(Array(body.readableBytesView)) {
        case .success(let decoded): edit = decoded
        case .failure(.malformed(let message)): throw ReviewError(.badRequest, message)
        case .failure(.invalid(let problems)):
            throw try Self.invalid(problems.map { AnnotationDocument.Finding(severity: "error", message: $0, line: nil) })
        }
        do {
            return try await document.save(edit)
        } catch let e as AnnotationDocument.SaveError {
            switch e {
            case .conflict(let current):
                throw try ReviewError(.conflict, body: Conflict(error: "The annotation file changed on disk since this page loaded it; nothing was saved.", version: current))
            case .invalid(let findings): throw try Self.invalid(findings)
            case .readOnly(let why): throw ReviewError(.methodNotAllowed, "nothing was saved: \(why)")
            case .unwritable(let why): throw ReviewError(.internalServerError, why)
            }
        }
    }

    /// 422: nothing saved, one finding per problem.
    static func invalid(_ findings: [AnnotationDocument.Finding]) throws -> ReviewError {
        try ReviewError(.unprocessableContent, body: Invalid(error: "nothing was saved: \(findings.count) problem\(findings.count == 1 ? "" : "s") in the segments sent",
                                                             diagnostics: findings))
    }
}

extension AnnotationDocument.State: ResponseEncodable {}
extension AnnotationDocument.Saved: ResponseEncodable {}
