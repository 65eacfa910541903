import Foundation
import XCTest

/// The kernel variants are built from the same sources into three modules, each with its own CPU
/// target, and linked into one binary (the tests link a fourth, `KernelsAVX512OnAVX2`). A function the compiler emits under the same name in several
/// modules (a standard-library specialisation, a value-copying helper) is a weak symbol: the linker
/// keeps one copy for every caller, so the AVX-512 copy could be called on an AVX2 CPU and die of an
/// illegal instruction. Every weak function a variant module defines must therefore carry the
/// module's own name.
final class KernelVariantBuildTests: XCTestCase {
    func testVariantModulesDefineNoSharedWeakFunctions() throws {
        #if !arch(x86_64)
        print("SKIP: only x86-64 builds carry several kernel variants")
        throw XCTSkip("one kernel variant on this architecture")
        #else
        let buildDir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        var checked = 0
        // KernelsAVX512OnAVX2 is linked into the tests only, beside the others.
        for module in ["KernelsBaseline", "KernelsAVX2", "KernelsAVX512", "KernelsAVX512OnAVX2"] {
            let dir = buildDir.appendingPathComponent("\(module).build")
            let objects = ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? [])
                .filter { $0.hasSuffix(".o") }.map { dir.appendingPathComponent($0).path }
            guard !objects.isEmpty else {
                print("SKIP: no object files in \(dir.path)")
                throw XCTSkip("object files of \(module) not found beside the tests")
            }
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            p.arguments = ["nm", "--defined-only"] + objects
            let pipe = Pipe()
            p.standardOutput = pipe
            try p.run()
            let out = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            XCTAssertEqual(p.terminationStatus, 0, "nm failed on \(module)")
            let own = "$s\(module.count)\(module)"
            let foreign = out.split(separator: "\n").compactMap { line -> String? in
                let f = line.split(separator: " ")
                guard f.count == 3, f[1] == "W" else { return nil }
                return f[2].hasPrefix(own) ? nil : String(f[2])
            }
            checked += objects.count
            XCTAssertEqual(Set(foreign).sorted(), [], "\(module) defines weak functions other modules may define too (swift demangle names them)")
        }
        print("checked \(checked) object files of the kernel variants")
        #endif
    }
}
