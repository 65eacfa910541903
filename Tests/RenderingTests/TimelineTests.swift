import Keypoints
import Rendering
import XCTest

final class TimelineTests: XCTestCase {
    func testBandsSitAtTheirTimes() {
        let frames = (0..<50).map { KeypointFile.Frame(i: $0, t: Double($0) / 10, hands: []) }
        let file = KeypointFile(source: "a/clip.mp4", width: 64, height: 48, fps: 10, frames: frames, tool: nil, settings: nil, models: nil)
        let plot = Timeline.plot(file, bands: [Timeline.Band(label: "wave", colorIndex: 1, start: 2.45, end: 4.9)])
        // The plot spans x 70...1180 over 0...4.9 s: a band from 2.45 s starts at the middle.
        let y = 60
        func pixel(_ x: Int) -> SIMD3<Float> { plot.pixels[y * plot.width + x] }
        XCTAssertEqual(pixel(400), SIMD3(250, 250, 250), "before the band: background")
        XCTAssertEqual(pixel(900), SIMD3(200, 230, 255), "inside the band: the colour of class 1")
    }
}
