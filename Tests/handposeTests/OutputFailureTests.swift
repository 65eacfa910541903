import Foundation
import Keypoints
import XCTest

/// An output that cannot be written (a full disk) is the output's fault: `extract` exits 3 whatever
/// --failed-inputs-ok says, blames no input, starts no further file once the disk is full, and leaves no
/// temporary file; `status` exits 3 when its index cannot be written.
final class OutputFailureTests: XCTestCase {
    var dir: URL!, small: URL!
    var mounted = false

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("outfail-\(UUID().uuidString)")
        small = dir.appendingPathComponent("small")
        try FileManager.default.createDirectory(at: small, withIntermediateDirectories: true)
    }

    override func tearDown() {
        if mounted { _ = Self.command("/bin/umount", [small.path]) }
        try? FileManager.default.removeItem(at: dir)
    }

    static func command(_ path: String, _ arguments: [String]) -> Int32 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = arguments
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        do { try p.run() } catch { return -1 }
        p.waitUntilExit()
        return p.terminationStatus
    }

    /// A 1 MiB file system with 16 KiB left: too little for one clip's keypoints.
    func fullDisk() throws {
        guard Self.command("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", small.path]) == 0 else {
            print("SKIP: cannot mount a small tmpfs (not root, or no mount here); the full-disk case needs one")
            throw XCTSkip("cannot mount a tmpfs: not root, or no mount namespace of its own")
        }
        mounted = true
        try Data(count: (1 << 20) - (16 << 10)).write(to: small.appendingPathComponent("filler"))
    }

    /// Takes the small file system's last bytes.
    func fillUp() throws {
        let filler = small.appendingPathComponent("filler")
        if !FileManager.default.fileExists(atPath: filler.path) { FileManager.default.createFile(atPath: filler.path, contents: nil) }
        let rest = try FileHandle(forWritingTo: filler)
        rest.seekToEndOfFile()
        while (try? rest.write(contentsOf: Data(count: 1024))) != nil {}
        try? rest.close()
    }

    func testAFullDiskIsExit3BlamesNoInputAndStopsStartingFiles() throws {
        try fullDisk()
        let clips = ToolRunner.root.appendingPathComponent("Samples/actions")
        let out = small.appendingPathComponent("out")
        let (code, text) = try ToolRunner.run(["extract", clips.path, "-o", out.path, "--jobs", "1", "--failed-inputs-ok", "--models", try ToolRunner.models()])
        XCTAssertEqual(code, 3, text)
        XCTAssertTrue(text.contains("1 not written"), text)
        XCTAssertTrue(text.contains("not started (the output's disk is full or read-only"), text)
        XCTAssertTrue(text.contains("No space left on device"), text)
        let left = FileManager.default.enumerator(atPath: out.path).map { $0.compactMap { $0 as? String } } ?? []
        XCTAssertFalse(left.contains { $0.hasSuffix(".failed.json") || $0.hasSuffix(".partial") }, "\(left)")
        for name in left where name.hasSuffix(".hands.json") {
            XCTAssertNoThrow(try KeypointFile.load(out.appendingPathComponent(name)), name)
        }
        // With the last bytes taken, the index of `status` cannot be written: its report is printed, and exit 3.
        try fillUp()
        let (statusCode, statusText) = try ToolRunner.run(["status", out.path, "--inputs", clips.path, "--models", try ToolRunner.models()])
        XCTAssertEqual(statusCode, 3, statusText)
        XCTAssertTrue(statusText.contains("index: not written") && statusText.contains("out of date"), statusText)
    }

    /// An index that already says what is on disk is not rewritten: `status` on a full (or read-only) disk then
    /// exits by the inputs alone.
    func testAnUnchangedIndexIsNotRewritten() throws {
        try fullDisk()
        try FileManager.default.removeItem(at: small.appendingPathComponent("filler"))
        let clips = ToolRunner.root.appendingPathComponent("Samples/actions")
        let out = small.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let first = try ToolRunner.run(["status", out.path, "--inputs", clips.path, "--models", try ToolRunner.models()])
        XCTAssertEqual(first.0, 1, first.1)
        XCTAssertTrue(first.1.contains("index: " + out.path), first.1)
        try fillUp()
        let again = try ToolRunner.run(["status", out.path, "--inputs", clips.path, "--models", try ToolRunner.models()])
        XCTAssertEqual(again.0, 1, again.1)
        XCTAssertFalse(again.1.contains("not written"), again.1)
    }

    /// An output name too long for the file system is that input's failure (exit 1, named, recorded), not the
    /// output's: the other inputs are done, and --failed-inputs-ok gives 0.
    func testAnOutputNameTooLongIsThatInputsFailure() throws {
        let input = dir.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        let long = String(repeating: "x", count: 242) + ".mp4"
        try FileManager.default.copyItem(at: ToolRunner.root.appendingPathComponent("Samples/actions/grab_0.mp4"), to: input.appendingPathComponent(long))
        try FileManager.default.copyItem(at: ToolRunner.root.appendingPathComponent("Samples/actions/wave_0.mp4"), to: input.appendingPathComponent("wave_0.mp4"))
        let out = dir.appendingPathComponent("out")
        let (code, text) = try ToolRunner.run(["extract", input.path, "-o", out.path, "--jobs", "1", "--models", try ToolRunner.models()])
        XCTAssertEqual(code, 1, text)
        XCTAssertTrue(text.contains("File name too long") && text.contains("1 failed"), text)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out.appendingPathComponent("wave_0.mp4.hands.json").path), text)
        // Its failure is recorded (under a fitted name) and `status` gives the reason.
        let (statusCode, statusText) = try ToolRunner.run(["status", out.path, "--inputs", input.path, "--models", try ToolRunner.models()])
        XCTAssertEqual(statusCode, 1, statusText)
        XCTAssertTrue(statusText.contains("1 failed") && statusText.contains("File name too long"), statusText)
        let (okCode, okText) = try ToolRunner.run(["extract", input.path, "-o", out.path, "--jobs", "1", "--failed-inputs-ok", "--models", try ToolRunner.models()])
        XCTAssertEqual(okCode, 0, okText)
    }
}
