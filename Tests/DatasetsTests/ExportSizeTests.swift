import Datasets
import Foundation
import Keypoints
import XCTest

/// `ExportSize`: an export's windows counted as `Windowing` cuts them, and an export larger than the
/// machine's memory (a huge --fps, --copies) refused before a window is cut.
final class ExportSizeTests: XCTestCase {
    func testWindowCountIsWhatWindowingCuts() {
        for count in 0..<80 {
            for window in 1...9 {
                for stride in 1...6 {
                    for (drop, pad) in [(false, false), (true, false), (false, true), (true, true)] {
                        let cut = Windowing.windowStarts(count: count, window: window, stride: stride, dropShort: drop, padTail: pad).count
                        XCTAssertEqual(ExportSize.windowCount(frames: count, window: window, stride: stride, dropShort: drop, padTail: pad), cut,
                                       "\(count) frames, window \(window), stride \(stride), drop \(drop), pad \(pad)")
                    }
                }
            }
        }
    }

    func testFramesAreWhatResamplingMakes() {
        let frames = (0..<40).map { KeypointFile.Frame(i: $0, t: Double($0) / 25, hands: []) }
        let file = KeypointFile(source: "clip.mp4", width: 64, height: 48, fps: 25, frames: frames, tool: nil, settings: nil, models: nil)
        for (start, end, fps) in [(0.0, 1.6, 30.0), (0.1, 0.95, 7.5), (0.5, 0.5, 30), (0.3, 1.55, 1000), (1.0, 0.2, 30)] {
            XCTAssertEqual(Windowing.sampleCount(start: start, end: end, fps: fps),
                           Windowing.resample(file, start: start, end: end, fps: fps, hand: .any).times.count, "\(start)-\(end) at \(fps)")
        }
        XCTAssertNil(Windowing.sampleCount(start: 0, end: 1e300, fps: 1e6), "past counting")
    }

    func testAnExportLargerThanMemoryIsRefusedWithWhatToLower() throws {
        var settings = ExportSettings()
        settings.fps = 30
        settings.window = 60
        let spans = (0..<200).map { k in (start: Double(k) * 10, end: Double(k) * 10 + 8) }
        let gib: UInt64 = 1 << 30
        let ordinary = try ExportSize.of(spans, settings: settings)
        XCTAssertEqual(ordinary.windows, 800)
        XCTAssertEqual(ordinary.longestSegment, 240)
        XCTAssertNoThrow(try ordinary.check(settings: settings, memory: 8 * gib))

        // The attack: a rate inside the range of rates, 8 million frames a segment.
        settings.fps = 1_000_000
        let huge = try ExportSize.of(spans, settings: settings)
        XCTAssertEqual(huge.longestSegment, 8_000_000)
        XCTAssertGreaterThan(huge.bytes, Double(64 * gib))
        XCTAssertThrowsError(try huge.check(settings: settings, memory: 64 * gib)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("more than this machine's 64.0 GiB") && text.contains("Lower --fps"), text)
            XCTAssertTrue(text.contains("resampled to 8000000 frames"), text)
        }
        // Copies multiply what is held.
        settings.fps = 30
        settings.augment = [.flip]
        settings.copies = 10_000
        XCTAssertThrowsError(try ExportSize.of(spans, settings: settings).check(settings: settings, memory: 8 * gib)) { error in
            XCTAssertTrue("\(error)".contains("10000 augmented copies"), "\(error)")
        }
        XCTAssertThrowsError(try ExportSize.of([(start: 0, end: 1e300)], settings: settings)) { error in
            XCTAssertTrue("\(error)".contains("past counting"), "\(error)")
        }
    }
}
