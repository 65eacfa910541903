import Foundation
import Keypoints
import TestSupport
import XCTest

/// Without /proc (a bare chroot, some HPC sandboxes) handpose still reads its command line and starts
/// its workers: before, Swift's CommandLine.arguments (read from /proc/self/cmdline) was empty, so
/// `extract` printed the top-level help and exited 0 having done nothing, and Foundation's Process could
/// not start a worker (EBADF: it lists /proc/self/fd).
final class NoProcTests: XCTestCase {
    func testExtractWorksWithoutProc() throws {
        let models = try ToolRunner.models()
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else {
            print("SKIP: unshare absent (util-linux)"); throw Prerequisite.missing("unshare absent")
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("noproc-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("handpose").path
        let clip = ToolRunner.root.appendingPathComponent("Samples/actions/wave_0.mp4").path
        let still = ToolRunner.root.appendingPathComponent("Samples/poses/fist/fist_0.png").path
        // A mount namespace of its own with an empty tmpfs over /proc: what a chroot without /proc sees.
        let script = "mount -t tmpfs none /proc || exit 99; test ! -e /proc/self/cmdline || exit 98; " +
                     "exec \"$0\" extract \"$1\" \"$2\" -o \"$3\" --models \"$4\" --jobs 2"
        let (code, text) = try ToolRunner.process("/usr/bin/unshare", ["--mount", "--propagation", "private", "/bin/sh", "-c", script,
                                                                        binary, clip, still, dir.appendingPathComponent("out").path, models])
        if code == 99 || text.contains("unshare failed") || text.contains("Operation not permitted") {
            print("SKIP: cannot make a mount namespace here (needs root): \(text)"); throw XCTSkip("no mount namespace")
        }
        XCTAssertEqual(code, 0, text)
        XCTAssertTrue(text.contains("2 files: 2 done"), text)
        XCTAssertFalse(text.contains("SUBCOMMANDS"), "help printed instead of the work: \(text)")
        // The same inputs with /proc: the same frames and hands, bit for bit (the kernels are chosen by CPUID,
        // which needs no /proc: with libcpuinfo, which reads /proc/cpuinfo, such a run fell back to the baseline).
        let (withProc, withText) = try ToolRunner.run(["extract", clip, still, "-o", dir.appendingPathComponent("proc").path, "--models", models])
        XCTAssertEqual(withProc, 0, withText)
        for name in ["wave_0.mp4", "fist_0.png"] {
            let a = try KeypointFile.load(dir.appendingPathComponent("out/\(name).hands.json"))
            let b = try KeypointFile.load(dir.appendingPathComponent("proc/\(name).hands.json"))
            XCTAssertEqual(a.frames.count, b.frames.count, name)
            XCTAssertEqual(a.frames.map(\.hands.count), b.frames.map(\.hands.count), name)
            for (fa, fb) in zip(a.frames, b.frames) {
                for (ha, hb) in zip(fa.hands, fb.hands) {
                    XCTAssertEqual(ha.landmarks, hb.landmarks, "\(name) frame \(fa.i)")
                }
            }
        }
    }
}
