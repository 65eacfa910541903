import Datasets
import Foundation
import Keypoints
import TestSupport
import XCTest

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
