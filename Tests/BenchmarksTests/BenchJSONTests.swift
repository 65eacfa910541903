import Benchmarks
import Foundation
import XCTest

/// `bench --json`'s rows as a script reads them: snake-case keys, the values given, absent optionals left out.
final class BenchJSONTests: XCTestCase {
    private func object(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], text)
    }

    func testAModelRowHasSnakeCaseKeys() throws {
        let row = BenchJSON.ModelRow(model: "hand_landmark_full", threads: 2, isa: "avx2", medianMs: 4.5, p90Ms: 5.25, gflops: 12.5,
                                     arenaMib: 2.0, xnnpackMedianMs: 9, xnnpackP90Ms: 10, ratio: 0.5)
        let o = try object(try BenchJSON.text(row))
        XCTAssertEqual(Set(o.keys), ["model", "threads", "isa", "median_ms", "p90_ms", "gflops", "arena_mib", "xnnpack_median_ms",
                                     "xnnpack_p90_ms", "ratio"])
        XCTAssertEqual(o["model"] as? String, "hand_landmark_full")
        XCTAssertEqual(o["threads"] as? Int, 2)
        XCTAssertEqual(o["median_ms"] as? Double, 4.5)
        XCTAssertEqual(o["p90_ms"] as? Double, 5.25)
        XCTAssertEqual(o["ratio"] as? Double, 0.5)
    }

    func testAModelRowWithoutTheReferenceLeavesItsColumnsOut() throws {
        let row = BenchJSON.ModelRow(model: "palm_detection_lite", threads: 1, isa: "baseline", medianMs: 3, p90Ms: 4, gflops: 1, arenaMib: 1)
        let o = try object(try BenchJSON.text(row))
        XCTAssertNil(o["xnnpack_median_ms"])
        XCTAssertNil(o["ratio"])
        XCTAssertEqual(o["isa"] as? String, "baseline")
    }

    func testAnExtractReportNestsItsRowsAndProfile() throws {
        let report = BenchJSON.ExtractReport(
            runs: [BenchJSON.ExtractRow(run: "handpose, 1 job", frames: 30, seconds: 1.5, fps: 20, cpuMsPerFrame: 40, peakMib: 90,
                                        largestProcessMib: 70, speedup: 1.25)],
            profile: BenchJSON.ProfileSplit(stages: [.init(stage: "palm model", msPerFrame: 3.5, percent: 25)], runsPerFrame: [.init("palm model", perFrame: 1),
                                                                                                                           .init("landmark model", perFrame: 1.5)]))
        let text = try BenchJSON.text(report)
        let o = try object(text)
        let run = try XCTUnwrap((o["runs"] as? [[String: Any]])?.first, text)
        XCTAssertEqual(run["cpu_ms_per_frame"] as? Double, 40)
        XCTAssertEqual(run["largest_process_mib"] as? Double, 70)
        XCTAssertEqual(run["speedup"] as? Double, 1.25)
        let profile = try XCTUnwrap(o["profile"] as? [String: Any], text)
        let runs = profile["runs_per_frame"] as? [[String: Any]]
        XCTAssertEqual(runs?.last?["what"] as? String, "landmark model", text)
        XCTAssertEqual(runs?.last?["per_frame"] as? Double, 1.5, text)
        XCTAssertEqual((profile["stages"] as? [[String: Any]])?.first?["ms_per_frame"] as? Double, 3.5)
        XCTAssertTrue(text.contains("\n  "), "indented for reading")
    }
}
