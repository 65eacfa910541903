import Analysis
import Foundation
import Keypoints
import Synchronization
import TestSupport
import XCTest

/// One binary for every x86-64 CPU: each instruction set HANDPOSE_MAX_ISA selects gives the same
/// keypoints, records itself in the files, and a CPU without AVX (emulated by qemu-user as a Nehalem)
/// runs the same binary on its baseline kernels.
final class KernelVariantTests: XCTestCase {
    /// Two stills and a clip from Samples/, so palm detection, landmarks and tracking all run.
    static let inputs = ["Samples/poses/peace/peace_0.png", "Samples/poses/point/point_0.png", "Samples/actions/grab_0.mp4"]

    /// The `isa` of every row `bench models --json` printed, or a failure naming the output.
    func kernelsIn(_ text: String, _ label: String) -> [String] {
        // The JSON array starts on a line of its own; qemu's warnings (which may hold brackets) come first.
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let first = lines.firstIndex(where: { $0 == "[" }),
              let rows = (try? JSONSerialization.jsonObject(with: Data(lines[first...].joined(separator: "\n").utf8))) as? [[String: Any]] else {
            XCTFail("\(label): no JSON rows in the output: \(text.suffix(2000))")
            return []
        }
        return rows.map { $0["isa"] as? String ?? "missing" }
    }

    /// The instruction sets this machine runs, read from the binary itself (`bench models` names the kernels).
    func runnableISAs() throws -> [String] {
        let models = try ToolRunner.models()
        var out: [String] = []
        for cap in ["baseline", "avx2", "avx512"] {
            let (code, text) = try ToolRunner.run(["bench", "models", "--runs", "1", "--rounds", "1", "--threads", "1", "--json",
                                                   "--models", models], environment: ["HANDPOSE_MAX_ISA": cap])
            XCTAssertEqual(code, 0, text)
            let isa = Set(kernelsIn(text, "HANDPOSE_MAX_ISA=\(cap)"))
            XCTAssertEqual(isa.count, 1, "one kernel set per run: \(isa)")
            if isa.first == cap { out.append(cap) }
        }
        if !out.contains("avx512") { print("HANDPOSE_MAX_ISA=avx512 not tested: this CPU has no AVX-512 (it falls back to \(out.last ?? "?"))") }
        return out
    }

    func extract(into out: URL, environment: [String: String], emulator: [String] = []) throws {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("handpose").path
        let models = try ToolRunner.models()
        let command = emulator + [binary, "extract"] + Self.inputs + ["-o", out.path, "--models", models, "--quiet", "--jobs", "1"]
        let (code, text) = try ToolRunner.process(command[0], Array(command.dropFirst()), environment: environment)
        XCTAssertEqual(code, 0, text)
    }

    /// Keypoint files under `dir` by path relative to it.
    func files(_ dir: URL) throws -> [String: KeypointFile] {
        var out: [String: KeypointFile] = [:]
        for (path, _) in try ToolRunner.files(in: dir) where path.hasSuffix(".hands.json") {
            out[path] = try KeypointFile.load(dir.appendingPathComponent(path))
        }
        return out
    }

    /// Every file of `a` against the same file of `b`. Stills and the first frame of a clip (palm detection
    /// and one landmark run) agree within 1e-3 palm sizes. Later frames of a clip are cropped where the frame
    /// before put the hand, so a difference in the last bits (fused multiply-add rounds once, the baseline's
    /// multiply and add twice) moves the next crop and grows while tracking holds, as it does for MediaPipe
    /// fed frames with an invisible change (README, parity): there the hands must agree in number and stay
    /// within 0.01 palm sizes on average, 0.05 at worst.
    func assertSame(_ a: [String: KeypointFile], _ b: [String: KeypointFile], _ label: String) throws {
        XCTAssertEqual(a.keys.sorted(), b.keys.sorted(), label)
        XCTAssertEqual(a.count, Self.inputs.count, label)
        for (path, fa) in a {
            guard let fb = b[path] else { continue }
            let c = try KeypointComparison.compare(fa, fb, path: path)
            XCTAssertEqual(c.countAgreement, 1, "\(label) \(path)")
            XCTAssertGreaterThan(c.matchedHands, 0, "\(label) \(path): no hands to compare")
            var first = fa, firstB = fb
            first.frames = Array(fa.frames.prefix(1)); firstB.frames = Array(fb.frames.prefix(1))
            let detected = try KeypointComparison.compare(first, firstB, path: path).deviations.max() ?? 0
            let worst = c.deviations.max() ?? 0
            print(String(format: "%@ %@: %d hands; first frame %.6f, mean %.6f, largest %.6f palm sizes",
                         label, path, c.matchedHands, detected, c.meanDeviation, worst))
            XCTAssertLessThanOrEqual(detected, 1e-3, "\(label) \(path) first frame")
            if fa.frames.count == 1 { continue }
            XCTAssertLessThanOrEqual(c.meanDeviation, 0.01, "\(label) \(path)")
            XCTAssertLessThanOrEqual(worst, 0.05, "\(label) \(path)")
        }
    }

    func testEveryInstructionSetGivesTheSameKeypoints() throws {
        let isas = try runnableISAs()
        XCTAssertEqual(isas.first, "baseline")
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("handpose-isa-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        var results: [String: [String: KeypointFile]] = [:]
        for isa in isas {
            try extract(into: root.appendingPathComponent(isa), environment: ["HANDPOSE_MAX_ISA": isa])
            let made = try files(root.appendingPathComponent(isa))
            results[isa] = made
            XCTAssertEqual(Set(made.values.map { $0.tool?.kernels }), [isa], "files record the kernels that ran")
        }
        guard let best = isas.last, isas.count > 1 else {
            print("SKIP: this CPU runs only the \(isas.first ?? "?") kernels; nothing to compare them with")
            throw XCTSkip("one kernel variant on this CPU")
        }
        for isa in isas.dropLast() {
            guard let a = results[isa], let b = results[best] else { XCTFail("no results for \(isa)"); continue }
            try assertSame(a, b, "\(isa) vs \(best)")
            // AVX2 and AVX-512 accumulate every value in the same order (ModelParityTests checks the models'
            // outputs bit for bit): their keypoints are the same, to the last digit the files hold.
            if isa == "avx2" && best == "avx512" {
                let encoder = JSONEncoder()
                encoder.outputFormatting = .sortedKeys
                for (path, fa) in a {
                    XCTAssertEqual(try encoder.encode(fa.frames), try encoder.encode(b[path]?.frames ?? []), "avx2 vs avx512 \(path)")
                }
            }
        }
    }

    /// The AVX-512 kernels' two matrix-product tilings (HANDPOSE_GEMM_TILING) give the same keypoints to the
    /// last digit; a tiling handpose does not have stops `extract` before any work, naming the variable.
    func testBothGemmTilingsGiveTheSameKeypoints() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("handpose-tiling-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let (code, text) = try ToolRunner.run(["extract", Self.inputs[0], "-o", root.appendingPathComponent("refused").path],
                                              environment: ["HANDPOSE_GEMM_TILING": "8x8"])
        XCTAssertNotEqual(code, 0, text)
        XCTAssertTrue(text.contains("HANDPOSE_GEMM_TILING=8x8"), text)
        XCTAssertFalse(FileManager.default.fileExists(atPath: root.appendingPathComponent("refused").path), "nothing written")
        guard try runnableISAs().contains("avx512") else {
            print("SKIP: this CPU has no AVX-512; the two tilings' code is compared in KernelTests and ModelParityTests (built for AVX2)")
            throw XCTSkip("this CPU has no AVX-512")
        }
        var results: [String: [String: KeypointFile]] = [:]
        for tiling in ["12x16", "6x32"] {
            try extract(into: root.appendingPathComponent(tiling), environment: ["HANDPOSE_GEMM_TILING": tiling])
            results[tiling] = try files(root.appendingPathComponent(tiling))
        }
        let a = results["12x16"] ?? [:], b = results["6x32"] ?? [:]
        XCTAssertEqual(a.keys.sorted(), b.keys.sorted())
        XCTAssertEqual(a.count, Self.inputs.count)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        for (path, fa) in a {
            XCTAssertFalse(fa.frames.isEmpty, path)
            XCTAssertEqual(try encoder.encode(fa.frames), try encoder.encode(b[path]?.frames ?? []), "12x16 vs 6x32 \(path)")
        }
    }

    /// The same binary on CPUs without the wider instruction sets, emulated by qemu-user: its Nehalem
    /// (SSE4.2, no AVX) must choose and run the baseline kernels, its Haswell (AVX2 and FMA; qemu has no
    /// AVX-512) the AVX2 ones. An instruction of a wider set anywhere on the chosen path (a variant's
    /// copy of a shared helper kept by the linker, say) stops the run with SIGILL. `extract` starts its
    /// workers as native processes, so the engine runs here through `bench models`, and FFmpeg's demuxers
    /// through `probe`.
    func testCPUsWithoutAVXOrAVX512RunTheirKernels() throws {
        #if !arch(x86_64)
        print("SKIP: x86-64 only")
        throw XCTSkip("x86-64 only")
        #else
        let qemu = ["/usr/bin/qemu-x86_64", "/usr/bin/qemu-x86_64-static"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let qemu else {
            print("SKIP: qemu-x86_64 absent (Debian's qemu-user; make setup installs it)")
            throw Prerequisite.missing("qemu-user absent")
        }
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("handpose").path
        let models = try ToolRunner.models()
        // Both emulated CPUs at once: one core each. The choice is the CPU's alone: a cap the test run
        // was given (HANDPOSE_MAX_ISA=baseline, to test the baseline) is lifted for these runs.
        let collected = Mutex<[String: (Int32, String)]>([:])
        DispatchQueue.concurrentPerform(iterations: 2) { i in
            let cpu = ["Nehalem", "Haswell"][i]
            let r = (try? ToolRunner.process(qemu, ["-cpu", cpu, binary, "bench", "models", "--runs", "1", "--rounds", "1",
                                                    "--threads", "1", "--json", "--models", models],
                                                   environment: ["HANDPOSE_MAX_ISA": "avx512"])) ?? (-1, "could not start qemu")
            collected.withLock { $0[cpu] = r }
        }
        let results = collected.withLock { $0 }
        for (cpu, isa) in [("Nehalem", "baseline"), ("Haswell", "avx2")] {
            let (code, text) = results[cpu] ?? (-1, "no result")
            XCTAssertEqual(code, 0, "\(cpu): \(text.suffix(2000))")
            let kernels = kernelsIn(text, cpu)
            XCTAssertEqual(kernels.count, 9, "\(cpu): nine models (the hands' four, the body's two, the three Holistic adds)")
            XCTAssertEqual(Set(kernels), [isa], "\(cpu) runs the \(isa) kernels")
        }
        let (probeCode, probe) = try ToolRunner.process(qemu, ["-cpu", "Nehalem", binary, "probe", "--json"] + Self.inputs)
        XCTAssertEqual(probeCode, 0, probe)
        let entries = (try? JSONSerialization.jsonObject(with: Data(probe.utf8))) as? [[String: Any]] ?? []
        let clip = entries.first { ($0["path"] as? String)?.hasSuffix("Samples/actions/grab_0.mp4") == true }
        XCTAssertEqual(clip?["frames"] as? Int, 30, probe)
        XCTAssertEqual(entries.count, Self.inputs.count, probe)
        #endif
    }
}
