import FileSystem
import Foundation
import Support
import XCTest

/// The models, `bench`'s scripts and the review page are found in their documented order, and a miss names
/// every place looked and how to put the files there.
final class InstalledFilesTests: XCTestCase {
    var dir: URL!
    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("installed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }
    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    static let models = ["palm_detection_full.tflite", "hand_landmark_full.tflite"]

    /// A folder holding (empty stand-ins named as) `names`: the look-up only looks for names.
    @discardableResult
    func folder(_ path: String, holding names: [String] = models) throws -> URL {
        let url = dir.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        for name in names { try Data().write(to: url.appendingPathComponent(name)) }
        return url.standardizedFileURL
    }

    func files(_ kind: InstalledFiles.Kind, explicit: String? = nil, env: [String: String] = [:]) -> InstalledFiles {
        InstalledFiles(kind, explicit: explicit, environment: ["HOME": dir.appendingPathComponent("home").path].merging(env) { $1 },
                       executable: dir.appendingPathComponent("prefix/bin/handpose"), workingDirectory: dir.appendingPathComponent("work"))
    }

    func testModelsInEachPlaceInOrder() throws {
        // Nothing anywhere: the error names all four default places and how to fill them.
        XCTAssertThrowsError(try files(.models).folder(holding: Self.models)) { error in
            let text = "\(error)"
            for place in ["prefix/share/handpose/models", "home/.local/share/handpose/models", "work/Models", "make install", "--models",
                          "palm_detection_full.tflite and hand_landmark_full.tflite"] {
                XCTAssertTrue(text.contains(place), "\(place): \(text)")
            }
        }
        let checkout = try folder("work/Models")
        XCTAssertEqual(try files(.models).folder(holding: Self.models).path, checkout.path)
        let xdg = try folder("home/.local/share/handpose/models")
        XCTAssertEqual(try files(.models).folder(holding: Self.models).path, xdg.path)
        let custom = try folder("xdg/handpose/models")
        XCTAssertEqual(try files(.models, env: ["XDG_DATA_HOME": dir.appendingPathComponent("xdg").path]).folder(holding: Self.models).path, custom.path)
        let installed = try folder("prefix/share/handpose/models")
        XCTAssertEqual(try files(.models).folder(holding: Self.models).path, installed.path)
        let fromEnv = try folder("env")
        XCTAssertEqual(try files(.models, env: ["HANDPOSE_MODELS": fromEnv.path]).folder(holding: Self.models).path, fromEnv.path)
        let explicit = try folder("flag")
        XCTAssertEqual(try files(.models, explicit: explicit.path, env: ["HANDPOSE_MODELS": fromEnv.path]).folder(holding: Self.models).path,
                       explicit.path)
        // --models is the only place looked when given; a folder must hold every file asked for.
        XCTAssertThrowsError(try files(.models, explicit: dir.appendingPathComponent("nowhere").path).folder(holding: Self.models))
        XCTAssertThrowsError(try files(.models).folder(holding: ["palm_detection_lite.tflite", "hand_landmark_lite.tflite"]))
        try folder("half", holding: [Self.models[0]])
        XCTAssertThrowsError(try files(.models, explicit: dir.appendingPathComponent("half").path).folder(holding: Self.models))
    }

    func testScriptsInstalledCopyFirstThenCheckout() throws {
        let scripts = files(.scripts)
        XCTAssertThrowsError(try scripts.url(for: "tflite_reference.py")) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("the helper script tflite_reference.py"), text)
            XCTAssertTrue(text.contains(dir.appendingPathComponent("prefix/share/handpose/scripts").path), text)
            XCTAssertTrue(text.contains(dir.appendingPathComponent("work/scripts").path), text)
            XCTAssertEqual((error as? InstalledFiles.NotFound)?.looked.count, 2)
        }
        try folder("work/scripts", holding: ["tflite_reference.py"])
        XCTAssertEqual(try scripts.url(for: "tflite_reference.py").path, dir.appendingPathComponent("work/scripts/tflite_reference.py").path)
        try folder("prefix/share/handpose/scripts", holding: ["tflite_reference.py"])
        XCTAssertEqual(try scripts.url(for: "tflite_reference.py").path,
                       dir.appendingPathComponent("prefix/share/handpose/scripts/tflite_reference.py").path)
    }

    func testPageFromTheBuildFolderThenTheInstalledTree() throws {
        let page = files(.page)
        XCTAssertThrowsError(try page.folder(holding: ["index.html"])) { error in
            XCTAssertTrue("\(error)".contains("the review page (index.html)"), "\(error)")
        }
        let installed = try folder("prefix/share/handpose/review", holding: ["index.html"])
        XCTAssertEqual(try page.folder(holding: ["index.html"]).path, installed.path)
        let built = try folder("prefix/bin/handpose_Review.resources/Page", holding: ["index.html"])
        XCTAssertEqual(try page.folder(holding: ["index.html"]).path, built.path)
    }

    func testTheRunningBinaryIsLookedBeside() throws {
        // Without an injected executable, the folder beside this test binary comes first.
        let scripts = InstalledFiles(.scripts, workingDirectory: dir)
        let exe = try XCTUnwrap(Executable.url)
        XCTAssertEqual(scripts.candidates.first?.folder.path,
                       exe.deletingLastPathComponent().appendingPathComponent("../share/handpose/scripts").standardizedFileURL.path)
        XCTAssertEqual(scripts.candidates.last?.folder.path, dir.appendingPathComponent("scripts").path)
    }

    func testStableHashAndSeededNumbersNeverChange() {
        // Shards and augmentation seeds are derived from these: a change would move files between shards.
        XCTAssertEqual(StableHash.fnv1a(""), 0xcbf29ce484222325)
        XCTAssertEqual(StableHash.fnv1a("a"), 0xaf63dc4c8601ec8c)
        var g = SplitMix64(seed: 0)
        XCTAssertEqual(g.next(), 0xe220a8397b1dcdaf)
        let u = g.uniform(2, 3)
        XCTAssertTrue((2..<3).contains(u))
    }
}
