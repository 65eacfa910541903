import FileSystem
import Foundation
import HTTPTypes
import Hummingbird

/// A file sent whole or as the one byte range the request asks for (`ByteRange`). Opened through
/// `RegularFile` (never waiting on a FIFO) and read from that descriptor, so what is sent is the file
/// that was checked.
enum FileResponse {
    /// An open file, closed when the last response body reading it is done with (or never written).
    final class OpenFile: Sendable {
        let fd: Int32
        init(_ fd: Int32) { self.fd = fd }
        deinit { close(fd) }
    }

    /// Bytes read from the file at a time.
    static let chunk = 256 << 10

    /// The response for `file`, of media type `type`; a range past the end is thrown as a 416.
    static func send(_ file: URL, type: String, request: Request) throws -> Response {
        let open = OpenFile(try RegularFile.open(file.path))
        var st = stat()
        guard fstat(open.fd, &st) == 0, let size = Int(exactly: st.st_size), size >= 0 else {
            throw RegularFile.Refusal(path: file.path, reason: "cannot be examined (\(String(cString: strerror(errno))))")
        }
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.acceptRanges] = "bytes"
        var range = 0..<size
        var status = HTTPResponse.Status.ok
        if let asked = request.headers[.range] {
            switch ByteRange(asked, size: size) {
            case .whole: break
            case .part(let r):
                range = r.lowerBound..<(r.upperBound + 1)
                status = .partialContent
                headers[.contentRange] = "bytes \(r.lowerBound)-\(r.upperBound)/\(size)"
            case .unsatisfiable:
                var refusal = ReviewError(.rangeNotSatisfiable,
                                          "the range asked for (\(asked.prefix(80))) holds none of the clip's \(size) bytes; ask for bytes within 0-\(max(0, size - 1))")
                refusal.headers[.contentRange] = "bytes */\(size)"
                refusal.headers[.acceptRanges] = "bytes"
                throw refusal
            }
        }
        headers[.contentLength] = String(range.count)
        return Response(status: status, headers: headers, body: body(open, range, path: file.path))
    }

    /// Reads on the task that writes the body: a regular file's reads are short, and the descriptor is
    /// the one checked (a path handed to another reader could be swapped for a FIFO meanwhile).
    static func body(_ open: OpenFile, _ sent: Range<Int>, path: String) -> ResponseBody {
        ResponseBody(contentLength: sent.count) { writer in
            var offset = sent.lowerBound
            var buffer = [UInt8](repeating: 0, count: min(chunk, max(sent.count, 1)))
            while offset < sent.upperBound {
                let want = min(buffer.count, sent.upperBound - offset)
                let n = buffer.withUnsafeMutableBytes { pread(open.fd, $0.baseAddress, want, off_t(offset)) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else {
                    throw RegularFile.Refusal(path: path, reason: n == 0 ? "became shorter while being sent" : "cannot be read (\(String(cString: strerror(errno))))")
                }
                try await writer.write(ByteBuffer(bytes: buffer[0..<n]))
                offset += n
            }
            try await writer.finish(nil)
        }
    }
}
