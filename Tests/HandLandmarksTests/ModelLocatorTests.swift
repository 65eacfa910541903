import Foundation
import XCTest
@testable import HandLandmarks

/// The models are found in the documented order, and a miss lists every place looked.
final class ModelLocatorTests: XCTestCase {
    var dir: URL!
    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("models-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }
    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    /// A folder holding (empty stand-ins named as) the full models: the locator only looks for names.
    func folder(_ path: String) throws -> URL {
        let url = dir.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        for name in HandModels.fileNames(.full) { try Data().write(to: url.appendingPathComponent(name)) }
        return url.standardizedFileURL
    }

    func locator(explicit: String? = nil, env: [String: String] = [:]) -> ModelLocator {
        ModelLocator(explicit: explicit, environment: ["HOME": dir.appendingPathComponent("home").path].merging(env) { $1 },
                     executable: dir.appendingPathComponent("prefix/bin/handpose"), workingDirectory: dir.appendingPathComponent("work"))
    }

    func testEachPlaceInOrder() throws {
        // Nothing anywhere: the error names all four default places and how to fill them.
        XCTAssertThrowsError(try locator().folder(for: .full)) { error in
            let text = "\(error)"
            for place in ["prefix/share/handpose/models", "home/.local/share/handpose/models", "work/Models", "make install", "--models"] {
                XCTAssertTrue(text.contains(place), "\(place): \(text)")
            }
        }
        let checkout = try folder("work/Models")
        XCTAssertEqual(try locator().folder(for: .full).path, checkout.path)
        let xdg = try folder("home/.local/share/handpose/models")
        XCTAssertEqual(try locator().folder(for: .full).path, xdg.path)
        let custom = try folder("xdg/handpose/models")
        XCTAssertEqual(try locator(env: ["XDG_DATA_HOME": dir.appendingPathComponent("xdg").path]).folder(for: .full).path, custom.path)
        let installed = try folder("prefix/share/handpose/models")
        XCTAssertEqual(try locator().folder(for: .full).path, installed.path)
        let fromEnv = try folder("env")
        XCTAssertEqual(try locator(env: ["HANDPOSE_MODELS": fromEnv.path]).folder(for: .full).path, fromEnv.path)
        let explicit = try folder("flag")
        XCTAssertEqual(try locator(explicit: explicit.path, env: ["HANDPOSE_MODELS": fromEnv.path]).folder(for: .full).path, explicit.path)
        // --models is the only place looked when given; lite models are looked for by their own names.
        XCTAssertThrowsError(try locator(explicit: dir.appendingPathComponent("nowhere").path).folder(for: .full))
        XCTAssertThrowsError(try locator().folder(for: .lite))
    }
}
