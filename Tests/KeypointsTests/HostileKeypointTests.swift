import FileSystem
import Foundation
import KeypointFormats
import XCTest
import ZIPFoundation
@testable import Keypoints

/// Keypoint files with numbers past their documented ranges (`InputRange`), cut or emptied, or special
/// files in their place (#45): each is refused naming the file and the frame, never read as a shorter
/// or implausible result.
final class HostileKeypointTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-kp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    func text(landmark: String = "0.5", world: String = "0.01", frames: Int = 1, declared: Int? = nil, t: String = "0.0",
              width: String = "64", fps: String = "25") -> String {
        let rows = (0..<21).map { $0 == 8 ? "[\(landmark), 0.5, 0.0]" : "[0.5, 0.5, 0.0]" }.joined(separator: ",")
        let worldRows = (0..<21).map { $0 == 3 ? "[\(world), 0.0, 0.0]" : "[0.0, 0.0, 0.0]" }.joined(separator: ",")
        let frameList = (0..<frames).map { k in
            "{\"i\": \(k), \"t\": \(k == 0 ? t : "\(Double(k) / 25)"), \"hands\": [{\"chirality\": \"left\", \"handedness\": 0.1, \"landmarks\": [\(rows)], \"world\": [\(worldRows)]}]}"
        }.joined(separator: ",")
        return """
        {"schema": "handpose/keypoints@1", "source": {"path": "a.mp4"}, "video": {"width": \(width), "height": 48, "frames": \(declared ?? frames), "fps": \(fps)},
         "frames": [\(frameList)]}
        """
    }

    func load(_ text: String) -> Error? {
        let url = dir.appendingPathComponent("a.mp4.hands.json")
        try! Data(text.utf8).write(to: url)
        do { _ = try KeypointFile.load(url); return nil } catch { return error }
    }

    func testNumbersOutsideTheirRangesAreRefused() {
        XCTAssertNil(load(text()))
        // MediaPipe's own stray a little outside the frame: kept.
        XCTAssertNil(load(text(landmark: "-0.6")))
        XCTAssertNil(load(text(landmark: "1.7")))
        let cases: [(String, String)] = [
            ("landmark 1e30", text(landmark: "1e30")), ("landmark -11", text(landmark: "-11")),
            ("landmark 3.4e38", text(landmark: "3.4e38")), ("world 1e30", text(world: "1e30")),
            ("time 9.3e15", text(t: "9.3e15")), ("time -1e8", text(t: "-1e8")), ("width 2e6", text(width: "2000000")),
            ("fps 1e300", text(fps: "1e300")), ("fps 2e6", text(fps: "2000000")), ("fps -25", text(fps: "-25")),
            ("frames declared 30, none held", text(frames: 0, declared: 30)), ("no frames", text(frames: 0)),
            ("frames declared 3, 2 held", text(frames: 2, declared: 3)),
        ]
        for (name, text) in cases {
            let error = load(text)
            XCTAssertNotNil(error, name)
            XCTAssertTrue("\(error.map { "\($0)" } ?? "")".contains("a.mp4.hands.json"), "\(name): \(String(describing: error))")
        }
        XCTAssertTrue("\(load(text(landmark: "1e30"))!)".contains("landmark 8"))
        // Valid JSON that no Double holds: said as such, not as "not valid JSON".
        let huge = "\(load(text(landmark: "1e400"))!)"
        XCTAssertTrue(huge.contains("out of range") && huge.contains("1e400"), huge)
        // Valid JSON with a number past what an integer field holds: said as out of range, with its place.
        let wide = "\(load(text(width: "1e30"))!)"
        XCTAssertTrue(wide.contains("out of range") && wide.contains("video.width") && !wide.contains("not valid JSON"), wide)
        let cut = "\(load(String(text().dropLast(3)))!)"
        XCTAssertTrue(cut.contains("not valid JSON") && !cut.contains(".."), cut)
    }

    func testSpecialFilesAreRefusedNotOpened() throws {
        let fifo = dir.appendingPathComponent("f.mp4.hands.json")
        XCTAssertEqual(mkfifo(fifo.path, 0o644), 0)
        XCTAssertThrowsError(try KeypointFile.load(fifo)) { XCTAssertTrue("\($0)".contains("FIFO"), "\($0)") }
        XCTAssertThrowsError(try KeypointFile.load(URL(fileURLWithPath: "/dev/zero"))) { XCTAssertTrue("\($0)".contains("character device"), "\($0)") }
    }

    func testInputRangeConversionsNeverTrap() {
        for v in [Double.nan, .infinity, -.infinity, 9.3e15, 1e30, Double(Int64.max), -1, 1e13 + 1] {
            XCTAssertNil(InputRange.int(v, in: InputRange.frames), "\(v)")
            XCTAssertNil(InputRange.milliseconds(v), "\(v)")
        }
        XCTAssertEqual(InputRange.int(1e13, in: InputRange.frames), 10_000_000_000_000)
        XCTAssertEqual(InputRange.milliseconds(InputRange.seconds.upperBound), 10_000_000_000)
        XCTAssertEqual(InputRange.milliseconds(-0.0), 0)
        XCTAssertEqual(InputRange.wholeText(1e30), "1e+30")
        XCTAssertEqual(InputRange.wholeText(12), "12")
    }

    /// NumPy headers as a hostile file may hold them: the shape's brackets the wrong way round, the header cut,
    /// a shape of more values than any file, fewer data bytes than the shape: each refused naming the file,
    /// never a crash or a shorter array.
    func testHostileNumPyHeadersAreRefused() {
        let good = Npy.encode([Float]([1, 2, 3]), shape: [3])
        XCTAssertEqual(try Npy.read(good, name: "x.npy").values, [1, 2, 3])
        func header(_ edit: (String) -> String) -> Data {
            let length = Int(good[8]) | Int(good[9]) << 8
            let text = String(decoding: good[10..<10 + length], as: UTF8.self)
            let edited = edit(text)
            XCTAssertEqual(edited.utf8.count, text.utf8.count, "same length, so the data stays where it was")
            return good[..<10] + Data(edited.utf8) + good[(10 + length)...]
        }
        let cases: [(String, Data, String)] = [
            ("brackets reversed", header { $0.replacingOccurrences(of: "(3,)", with: ")3,(") }, "no shape"),
            ("header cut", good[..<20], "truncated header"),
            ("data cut", good.dropLast(4), "bytes of data for 3 values"),
        ]
        for (label, data, expected) in cases {
            XCTAssertThrowsError(try Npy.read(Data(data), name: "x.npy"), label) {
                XCTAssertTrue("\($0)".contains("x.npy") && "\($0)".contains(expected), "\(label): \($0)")
            }
        }
        // A shape whose product overflows an Int.
        var big = Npy.header(.float32, shape: [Int(Int32.max), Int(Int32.max), Int(Int32.max)])
        big.append(contentsOf: [0, 0, 0, 0])
        XCTAssertThrowsError(try Npy.read(big, name: "x.npy")) { XCTAssertTrue("\($0)".contains("more values than any file"), "\($0)") }
    }

    /// An `.npz` archive is read only when its members' declared sizes fit the memory reading them takes, and a
    /// member is never unpacked past the size its entry declares: one declaring fewer bytes than it holds (as a
    /// bomb's entry could, its deflated data unpacking to far more) is refused, not read on.
    func testNpzMembersPastTheMemoryOrTheirDeclaredSizeAreRefused() throws {
        let url = dir.appendingPathComponent("data.npz")
        let member = Npy.encode([Float](repeating: 0, count: 1000), shape: [1000])
        try NpzArchive.make([("X.npy", member), ("y.npy", member)]).write(to: url)
        XCTAssertEqual(try NpzArchive.read(url)["X"]?.values.count, 1000)
        XCTAssertNoThrow(try NpzArchive.read(url, memory: UInt64(2 * member.count) * NpzArchive.memoryPerByte))
        XCTAssertThrowsError(try NpzArchive.read(url, memory: UInt64(2 * member.count) * NpzArchive.memoryPerByte - 1)) {
            XCTAssertTrue("\($0)".contains("data.npz") && "\($0)".contains("unpack to more than"), "\($0)")
        }
        // A deflated X.npy whose headers (local, then central) declare 100 bytes fewer than it unpacks to.
        try FileManager.default.removeItem(at: url)
        let zip = try Archive(url: url, accessMode: .create)
        try zip.addEntry(with: "X.npy", type: .file, uncompressedSize: Int64(member.count), compressionMethod: .deflate) { position, size in
            member[Int(position)..<Int(position) + size]
        }
        var bytes = try Data(contentsOf: url)
        func patch(signature: [UInt8], sizeAt offset: Int) {
            var from = bytes.startIndex
            while let r = bytes[from...].firstRange(of: signature) {
                let at = r.lowerBound + offset
                let size = bytes[at..<at + 4].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
                if size == member.count {
                    for k in 0..<4 { bytes[at + k] = UInt8(truncatingIfNeeded: (size - 100) >> (8 * k)) }
                    return
                }
                from = r.upperBound
            }
            XCTFail("no header of X.npy")
        }
        patch(signature: [0x50, 0x4B, 0x03, 0x04], sizeAt: 22)
        patch(signature: [0x50, 0x4B, 0x01, 0x02], sizeAt: 24)
        try bytes.write(to: url)
        XCTAssertThrowsError(try NpzArchive.read(url)) {
            XCTAssertTrue("\($0)".contains("data.npz") && "\($0)".contains("X.npy unpacks to more than the \(member.count - 100) bytes"), "\($0)")
        }
    }
}
