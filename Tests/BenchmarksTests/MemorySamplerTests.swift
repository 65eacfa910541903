import Benchmarks
import Foundation
import XCTest

/// The memory sampler reads this process's own /proc files, and a child it starts.
final class MemorySamplerTests: XCTestCase {
    private func procStatus() throws -> String {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else {
            throw XCTSkip("no /proc on this machine")
        }
        return text
    }

    func testReadsTheFieldsOfThisProcessStatus() throws {
        let status = try procStatus()
        let rss = MemorySampler.kilobytes("VmRSS:", in: status), peak = MemorySampler.kilobytes("VmHWM:", in: status)
        // A test process has loaded Foundation and XCTest: well over a megabyte resident, under a terabyte.
        XCTAssertGreaterThan(rss, 1024)
        XCTAssertLessThan(rss, 1 << 30)
        XCTAssertGreaterThanOrEqual(peak, rss, "the resident peak is at least the resident size")
        XCTAssertEqual(MemorySampler.kilobytes("NoSuchField:", in: status), 0)
    }

    func testReadsAFieldLineAsTheKernelWritesIt() {
        XCTAssertEqual(MemorySampler.kilobytes("Pss:", in: "Rss:\t  2048 kB\nPss:\t   1536 kB\n"), 1536)
        XCTAssertEqual(MemorySampler.kilobytes("VmHWM:", in: "VmPeak:\t  9 kB\nVmHWM:        77 kB"), 77)
    }

    func testTheTreeHoldsThisProcessAndAChildItStarted() throws {
        _ = try procStatus()
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/sleep")
        child.arguments = ["5"]
        try child.run()
        defer { child.terminate(); child.waitUntilExit() }
        let tree = MemorySampler.tree(of: getpid())
        XCTAssertEqual(tree.first, getpid())
        XCTAssertTrue(tree.contains(child.processIdentifier), "\(tree) lacks the child \(child.processIdentifier)")
        XCTAssertEqual(MemorySampler.tree(of: child.processIdentifier), [child.processIdentifier], "sleep starts no process")
    }

    func testSamplingThisProcessFindsItsMemory() throws {
        let status = try procStatus()
        let sampler = MemorySampler(root: getpid(), interval: 0.01)
        sampler.start()
        Thread.sleep(forTimeInterval: 0.1)
        sampler.stop()
        XCTAssertGreaterThan(sampler.peakTotal, 1 << 20, "more than a MiB of proportional set size")
        XCTAssertGreaterThanOrEqual(sampler.peakProcess, MemorySampler.kilobytes("VmRSS:", in: status) * 1024 / 2)
    }
}
