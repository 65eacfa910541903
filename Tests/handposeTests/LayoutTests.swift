import Foundation
import TestSupport
import XCTest

/// README's module table is the map of the code: every module under Sources has a row, and each row's
/// imports column is what that module's sources import (of the project's own modules), so the map
/// cannot drift from the code.
final class LayoutTests: XCTestCase {
    func testReadmeModuleTableMatchesTheImports() throws {
        let root = ToolRunner.root
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        guard let start = readme.range(of: "| module | imports (of these modules) | what it is for |") else {
            return XCTFail("README has no module table with an imports column")
        }
        var documented: [String: Set<String>] = [:]
        for line in readme[start.upperBound...].split(separator: "\n").dropFirst() {
            guard line.hasPrefix("| `") else { break }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            let names = cells[1].split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " `")) }
            let imports = Set(cells[2].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
            for n in names { documented[n] = imports }
        }
        let sources = root.appendingPathComponent("Sources")
        let modules = try FileManager.default.contentsOfDirectory(atPath: sources.path).filter { !$0.hasPrefix(".") }.sorted()
        // A fourth link to the kernels' sources that only the tests build (described in the table's kernels row).
        let testOnly: Set<String> = ["KernelsAVX512OnAVX2"]
        for module in modules where !testOnly.contains(module) {
            guard let listed = documented[module] else { XCTFail("README's module table has no row for \(module)"); continue }
            var imported: Set<String> = []
            let folder = sources.appendingPathComponent(module).resolvingSymlinksInPath()   // the kernel variants are links
            for case let file as String in FileManager.default.enumerator(atPath: folder.path)! where file.hasSuffix(".swift") {
                let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                for line in text.split(separator: "\n") where line.hasPrefix("import ") {
                    let name = String(line.dropFirst("import ".count)).trimmingCharacters(in: .whitespaces)
                    if modules.contains(name) { imported.insert(name) }
                }
            }
            XCTAssertEqual(listed, imported, "README's imports for \(module)")
        }
        for name in documented.keys { XCTAssertTrue(modules.contains(name), "README lists \(name), which is not under Sources") }
    }

    /// The project's own modules each module's sources import.
    static func importGraph() throws -> [String: Set<String>] {
        let sources = ToolRunner.root.appendingPathComponent("Sources")
        let modules = try FileManager.default.contentsOfDirectory(atPath: sources.path).filter { !$0.hasPrefix(".") }
        var graph: [String: Set<String>] = [:]
        for module in modules {
            var imported: Set<String> = []
            let folder = sources.appendingPathComponent(module).resolvingSymlinksInPath()
            for case let file as String in FileManager.default.enumerator(atPath: folder.path)! where file.hasSuffix(".swift") {
                let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                for line in text.split(separator: "\n") where line.hasPrefix("import ") {
                    let name = String(line.dropFirst("import ".count)).trimmingCharacters(in: .whitespaces)
                    if modules.contains(name) { imported.insert(name) }
                }
            }
            graph[module] = imported
        }
        return graph
    }

    /// Every module `module` reaches through its imports.
    static func reach(_ module: String, in graph: [String: Set<String>]) -> Set<String> {
        var seen: Set<String> = [], stack = Array(graph[module] ?? [])
        while let m = stack.popLast() {
            guard seen.insert(m).inserted else { continue }
            stack.append(contentsOf: graph[m] ?? [])
        }
        return seen
    }

    /// Floors by what they need: landmarkers stand side by side on the shared floor and never borrow from
    /// each other; the review server links no part of the engine (nor extraction or the exporter).
    func testFloorsByWhatTheyNeed() throws {
        let graph = try Self.importGraph()
        let landmarkers = ["HandLandmarks", "BodyLandmarks", "FaceLandmarks"]
        for a in landmarkers {
            XCTAssertTrue(graph[a]?.contains("Landmarking") ?? false, "\(a) stands on Landmarking")
            for b in landmarkers where b != a {
                XCTAssertFalse(Self.reach(a, in: graph).contains(b), "\(a) reaches \(b)")
            }
        }
        let engine: Set<String> = ["Inference", "Kernels", "KernelsBaseline", "KernelsAVX2", "KernelsAVX512", "Landmarking", "HandLandmarks",
                                   "BodyLandmarks", "FaceLandmarks", "HolisticLandmarks", "Extraction", "Datasets"]
        XCTAssertEqual(Self.reach("Review", in: graph).intersection(engine), [], "Review links no engine module")
        XCTAssertFalse(Self.reach("Synthesis", in: graph).contains("HandLandmarks"), "Synthesis uses nothing of the hand pipeline")
    }
}

/// Skips are for what the machine decides; a prerequisite `make setup` installs goes through `Prerequisite`,
/// which fails under CI=true.
final class PrerequisiteTests: XCTestCase {
    func testMissingPrerequisitesSkipOrFailUnderCI() throws {
        let saved = ProcessInfo.processInfo.environment["CI"]
        defer { if let saved { setenv("CI", saved, 1) } else { unsetenv("CI") } }
        unsetenv("CI")
        XCTAssertTrue(Prerequisite.missing("the corpus") is XCTSkip)
        setenv("CI", "true", 1)
        let error = Prerequisite.missing("the corpus")
        XCTAssertTrue(error is Prerequisite.Missing)
        XCTAssertTrue("\(error)".contains("the corpus"), "\(error)")
    }

    /// Every direct XCTSkip in the tests names a condition of the machine, not something `make setup` installs.
    func testDirectSkipsAreForTheMachineOnly() throws {
        let machine = ["kernel variant", "CPU", "x86-64", "not root", "mount namespace", "/proc", "Slurm cannot run", "object files of",
                       "fused multiply-add"]
        let tests = ToolRunner.root.appendingPathComponent("Tests")
        let skips = ["throw " + "XCTSkip(", "XCTSkip" + "If(", "XCTSkip" + "Unless("]   // split, so this line is not one
        for case let file as String in FileManager.default.enumerator(atPath: tests.path)! where file.hasSuffix(".swift") && !file.hasPrefix("TestSupport/") {
            let text = try String(contentsOf: tests.appendingPathComponent(file), encoding: .utf8)
            for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where skips.contains(where: { line.contains($0) }) {
                XCTAssertTrue(machine.contains { line.contains($0) }, "\(file):\(n + 1) skips for a prerequisite; throw Prerequisite.missing instead")
            }
        }
    }
}
