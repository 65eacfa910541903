import FileSystem
import Foundation
import XCTest

/// `bench`'s helper scripts are found beside an installed binary first, then in ./scripts; when
/// neither holds one, the error names every place looked.
final class HelperScriptsTests: XCTestCase {
    var dir: URL!
    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("scripts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }
    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    private func touch(_ path: String) throws {
        let url = dir.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("print()\n".utf8).write(to: url)
    }

    func testInstalledCopyFirstThenCheckoutThenEveryPlaceNamed() throws {
        let binary = dir.appendingPathComponent("prefix/bin/handpose")
        let checkout = dir.appendingPathComponent("checkout")
        let scripts = HelperScripts(executable: binary, workingDirectory: checkout)

        XCTAssertThrowsError(try scripts.url(for: "tflite_reference.py")) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains(dir.appendingPathComponent("prefix/share/handpose/scripts").path), text)
            XCTAssertTrue(text.contains(checkout.appendingPathComponent("scripts").path), text)
            XCTAssertEqual((error as? HelperScripts.NotFound)?.looked.count, 2)
        }

        try touch("checkout/scripts/tflite_reference.py")
        XCTAssertEqual(try scripts.url(for: "tflite_reference.py").path,
                       checkout.appendingPathComponent("scripts/tflite_reference.py").path)

        try touch("prefix/share/handpose/scripts/tflite_reference.py")
        XCTAssertEqual(try scripts.url(for: "tflite_reference.py").path,
                       dir.appendingPathComponent("prefix/share/handpose/scripts/tflite_reference.py").path)
    }

    func testTheRunningBinaryIsLookedBeside() throws {
        // Without an injected executable, the folder beside this test binary comes first.
        let scripts = HelperScripts(workingDirectory: dir)
        let exe = try XCTUnwrap(Executable.url)
        XCTAssertEqual(scripts.candidates.first?.folder.path,
                       exe.deletingLastPathComponent().appendingPathComponent("../share/handpose/scripts").standardizedFileURL.path)
        XCTAssertEqual(scripts.candidates.last?.folder.path, dir.appendingPathComponent("scripts").path)
    }
}
