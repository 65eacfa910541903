import Foundation
import VideoIO
import XCTest

/// The input walk as a library: names relative to the input given, hidden files left out, a folder
/// reached twice visited once, and two inputs claiming one output refused naming both.
final class InputFilesTests: XCTestCase {
    var dir: URL!
    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("inputs-\(UUID().uuidString)")
        for path in ["call/0001.jpg", "rock/0001.jpg", "rock/sub/clip.mp4", "rock/.0002.jpg", "rock/notes.txt"] {
            let url = dir.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data([1]).write(to: url)
        }
        try FileManager.default.createSymbolicLink(at: dir.appendingPathComponent("rock/sub/loop"), withDestinationURL: dir.appendingPathComponent("rock"))
    }
    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    func testWalkNamesByRelativePathAndSkipsHiddenFilesAndLoops() throws {
        let found = try InputFiles.collect([dir.appendingPathComponent("rock").path], recursive: true)
        XCTAssertEqual(found.items.map(\.relative), ["0001.jpg", "sub/clip.mp4"])
        XCTAssertEqual(found.otherFiles, 1)
        XCTAssertEqual(found.skipped.count, 1)
        XCTAssertTrue(found.skipped[0].reason.contains("the same folder"), "\(found.skipped)")
        let shallow = try InputFiles.collect([dir.appendingPathComponent("rock").path], recursive: false)
        XCTAssertEqual(shallow.items.map(\.relative), ["0001.jpg"])
        XCTAssertEqual(shallow.subfoldersNotSearched, 1)
    }

    func testTwoInputsClaimingOneOutputAreRefusedNamingBoth() throws {
        XCTAssertThrowsError(try InputFiles.collect([dir.appendingPathComponent("call").path, dir.appendingPathComponent("rock").path],
                                                    recursive: false)) { error in
            guard case InputFiles.Problem.collisions(let count, let listed) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(count, 1)
            XCTAssertTrue(listed.contains("call/0001.jpg") && listed.contains("rock/0001.jpg"), listed)
        }
        // The parent folder names them apart.
        XCTAssertEqual(try InputFiles.collect([dir.path], recursive: true).items.map(\.relative).filter { $0.hasSuffix("0001.jpg") },
                       ["call/0001.jpg", "rock/0001.jpg"])
    }
}
