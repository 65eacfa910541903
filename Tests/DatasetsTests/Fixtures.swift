import Datasets
import Foundation
import Keypoints
import Prerequisites
import XCTest

/// A keypoint file whose hand moves with `x(t)`; `present(i)` says which frames have it.
func keypointFile(times: [Double], chirality: Chirality = .right, x: (Double) -> Float, present: (Int) -> Bool = { _ in true },
          second: Bool = false) -> KeypointFile {
    let frames = times.enumerated().map { i, t -> KeypointFile.Frame in
        var hands: [KeypointFile.Hand] = []
        if present(i) {
            let base: Float = x(t)
            var points: [[Float]] = []
            for j in 0..<21 { points.append([base + Float(j) * 0.001, 0.25, 0]) }
            let handedness: Float = chirality == .right ? 0.9 : 0.1
            hands.append(KeypointFile.Hand(chirality: chirality, handedness: handedness, presence: 0.8,
                                           landmarks: points, world: nil, region: nil))
        }
        if second {
            hands.append(KeypointFile.Hand(chirality: .left, handedness: 0.1, presence: 0.6,
                                           landmarks: Array(repeating: [Float(0.7), 0.7, 0], count: 21), world: nil, region: nil))
        }
        return KeypointFile.Frame(i: i, t: t, hands: hands)
    }
    return KeypointFile(source: "fixture.mp4", width: 100, height: 100, fps: 25, frames: frames, tool: nil, settings: nil, models: nil)
}

/// A right hand with every joint at (x, 0.5).
func sample(_ x: Float) -> HandSample {
    HandSample(joints: Array(repeating: SIMD3(x, 0.5, 0), count: 21), confidence: 1, chirality: .right)
}

/// Runs a Python script (argument: `dir`) that loads the written arrays with NumPy and asserts on them.
func checkWithNumPy(_ script: String, _ dir: URL, file: StaticString = #filePath, line: UInt = #line) throws {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = ["python3", "-c", script, dir.path]
    let pipe = Pipe()
    p.standardOutput = pipe
    p.standardError = pipe
    try p.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    p.waitUntilExit()
    if output.contains("No module named 'numpy'") {
        print("SKIP: NumPy is not installed for python3")
        throw Prerequisite.missing("NumPy is not installed for python3")
    }
    XCTAssertEqual(p.terminationStatus, 0, output, file: file, line: line)
}
