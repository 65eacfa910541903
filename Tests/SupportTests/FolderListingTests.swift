import FileSystem
import Foundation
import XCTest

/// Folders listed as the file system holds their names: a name that is not UTF-8 is reported with its bytes
/// escaped, never turned into another name (FileManager's U+FFFD made a path that does not exist).
final class FolderListingTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("listing-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("sub"), withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    /// Makes `stem` + 0xFF + `suffix` in `folder`: a file, a folder, or a link to `target`.
    func odd(_ folder: URL, _ stem: String, _ suffix: String, folder isFolder: Bool = false, linkTo target: String? = nil) throws {
        let bytes = Array((folder.path + "/" + stem).utf8) + [0xFF] + Array(suffix.utf8)
        let path = bytes.map { CChar(bitPattern: $0) } + [0]
        let rc: Int32
        if let target { rc = symlink(target, path) } else if isFolder { rc = mkdir(path, 0o755) } else {
            let fd = open(path, O_CREAT | O_WRONLY, 0o644)
            rc = fd < 0 ? -1 : close(fd)
        }
        XCTAssertEqual(rc, 0, "errno \(errno)")
    }

    func testNamesThatAreNotUTF8AreReportedWithTheirBytesNotRenamed() throws {
        try Data("{}".utf8).write(to: dir.appendingPathComponent("sub/a.mp4.hands.json"))
        try Data().write(to: dir.appendingPathComponent("é.txt"))
        try odd(dir, "clip", ".mp4")
        try odd(dir, "notes", ".txt")
        try odd(dir, "folder", "", folder: true)
        try odd(dir, "link", "", linkTo: dir.appendingPathComponent("sub").path)
        try odd(dir, ".hidden", ".mp4")
        let listing = try FolderListing.read(dir.path)
        XCTAssertEqual(listing.names, ["sub", "é.txt"].sorted())
        let shown = Dictionary(uniqueKeysWithValues: listing.undecodable.map { (String($0.shown.dropFirst(dir.path.count + 1)), $0) })
        XCTAssertEqual(Set(shown.keys), ["clip\\xFF.mp4", "notes\\xFF.txt", "folder\\xFF", "link\\xFF", ".hidden\\xFF.mp4"])
        XCTAssertEqual(shown["folder\\xFF"]?.isFolder, true)
        XCTAssertEqual(shown["link\\xFF"]?.isFolder, true, "a link is followed to what it names")
        XCTAssertEqual(shown["clip\\xFF.mp4"]?.isFolder, false)
        XCTAssertEqual(shown[".hidden\\xFF.mp4"]?.isHidden, true)
        let media = { (name: String) in name.hasSuffix(".mp4") }
        XCTAssertTrue(shown["clip\\xFF.mp4"]!.lost(searchingFolders: false, wanted: media))
        XCTAssertFalse(shown["notes\\xFF.txt"]!.lost(searchingFolders: true, wanted: media), "a file no walk takes is not lost")
        XCTAssertTrue(shown["folder\\xFF"]!.lost(searchingFolders: true, wanted: media))
        XCTAssertFalse(shown["folder\\xFF"]!.lost(searchingFolders: false, wanted: media), "a folder a walk without -r passes over")
        XCTAssertFalse(shown[".hidden\\xFF.mp4"]!.lost(searchingFolders: true, wanted: media))

        // A walk for keypoint files: the folder so named may hold some, the text file cannot.
        let walk = FolderListing.files(under: dir) { $0.hasSuffix(".hands.json") }
        XCTAssertEqual(walk.files, ["sub/a.mp4.hands.json", "é.txt"].sorted())
        XCTAssertEqual(walk.problems.count, 2, "\(walk.problems)")
        XCTAssertTrue(walk.problems.allSatisfy { $0.contains("folder\\xFF") || $0.contains("link\\xFF") }, "\(walk.problems)")
        XCTAssertThrowsError(try FolderListing.read(dir.appendingPathComponent("é.txt").path)) { XCTAssertTrue("\($0)".contains("cannot be listed"), "\($0)") }
    }
}
