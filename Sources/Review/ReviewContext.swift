import Foundation
import HTTPTypes
import Hummingbird

/// The context of every request the review server answers: Hummingbird's basic one, whose responses
/// (what a route returns that is `ResponseEncodable`) are written by `ReviewJSON`.
public struct ReviewContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    public init(source: Source) { coreContext = .init(source: source) }
    public var responseEncoder: ReviewJSON { ReviewJSON() }
}

/// JSON as the server writes it: keys sorted, paths (the most of what messages hold) written as they
/// are rather than as \/, `Content-Type: application/json` (no charset parameter: JSON is UTF-8) and the
/// body's length.
public struct ReviewJSON: ResponseEncoder {
    public func encode(_ value: some Encodable, from request: Request, context: some RequestContext) throws -> Response {
        Self.response(.ok, type: "application/json", body: try Self.encode(value))
    }

    static func encode(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }

    /// A whole body with its type and length.
    static func response(_ status: HTTPResponse.Status, type: String, body: Data) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.contentLength] = String(body.count)
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }
}
