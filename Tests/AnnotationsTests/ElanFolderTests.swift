import Annotations
import FileSystem
import Foundation
import XCTest

/// `annotations convert` and `suggest` write ELAN folders whole: a replaced folder keeps no `.eaf` of an
/// earlier run, only a folder of `.eaf` files is replaced, and a single `.eaf` holds one clip.
final class ElanFolderTests: XCTestCase {
    var dir: URL!
    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("elan-folder-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }
    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    func segment(_ clip: String, _ label: String) -> Segment {
        Segment(video: dir.appendingPathComponent(clip), videoPath: clip, label: label, start: 0.5, end: 1.5, source: "test", line: 1)
    }

    func files(_ folder: URL) -> [String] {
        (FileManager.default.enumerator(atPath: folder.path)?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".eaf") }.sorted()
    }

    func testAFolderIsReplacedWholeAndOnlyWhenItHoldsELANFiles() throws {
        let out = dir.appendingPathComponent("eaf")
        try ElanFolder.write([segment("a.mp4", "wave"), segment("sub/b.mp4", "point")], to: out, overwrite: false)
        XCTAssertEqual(files(out), ["a.mp4.eaf", "sub/b.mp4.eaf"])
        // Without --overwrite a folder that holds files is refused; with it, the earlier .eaf files are gone.
        XCTAssertThrowsError(try ElanFolder.write([segment("c.mp4", "wave")], to: out, overwrite: false)) { error in
            XCTAssertTrue("\(error)".contains("--overwrite"), "\(error)")
        }
        // A file manager's hidden file does not make it someone else's folder.
        try Data().write(to: out.appendingPathComponent(".DS_Store"))
        try ElanFolder.write([segment("c.mp4", "wave")], to: out, overwrite: true)
        XCTAssertEqual(files(out), ["c.mp4.eaf"])
        XCTAssertTrue(try String(contentsOf: out.appendingPathComponent("c.mp4.eaf"), encoding: .utf8).contains("wave"))
        // A folder holding anything but .eaf files is not one handpose wrote: never replaced.
        try Data("notes".utf8).write(to: out.appendingPathComponent("notes.txt"))
        XCTAssertThrowsError(try ElanFolder.write([segment("d.mp4", "wave")], to: out, overwrite: true)) { error in
            XCTAssertTrue(error is StagedFolder.Refusal, "\(error)")
            XCTAssertTrue("\(error)".contains("holds files other than .eaf"), "\(error)")
        }
        XCTAssertEqual(files(out), ["c.mp4.eaf"])
        // Nothing staged is left beside it.
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix(".") }, [])
    }

    func testOneFileHoldsOneClip() throws {
        let one = dir.appendingPathComponent("one.eaf")
        try ElanFolder.write([segment("a.mp4", "wave"), segment("a.mp4", "point")], to: one, overwrite: false)
        XCTAssertTrue(FileManager.default.fileExists(atPath: one.path))
        XCTAssertThrowsError(try ElanFolder.write([segment("a.mp4", "wave"), segment("b.mp4", "point")], to: dir.appendingPathComponent("two.eaf"),
                                                  overwrite: false)) { error in
            XCTAssertEqual(error as? ElanFolder.WriteError, .severalClips(path: dir.appendingPathComponent("two.eaf").path, count: 2))
        }
    }
}
