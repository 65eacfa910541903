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
        let rest = try FileHandle(forWritingTo: small.appendingPathComponent("filler"))
        rest.seekToEndOfFile()
        while (try? rest.write(contentsOf: Data(count: 1024))) != nil {}
        try? rest.close()
        let (statusCode, statusText) = try ToolRunner.run(["status", out.path, "--inputs", clips.path, "--models", try ToolRunner.models()])
        XCTAssertEqual(statusCode, 3, statusText)
        XCTAssertTrue(statusText.contains("index: not written") && statusText.contains("out of date"), statusText)
    }
}
