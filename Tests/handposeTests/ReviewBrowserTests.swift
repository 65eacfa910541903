import Foundation
import TestSupport
import XCTest

/// `handpose review` in a real browser: Debian's Chromium, headless, driven by Selenium from .venv
/// (`make setup` installs both) through Tests/Browser/review_browser.py, on a copy of Samples after
/// `extract`, as a new user would run it after `make run`. The script checks the list, the skeleton's
/// pixels against the keypoint file at a known time, a segment made with the keyboard, moved, saved and
/// read back from disk, and a save refused after the file changed on disk; it leaves its screenshots in
/// .build/review-screenshots. Then `validate` must accept the file the page saved.
final class ReviewBrowserTests: XCTestCase {
    func testTheReviewPageInChromium() throws {
        _ = try ToolRunner.models()
        let python = ToolRunner.root.appendingPathComponent(".venv/bin/python").path
        for tool in ["/usr/bin/chromium", "/usr/bin/chromedriver", python] where !FileManager.default.isExecutableFile(atPath: tool) {
            throw Prerequisite.missing("\(tool) is absent; `make setup` installs Chromium, its driver and Selenium")
        }
        guard (try ToolRunner.process(python, ["-c", "import selenium"])).0 == 0 else { throw Prerequisite.missing("Selenium is not in .venv; run `make setup`") }

        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("review-browser-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let samples = dir.appendingPathComponent("Samples"), keypoints = dir.appendingPathComponent("keypoints")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: ToolRunner.root.appendingPathComponent("Samples"), to: samples)
        let (code, out) = try ToolRunner.run(["extract", samples.path, "-r", "-o", keypoints.path, "-q"])
        XCTAssertEqual(code, 0, out)
        let annotations = samples.appendingPathComponent("annotations.csv")
        let server = try ReviewProcess([samples.path, "--keypoints", keypoints.path, "--annotations", annotations.path])
        defer { server.stop() }
        let shots = ToolRunner.root.appendingPathComponent(".build/review-screenshots")
        try FileManager.default.createDirectory(at: shots, withIntermediateDirectories: true)
        let (status, log) = try ToolRunner.process(python, [ToolRunner.root.appendingPathComponent("Tests/Browser/review_browser.py").path,
                                                           "--url", server.address.absoluteString, "--annotations", annotations.path,
                                                           "--clip", "actions/grab_0.mp4", "--screenshots", shots.path])
        print(log)
        XCTAssertEqual(status, 0, log)
        XCTAssertTrue(log.contains("review_browser: all checks passed"), log)
        XCTAssertTrue(try String(contentsOf: annotations, encoding: .utf8).contains("actions/grab_0.mp4,review_test,"), "the page's save is on disk")
        let (valid, report) = try ToolRunner.run(["validate", annotations.path])
        XCTAssertEqual(valid, 0, "validate accepts the file the page saved:\n\(report)")
    }
}
