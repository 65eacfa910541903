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

    /// A link to nothing (a disk not mounted) that could be a clip, or with -r a folder of them (a name without an
    /// extension), is an input lost, named with its target; a file a walk would not take anyway is only passed over.
    func testLinksToNothingAreLostInputsNamingTheirTarget() throws {
        let rock = dir.appendingPathComponent("rock")
        try FileManager.default.createSymbolicLink(atPath: rock.appendingPathComponent("gone.mp4").path, withDestinationPath: "/nonexistent/gone.mp4")
        try FileManager.default.createSymbolicLink(atPath: rock.appendingPathComponent("session2").path, withDestinationPath: "/mnt/unmounted/session2")
        try FileManager.default.createSymbolicLink(atPath: rock.appendingPathComponent("notes2.txt").path, withDestinationPath: "/nonexistent/notes2.txt")
        let deep = try InputFiles.collect([rock.path], recursive: true)
        let lost = deep.skipped.filter(\.lost).map { URL(fileURLWithPath: $0.path).lastPathComponent }
        XCTAssertEqual(Set(lost), ["gone.mp4", "session2"], "\(deep.skipped)")
        XCTAssertTrue(deep.skipped.contains { $0.path.hasSuffix("notes2.txt") && !$0.lost }, "named, not lost: \(deep.skipped)")
        XCTAssertTrue(deep.skipped.contains { $0.reason.contains("/mnt/unmounted/session2") }, "\(deep.skipped)")
        let shallow = try InputFiles.collect([rock.path], recursive: false)
        XCTAssertEqual(shallow.skipped.filter(\.lost).map { URL(fileURLWithPath: $0.path).lastPathComponent }, ["gone.mp4"], "\(shallow.skipped)")
    }

    /// `café.mp4` in NFC and in NFD are two files on Linux with two outputs, not a collision.
    func testNamesDifferingOnlyInNormalisationAreTwoInputs() throws {
        let folder = dir.appendingPathComponent("cafe")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in ["caf\u{E9}.mp4", "cafe\u{301}.mp4"] { try Data([1]).write(to: folder.appendingPathComponent(name)) }
        let found = try InputFiles.collect([folder.path], recursive: false)
        XCTAssertEqual(found.items.count, 2)
        XCTAssertEqual(Set(found.items.map { Array($0.relative.utf8) }).count, 2)
    }

    /// Where the output's file system folds names (normalisation, letter case), inputs that differ only so are
    /// refused as a collision; this one (Linux's) folds neither, and the probe leaves nothing behind.
    func testNamesFoldedByTheOutputsFileSystemCollide() throws {
        let items = ["caf\u{E9}.mp4", "cafe\u{301}.mp4", "a.mp4", "A.mp4"].map { InputFiles.Item(url: dir.appendingPathComponent($0), relative: $0) }
        XCTAssertNoThrow(try InputFiles.refuseCollisions(items))
        for folding in [InputFiles.NameFolding(normalization: true), InputFiles.NameFolding(letterCase: true)] {
            XCTAssertThrowsError(try InputFiles.refuseCollisions(items, folding: folding)) { error in
                guard case InputFiles.Problem.collisions(let count, _) = error else { return XCTFail("\(error)") }
                XCTAssertEqual(count, 1)
            }
        }
        XCTAssertEqual(InputFiles.nameFolding(in: dir), InputFiles.NameFolding())
        XCTAssertFalse(try FileManager.default.contentsOfDirectory(atPath: dir.path).contains { $0.hasPrefix(".handpose-names") })
        // An output folder not made yet is probed in the nearest folder above it (this one, which folds nothing),
        // and is not made by the probe.
        let later = dir.appendingPathComponent("not/made/yet")
        XCTAssertNoThrow(try InputFiles.refuseFoldedCollisions(items, writtenIn: later))
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.appendingPathComponent("not").path))
        XCTAssertFalse(try FileManager.default.contentsOfDirectory(atPath: dir.path).contains { $0.hasPrefix(".handpose-names") })
    }
}
