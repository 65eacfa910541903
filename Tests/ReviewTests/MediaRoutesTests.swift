import Foundation
import HTTPTypes
import HummingbirdTesting
@testable import Review
import TestSupport
import VideoIO
import XCTest

/// `GET /media/PATH`: clips and images with their types, and byte ranges as RFC 9110 says (14.1, 14.2).
final class MediaRoutesTests: ReviewTestCase, @unchecked Sendable {
    var clip: Data { get throws { try Data(contentsOf: root.appendingPathComponent("actions/grab_0.mp4")) } }

    func testAClipWholeAndInParts() async throws {
        let whole = try clip
        try await serve { c in
            let all = try await c.request("/media/actions/grab_0.mp4")
            XCTAssertEqual(all.status, .ok)
            XCTAssertEqual(all.data, whole)
            XCTAssertEqual(all.fields, ["content-type: video/mp4", "accept-ranges: bytes", "content-length: \(whole.count)"] + safetyHeaders)
            let part = try await c.request("/media/actions/grab_0.mp4", headers: ["Range": "bytes=100-199"])
            XCTAssertEqual(part.status, .partialContent)
            XCTAssertEqual(part.data, whole[100..<200])
            XCTAssertEqual(part.fields, ["content-type: video/mp4", "accept-ranges: bytes", "content-range: bytes 100-199/\(whole.count)",
                                         "content-length: 100"] + safetyHeaders)
            let r1 = try await c.request("/media/actions/grab_0.mp4", headers: ["Range": "bytes=-10"])
            XCTAssertEqual(r1.data, whole.suffix(10))
        }
    }

    func testRangesFollowRFC9110() async throws {
        let whole = try clip
        try await serve { c in
            // Another unit, broken syntax, several ranges, last before first: ignored, the whole clip sent.
            for range in ["items=0-5", "bytes=abc", "bytes=0-1,5-9", "bytes=5-2", "bytes=1-2-3", "bytes=", "bytes=--5"] {
                let reply = try await c.request("/media/actions/grab_0.mp4", headers: ["Range": range])
                XCTAssertEqual(reply.status, .ok, range)
                XCTAssertEqual(reply.data, whole, range)
                XCTAssertNil(reply.headers[.contentRange], range)
            }
            // One range: the unit in any case, white space around it, an end past the file clamped.
            for (range, part) in [("BYTES=0-3", whole[0..<4]), ("bytes= 10-19 ", whole[10..<20]), ("bytes=0-99999999999999999999999", whole[...]),
                                  ("bytes=\(whole.count - 1)-", whole.suffix(1)), ("bytes=-99999999999999999999", whole[...]), ("bytes=0-", whole[...])] {
                let reply = try await c.request("/media/actions/grab_0.mp4", headers: ["Range": range])
                XCTAssertEqual(reply.status, .partialContent, range)
                XCTAssertEqual(reply.data, Data(part), range)
            }
            // Well-formed and wholly past the end: 416, with the size and a JSON body.
            for range in ["bytes=\(whole.count)-", "bytes=99999999999999999999999-", "bytes=-0"] {
                let reply = try await c.request("/media/actions/grab_0.mp4", headers: ["Range": range])
                XCTAssertEqual(reply.status, .rangeNotSatisfiable, range)
                let body = "{\"error\":\"the range asked for (\(range)) holds none of the clip's \(whole.count) bytes; ask for bytes within 0-\(whole.count - 1)\"}"
                XCTAssertEqual(reply.text, body)
                XCTAssertEqual(reply.fields, ["content-type: application/json", "content-length: \(body.utf8.count)", "content-range: bytes */\(whole.count)",
                                              "accept-ranges: bytes"] + safetyHeaders, range)
            }
        }
    }

    func testTheRangeReader() {
        XCTAssertEqual(ByteRange("bytes=0-0", size: 10), .part(0...0))
        XCTAssertEqual(ByteRange("bytes=-3", size: 10), .part(7...9))
        XCTAssertEqual(ByteRange("bytes=-3", size: 0), .whole, "a suffix of an empty file: nothing to send but the file")
        XCTAssertEqual(ByteRange("bytes=0-", size: 0), .unsatisfiable)
        XCTAssertEqual(ByteRange("bytes=9-", size: 10), .part(9...9))
        XCTAssertEqual(ByteRange("bytes=10-", size: 10), .unsatisfiable)
        XCTAssertEqual(ByteRange("bytes=5-4", size: 10), .whole)
        XCTAssertEqual(ByteRange("bytes=007-0010", size: 10), .part(7...9), "leading zeros")
        XCTAssertEqual(ByteRange("bytes=1-2,", size: 10), .part(1...2), "an empty list element is no range")
        XCTAssertEqual(ByteRange("bytes=\t1-2", size: 10), .part(1...2))
        XCTAssertEqual(ByteRange("bytes 1-2", size: 10), .whole)
        XCTAssertTrue(ByteRange.less("0009", than: "10"))
        XCTAssertFalse(ByteRange.less("10", than: "10"))
    }

    func testImagesAndOtherFiles() async throws {
        let png = Self.repository.appendingPathComponent("Samples/poses/fist/fist_0.png")
        try FileManager.default.copyItem(at: png, to: root.appendingPathComponent("still.png"))
        try FileManager.default.copyItem(at: root.appendingPathComponent("actions/grab_0.mp4"), to: root.appendingPathComponent("actions/with space.mp4"))
        try await serve { c in
            let still = try await c.request("/media/still.png")
            XCTAssertEqual(still.status, .ok)
            XCTAssertEqual(still.headers[.contentType], "image/png")
            XCTAssertEqual(still.data, try Data(contentsOf: png))
            let spaced = try await c.request("/media/actions/with%20space.mp4", headers: ["Range": "bytes=0-3"])
            XCTAssertEqual(spaced.status, .partialContent, "the path percent-decoded")
            let csv = try await c.request("/media/annotations.csv")
            XCTAssertEqual(csv.status, .unsupportedMediaType)
            XCTAssertEqual(csv.text, "{\"error\":\"annotations.csv is not a clip or an image\"}")
            let r2 = try await c.request("/media/actions")
            XCTAssertEqual(r2.status, .notFound, "a folder is no file")
        }
    }

    /// An MJPEG AVI, as many cameras write: served as an H.264 MP4 made once in KEYPOINTS/.review-cache.
    func testAClipABrowserCannotPlayIsConvertedOnce() async throws {
        let ffmpeg = "/usr/bin/ffmpeg"
        guard FileManager.default.isExecutableFile(atPath: ffmpeg) else { throw Prerequisite.missing("\(ffmpeg) is absent; make setup installs it") }
        let avi = root.appendingPathComponent("actions/cam.avi")
        let make = Process()
        make.executableURL = URL(fileURLWithPath: ffmpeg)
        make.arguments = ["-v", "error", "-i", root.appendingPathComponent("actions/grab_0.mp4").path, "-c:v", "mjpeg", "-q:v", "3", avi.path]
        try make.run()
        make.waitUntilExit()
        XCTAssertEqual(make.terminationStatus, 0)
        let cached = keypoints.appendingPathComponent(".review-cache/actions/cam.avi.mp4")
        try await serve { c in
            let reply = try await c.request("/media/actions/cam.avi")
            XCTAssertEqual(reply.status, .ok)
            XCTAssertEqual(reply.headers[.contentType], "video/mp4")
            XCTAssertEqual(try Data(contentsOf: cached), reply.data)
            let stamp = try cached.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate
            _ = try await c.request("/media/actions/cam.avi")
            XCTAssertEqual(try cached.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate, stamp, "made once")
        }
        // H.264, and every frame at the time the source gives it (the keypoint file's clock).
        let converted = try VideoReader(url: cached), source = try VideoReader(url: avi)
        XCTAssertEqual(converted.info.codec, "h264")
        var times: [[Double]] = [[], []]
        for (k, r) in [converted, source].enumerated() { while let f = try r.nextFrame() { times[k].append(f.time) } }
        XCTAssertEqual(times[0].count, 30)
        for (a, b) in zip(times[0], times[1]) { XCTAssertEqual(a, b, accuracy: 0.001) }
    }
}
