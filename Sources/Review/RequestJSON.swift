import Annotations
import Foundation

/// A request body checked as JSON before it is decoded, so that what is wrong is said with where it is:
/// Foundation's JSONDecoder answers "The given data was not valid JSON" alike for a missing brace and for
/// a number no Double holds (1e400, valid JSON), and names no place for either; its other errors name
/// coding paths and Swift types. Here: the line and column where the text stops being JSON, the field a
/// number out of range is in, and decoding errors said as the page's fields ("segment 2's start").
enum RequestJSON {
    enum Problem: Error, Equatable {
        /// Not JSON: what was expected and where.
        case syntax(String)
        /// A number no Double holds, at `path` (keys, and list indices from 0, from the top), as written.
        case hugeNumber(path: [String], literal: String)
    }

    /// Deeper than any body the page sends, and shallow enough that the recursion cannot exhaust the stack.
    static let maxDepth = 64

    /// Nil when `bytes` are one JSON value whose numbers a Double holds; else the first problem.
    static func check(_ bytes: [UInt8]) -> Problem? {
        guard String(validating: bytes, as: UTF8.self) != nil else { return .syntax("it is not UTF-8 text") }
        var scanner = Scanner(b: bytes)
        do {
            try scanner.value(depth: 0)
            scanner.whitespace()
            if scanner.i < bytes.count { throw scanner.fail("nothing after the value") }
            return nil
        } catch let problem as Problem {
            return problem
        } catch {
            return .syntax("\(error)")
        }
    }

    struct Scanner {
        let b: [UInt8]
        var i = 0
        var path: [String] = []

        mutating func whitespace() {
            while i < b.count, b[i] == 0x20 || b[i] == 0x09 || b[i] == 0x0A || b[i] == 0x0D { i += 1 }
        }

        /// A syntax problem at the current place, by line and column (counted in characters).
        func fail(_ expected: String) -> Problem {
            let before = String(decoding: b[..<min(i, b.count)], as: UTF8.self)
            let line = before.reduce(1) { $1 == "\n" ? $0 + 1 : $0 }
            let column = before.split(separator: "\n", omittingEmptySubsequences: false).last.map { $0.count + 1 } ?? 1
            var found = "the end of the body"
            if i < b.count {
                let rest = String(decoding: b[i..<min(i + 12, b.count)], as: UTF8.self)
                found = Diagnostic.quote(String(rest.prefix(while: { $0 != "\n" }).prefix(8)))
            }
            return .syntax("line \(line), column \(column): expected \(expected), found \(found)")
        }

        func isDigit(_ k: Int) -> Bool { k < b.count && b[k] >= 0x30 && b[k] <= 0x39 }

        mutating func value(depth: Int) throws {
            guard depth < RequestJSON.maxDepth else { throw Problem.syntax("values nested deeper than \(RequestJSON.maxDepth) levels") }
            whitespace()
            guard i < b.count else { throw fail("a value") }
            switch b[i] {
            case UInt8(ascii: "{"): try object(depth: depth)
            case UInt8(ascii: "["): try list(depth: depth)
            case UInt8(ascii: "\""): _ = try text()
            case UInt8(ascii: "t"): try word("true")
            case UInt8(ascii: "f"): try word("false")
            case UInt8(ascii: "n"): try word("null")
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
            default: throw fail("a value (an object, a list, text in double quotes, a number, true, false or null)")
            }
        }

        mutating func object(depth: Int) throws {
            i += 1
            whitespace()
            if i < b.count, b[i] == UInt8(ascii: "}") { i += 1; return }
            while true {
                whitespace()
                guard i < b.count, b[i] == UInt8(ascii: "\"") else { throw fail("a key in double quotes") }
                let key = try text()
                whitespace()
                guard i < b.count, b[i] == UInt8(ascii: ":") else { throw fail("':' after the key") }
                i += 1
                path.append(key)
                try value(depth: depth + 1)
                path.removeLast()
                whitespace()
                guard i < b.count else { throw fail("',' or '}'") }
                if b[i] == UInt8(ascii: ",") { i += 1; continue }
                if b[i] == UInt8(ascii: "}") { i += 1; return }
                throw fail("',' or '}'")
            }
        }

        mutating func list(depth: Int) throws {
            i += 1
            whitespace()
            if i < b.count, b[i] == UInt8(ascii: "]") { i += 1; return }
            var k = 0
            while true {
                path.append("\(k)")
                try value(depth: depth + 1)
                path.removeLast()
                k += 1
                whitespace()
                guard i < b.count else { throw fail("',' or ']'") }
                if b[i] == UInt8(ascii: ",") { i += 1; continue }
                if b[i] == UInt8(ascii: "]") { i += 1; return }
                throw fail("',' or ']'")
            }
        }

        /// Text in double quotes; its content as written (escapes kept), for naming a key.
        mutating func text() throws -> String {
            i += 1
            let start = i
            while i < b.count {
                switch b[i] {
                case UInt8(ascii: "\""):
                    let content = String(decoding: b[start..<i], as: UTF8.self)
                    i += 1
                    return content
                case 0..<0x20:
                    throw fail("no control character inside text (a line break is written \\n)")
                case UInt8(ascii: "\\"):
                    i += 1
                    guard i < b.count else { break }
                    if Array("\"\\/bfnrt".utf8).contains(b[i]) { i += 1; continue }
                    guard b[i] == UInt8(ascii: "u"), i + 4 < b.count,
                          b[(i + 1)...(i + 4)].allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || (($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x66) }) else {
                        throw fail("an escape (\\\", \\\\, \\/, \\b, \\f, \\n, \\r, \\t or \\u and four hexadecimal digits)")
                    }
                    i += 5
                default:
                    i += 1
                }
            }
            throw fail("'\"' closing the text")
        }

        mutating func word(_ w: String) throws {
            let bytes = Array(w.utf8)
            guard i + bytes.count <= b.count, Array(b[i..<(i + bytes.count)]) == bytes else { throw fail("a value (true, false or null?)") }
            i += bytes.count
        }

        mutating func number() throws {
            let start = i
            if b[i] == UInt8(ascii: "-") { i += 1 }
            guard isDigit(i) else { throw fail("a digit") }
            if b[i] == UInt8(ascii: "0") { i += 1 } else { while isDigit(i) { i += 1 } }
            if i < b.count, b[i] == UInt8(ascii: ".") {
                i += 1
                guard isDigit(i) else { throw fail("a digit after '.'") }
                while isDigit(i) { i += 1 }
            }
            if i < b.count, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
                i += 1
                if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
                guard isDigit(i) else { throw fail("a digit in the exponent") }
                while isDigit(i) { i += 1 }
            }
            let literal = String(decoding: b[start..<i], as: UTF8.self)
            guard let value = Double(literal), value.isFinite else { throw Problem.hugeNumber(path: path, literal: Diagnostic.elided(literal)) }
        }
    }

    /// Where `path` is, in the page's words: "segment 2's end", "segment 2", "version", "the body".
    static func place(_ path: [String]) -> String {
        guard let top = path.first else { return "the body" }
        if top == "segments", path.count >= 2, let k = Int(path[1]), k >= 0, k < Int.max {
            return path.count >= 3 ? "segment \(k + 1)'s \(path[2...].joined(separator: "."))" : "segment \(k + 1)"
        }
        return path.joined(separator: ".")
    }

    /// What the value at `path` must be, for a message.
    static func expected(_ path: [String]) -> String {
        if path.isEmpty { return "an object: {\"version\": \"...\", \"segments\": [...]}" }
        if path.first == "segments" && path.count == 2 { return "an object: {\"video\": \"...\", \"label\": \"...\", \"start\": seconds or null, \"end\": seconds or null}" }
        switch path.last {
        case "version": return "text: the version the page loaded"
        case "segments": return "a list of segments"
        case "video": return "text: the clip's path as the file or the clip list gives it"
        case "label": return "text"
        case "start", "end": return "a number of seconds, or null"
        default: return "something else"
        }
    }

    /// A decoding error of a body that is JSON, as a sentence naming the field.
    static func decodingMessage(_ error: Error) -> String {
        func names(_ path: [CodingKey]) -> [String] { path.map { $0.intValue.map { "\($0)" } ?? $0.stringValue } }
        switch error {
        case DecodingError.keyNotFound(let key, let c):
            let owner = names(c.codingPath)
            return "\(place(owner)) has no \"\(key.stringValue)\": it must be \(expected(owner))"
        case DecodingError.typeMismatch(_, let c):
            return "\(place(names(c.codingPath))) must be \(expected(names(c.codingPath)))"
        case DecodingError.valueNotFound(_, let c):
            return "\(place(names(c.codingPath))) is null; it must be \(expected(names(c.codingPath)))"
        case DecodingError.dataCorrupted(let c):
            return "\(place(names(c.codingPath))) cannot be read; it must be \(expected(names(c.codingPath)))"
        default:
            return "\(error)"
        }
    }
}
