import FileSystem
import Foundation
import XCTest

/// Temporary names: one that would pass a file name's 255 bytes is cut and tagged, still its own; and the
/// temporaries a killed run left on this machine go at the next run's start, while a live process's stay.
final class AtomicFileTests: XCTestCase {
    var dir: URL!
    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("atomic-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }
    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    func testALongNameIsWrittenThroughATemporaryThatFits() throws {
        for stem in [String(repeating: "a", count: 235), String(repeating: "é", count: 117) + "a", String(repeating: "ab", count: 117)] {
            let url = dir.appendingPathComponent(stem + ".hands.json")
            XCTAssertLessThanOrEqual(url.lastPathComponent.utf8.count, 255)
            let temporary = AtomicFile.temporaryURL(for: url)
            XCTAssertLessThanOrEqual(temporary.lastPathComponent.utf8.count, 255, temporary.lastPathComponent)
            XCTAssertTrue(temporary.lastPathComponent.hasPrefix(".") && temporary.lastPathComponent.hasSuffix(".partial"))
            try AtomicFile.write(Data("x".utf8), to: url)
            XCTAssertEqual(try Data(contentsOf: url), Data("x".utf8))
        }
        // Two long names that share their start get temporaries of their own.
        let a = AtomicFile.temporaryURL(for: dir.appendingPathComponent(String(repeating: "a", count: 250) + "1"))
        let b = AtomicFile.temporaryURL(for: dir.appendingPathComponent(String(repeating: "a", count: 250) + "2"))
        XCTAssertNotEqual(a, b)
        XCTAssertEqual(AtomicFile.fitted(".", "short.json", ".x.partial"), ".short.json.x.partial")
    }

    func testStaleTemporariesOfThisMachineAreRemovedLiveOnesKept() throws {
        let ended = Process()
        ended.executableURL = URL(fileURLWithPath: "/bin/true")
        try ended.run(); ended.waitUntilExit()
        let sub = dir.appendingPathComponent("sub")
        try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
        let dead = AtomicFile.temporaryURL(for: sub.appendingPathComponent("a.mp4.hands.json"), pid: ended.processIdentifier)
        let live = AtomicFile.temporaryURL(for: dir.appendingPathComponent("b.mp4.hands.json"))
        let elsewhere = dir.appendingPathComponent(".c.mp4.hands.json.another-host.\(ended.processIdentifier).partial")
        for url in [dead, live, elsewhere] { try Data().write(to: url) }
        XCTAssertEqual(AtomicFile.removeStale(under: dir), [dead.path])
        XCTAssertFalse(FileManager.default.fileExists(atPath: dead.path))
        XCTAssertTrue(FileManager.default.fileExists(atPath: live.path))
        XCTAssertTrue(FileManager.default.fileExists(atPath: elsewhere.path))
    }
}
