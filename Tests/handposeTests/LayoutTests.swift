import Foundation
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
}
