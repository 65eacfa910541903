import XCTest
@testable import Annotations

/// Capped diagnostics and short quoting of values.
final class DiagnosticLogTests: XCTestCase {
    let missing = Diagnostic.Kind("no such file"), badTime = Diagnostic.Kind("unreadable time")

    func testKeepsTheFirstOfEachKindAndCountsTheRest() {
        var log = DiagnosticLog(limit: 3)
        for i in 1...10 { log.add(.error, missing, file: "a.csv", line: i, "missing \(i)") }
        for i in 1...2 { log.add(.error, badTime, file: "a.csv", line: i, "bad \(i)") }
        log.add(.warning, missing, file: "a.csv", line: 99, "same kind, other severity")
        XCTAssertEqual(log.kept.map(\.message), ["missing 1", "missing 2", "missing 3", "bad 1", "bad 2", "same kind, other severity"])
        XCTAssertEqual(log.errorCount, 12)
        XCTAssertEqual(log.warningCount, 1)
        XCTAssertEqual(log.omitted, [DiagnosticLog.Omission(kind: missing, severity: .error, count: 7)])
        XCTAssertEqual(log.omitted.first?.description, "... and 7 more 'no such file' errors")
    }

    func testNoLimitKeepsAll() {
        var log = DiagnosticLog(limit: 0)
        for i in 1...100 { log.add(.warning, missing, file: "a", line: i, "m") }
        XCTAssertEqual(log.kept.count, 100)
        XCTAssertEqual(log.omitted, [])
    }

    func testMessagesPastTheLimitAreNotBuilt() {
        var log = DiagnosticLog(limit: 2)
        var built = 0
        func message() -> String { built += 1; return "m" }
        for _ in 0..<1000 { log.add(.error, missing, file: "a", message(), hint: message()) }
        XCTAssertEqual(built, 4)
        XCTAssertEqual(log.errorCount, 1000)
    }

    func testOmissionWordingAndGrouping() {
        XCTAssertEqual(DiagnosticLog.Omission(kind: missing, severity: .error, count: 999_950).description,
                       "... and 999,950 more 'no such file' errors")
        XCTAssertEqual(DiagnosticLog.Omission(kind: missing, severity: .warning, count: 1).description,
                       "... and 1 more 'no such file' warning")
        XCTAssertEqual(Diagnostic.grouped(0), "0")
        XCTAssertEqual(Diagnostic.grouped(1_234_567), "1,234,567")
        XCTAssertEqual(Diagnostic.grouped(-1000), "-1,000")
    }

    func testQuoteShortensLongValues() {
        XCTAssertEqual(Diagnostic.quote("clip.mp4"), "'clip.mp4'")
        let exact = String(repeating: "a", count: Diagnostic.quotedLength)
        XCTAssertEqual(Diagnostic.quote(exact), "'\(exact)'")
        let long = String(repeating: "b", count: 5_000_000)
        XCTAssertEqual(Diagnostic.quote(long), "'\(String(repeating: "b", count: 40))…' (5,000,000 characters)")
        XCTAssertEqual(Diagnostic.elided("ü" + long.prefix(99)), "ü\(String(repeating: "b", count: 39))… (100 characters)")
    }

    func testWithoutAKindTheMessageIsTheKind() {
        XCTAssertEqual(Diagnostic(.error, file: "f", "odd").kind, Diagnostic.Kind("odd"))
        XCTAssertEqual(Diagnostic(.error, kind: missing, file: "f", "odd").kind, missing)
    }
}
