/// A value of an annotation object, as far as annotations care: text, a number, a boolean, null,
/// or something else (an array or object, which no column takes).
enum JSONValue: Equatable {
    case text(String)
    /// A number as written (RFC 8259's grammar, checked): labels keep their literal text, times parse it.
    case number(String)
    case bool(Bool)
    case null
    case nested
    /// A string longer than `JSONEntryReader.maxValueBytes`: its start and its length in characters.
    case tooLong(head: String, characters: Int)
}

/// One element of the root array: the line it starts on and, when it is an object, its members.
struct JSONElement: Equatable {
    var line: Int
    var members: [(key: String, value: JSONValue)]?

    static func == (a: JSONElement, b: JSONElement) -> Bool {
        a.line == b.line && a.members?.map(\.key) == b.members?.map(\.key) && a.members?.map(\.value) == b.members?.map(\.value)
    }
}

/// Why a JSON annotation file cannot be read; `column` counts characters from 1.
enum JSONProblem: Equatable {
    case syntax(line: Int, column: Int, expected: String)
    case notUTF8(line: Int, column: Int)
    case rootNotArray
}

/// Reads the root array of a JSON annotation file one element at a time from chunks of bytes, so a
/// file of a million entries is never held whole: JSONSerialization builds an object per entry, over
/// 3 GB for a million. Strict RFC 8259; reports where the text stops being JSON, by line and column.
struct JSONEntryReader {
    static let maxValueBytes = LabelText.maxBytes
    /// Nesting this deep is no annotation; refusing it keeps the recursion bounded.
    static let maxDepth = 256

    private struct Stop: Error { var problem: JSONProblem }

    private let nextChunk: () -> [UInt8]?
    private var chunk: [UInt8] = []
    private var position = 0
    private var line = 1
    private var column = 1
    /// The bytes passed over while an element is being captured (`readElements`).
    private var recording: [UInt8]?

    init(chunks nextChunk: @escaping () -> [UInt8]?) { self.nextChunk = nextChunk }

    /// Calls `element` for each element of the root array, in order; returns what stopped it early, if anything.
    mutating func read(_ element: (JSONElement) -> Void) -> JSONProblem? {
        readRoot(objectRoot: false) { r, line in
            if r.peek() == UInt8(ascii: "{") {
                element(JSONElement(line: line, members: try r.readObject()))
            } else {
                try r.skipValue(depth: 1)
                element(JSONElement(line: line, members: nil))
            }
        }
    }

    /// Calls `element` with each element of the root array as JSON text of its own, and the line it
    /// starts on (a root object is the one element), for files whose elements are parsed one by one:
    /// the file is checked as it is read, and only one element is ever held.
    mutating func readElements(_ element: (_ line: Int, _ json: [UInt8]) -> Void) -> JSONProblem? {
        readRoot(objectRoot: true) { r, line in
            r.recording = []
            try r.skipValue(depth: 1)
            element(line, r.recording ?? [])
            r.recording = nil
        }
    }

    /// The root array, each element read by `each` from its first byte (given the line it starts on).
    private mutating func readRoot(objectRoot: Bool, _ each: (inout JSONEntryReader, Int) throws -> Void) -> JSONProblem? {
        do {
            skipSpace()
            guard let first = peek() else { throw fail("a JSON array") }
            if objectRoot && first == UInt8(ascii: "{") {
                try each(&self, line)
            } else if first != UInt8(ascii: "[") {
                try skipValue(depth: 0)
                skipSpace()
                if peek() != nil { throw fail("the end of the file") }
                return .rootNotArray
            } else {
                advance()
                skipSpace()
                if peek() == UInt8(ascii: "]") { advance() } else {
                    while true {
                        skipSpace()
                        try each(&self, line)
                        skipSpace()
                        guard let b = next() else { throw fail("',' or ']' after an entry") }
                        if b == UInt8(ascii: "]") { break }
                        if b != UInt8(ascii: ",") { throw fail("',' or ']' after an entry", back: true) }
                    }
                }
            }
            skipSpace()
            if peek() != nil { throw fail("the end of the file") }
            return nil
        } catch let stop as Stop {
            return stop.problem
        } catch {
            return .syntax(line: line, column: column, expected: "JSON")
        }
    }

    // MARK: bytes

    private mutating func peek() -> UInt8? {
        if position == chunk.count {
            guard let c = nextChunk(), !c.isEmpty else { return nil }
            chunk = c
            position = 0
        }
        return chunk[position]
    }

    private mutating func advance() {
        guard let b = peek() else { return }
        position += 1
        recording?.append(b)
        if b == 0x0A { line += 1; column = 1 } else if b & 0xC0 != 0x80 { column += 1 }
    }

    private mutating func next() -> UInt8? {
        let b = peek()
        advance()
        return b
    }

    private mutating func skipSpace() {
        while let b = peek(), b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 { advance() }
    }

    /// The problem at the current position (or the byte just read, with `back`).
    private func fail(_ expected: String, back: Bool = false) -> Stop {
        Stop(problem: .syntax(line: line, column: max(1, column - (back ? 1 : 0)), expected: expected))
    }

    private mutating func expect(_ literal: String) throws {
        for b in literal.utf8 where next() != b { throw fail("'\(literal)'", back: true) }
    }

    // MARK: values

    private mutating func readObject() throws -> [(key: String, value: JSONValue)] {
        advance()   // {
        var members: [(key: String, value: JSONValue)] = []
        skipSpace()
        if peek() == UInt8(ascii: "}") { advance(); return members }
        while true {
            skipSpace()
            guard peek() == UInt8(ascii: "\"") else { throw fail("a quoted key") }
            guard case let .text(key) = try readString() else { throw fail("a shorter key") }
            skipSpace()
            guard next() == UInt8(ascii: ":") else { throw fail("':' after a key", back: true) }
            skipSpace()
            members.append((key, try readValue()))
            skipSpace()
            let b = next()
            if b == UInt8(ascii: "}") { return members }
            if b != UInt8(ascii: ",") { throw fail("',' or '}' in an object", back: true) }
        }
    }

    private mutating func readValue() throws -> JSONValue {
        switch peek() {
        case UInt8(ascii: "\""): return try readString()
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "n"): try expect("null"); return .null
        case UInt8(ascii: "{"), UInt8(ascii: "["): try skipValue(depth: 2); return .nested
        default: return .number(try readNumber())
        }
    }

    /// Checks and passes over any value.
    private mutating func skipValue(depth: Int) throws {
        guard depth < Self.maxDepth else { throw fail("less nesting") }
        switch peek() {
        case UInt8(ascii: "{"):
            advance()
            skipSpace()
            if peek() == UInt8(ascii: "}") { advance(); return }
            while true {
                skipSpace()
                guard peek() == UInt8(ascii: "\"") else { throw fail("a quoted key") }
                _ = try readString()
                skipSpace()
                guard next() == UInt8(ascii: ":") else { throw fail("':' after a key", back: true) }
                skipSpace()
                try skipValue(depth: depth + 1)
                skipSpace()
                let b = next()
                if b == UInt8(ascii: "}") { return }
                if b != UInt8(ascii: ",") { throw fail("',' or '}' in an object", back: true) }
            }
        case UInt8(ascii: "["):
            advance()
            skipSpace()
            if peek() == UInt8(ascii: "]") { advance(); return }
            while true {
                skipSpace()
                try skipValue(depth: depth + 1)
                skipSpace()
                let b = next()
                if b == UInt8(ascii: "]") { return }
                if b != UInt8(ascii: ",") { throw fail("',' or ']' in an array", back: true) }
            }
        default:
            _ = try readValue()
        }
    }

    /// RFC 8259 numbers: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
    private mutating func readNumber() throws -> String {
        var text: [UInt8] = []
        func digits(_ r: inout JSONEntryReader) -> Int {
            var n = 0
            while let b = r.peek(), (0x30...0x39).contains(b) { text.append(b); r.advance(); n += 1 }
            return n
        }
        let start = JSONProblem.syntax(line: line, column: column, expected: "a value")
        if peek() == UInt8(ascii: "-") { text.append(UInt8(ascii: "-")); advance() }
        let whole = digits(&self)
        guard whole > 0, !(whole > 1 && text.first(where: { $0 != UInt8(ascii: "-") }) == UInt8(ascii: "0")) else { throw Stop(problem: start) }
        if peek() == UInt8(ascii: ".") {
            text.append(UInt8(ascii: ".")); advance()
            guard digits(&self) > 0 else { throw fail("a digit after '.'") }
        }
        if let e = peek(), e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            text.append(e); advance()
            if let s = peek(), s == UInt8(ascii: "+") || s == UInt8(ascii: "-") { text.append(s); advance() }
            guard digits(&self) > 0 else { throw fail("a digit in the exponent") }
        }
        return String(decoding: text, as: UTF8.self)
    }

    private mutating func readString() throws -> JSONValue {
        let startLine = line, startColumn = column
        advance()   // opening quote
        var bytes: [UInt8] = []
        var length = 0, characters = 0
        func add(_ b: UInt8) {
            length += 1
            if b & 0xC0 != 0x80 { characters += 1 }
            if bytes.count < Self.maxValueBytes { bytes.append(b) }
        }
        while true {
            guard let b = peek() else { throw fail("a closing quote") }
            if b < 0x20 { throw fail("a control character written as an escape (\\n, \\t, \\u0000)") }
            advance()
            if b == UInt8(ascii: "\"") { break }
            guard b == UInt8(ascii: "\\") else { add(b); continue }
            guard let e = next() else { throw fail("an escape") }
            switch e {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): add(e)
            case UInt8(ascii: "b"): add(0x08)
            case UInt8(ascii: "f"): add(0x0C)
            case UInt8(ascii: "n"): add(0x0A)
            case UInt8(ascii: "r"): add(0x0D)
            case UInt8(ascii: "t"): add(0x09)
            case UInt8(ascii: "u"):
                var unit = try hex4()
                if (0xD800..<0xDC00).contains(unit) {
                    // A surrogate pair: the low half must follow as another \u escape.
                    guard next() == UInt8(ascii: "\\"), next() == UInt8(ascii: "u") else { throw fail("the second half of a \\u surrogate pair", back: true) }
                    let low = try hex4()
                    guard (0xDC00..<0xE000).contains(low) else { throw fail("a low surrogate") }
                    unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let scalar = Unicode.Scalar(unit) else { throw fail("a Unicode scalar, not a lone surrogate") }
                for b in String(scalar).utf8 { add(b) }
            default:
                throw fail("an escape such as \\n, \\\" or \\u00e9", back: true)
            }
        }
        if length > Self.maxValueBytes {
            return .tooLong(head: String(decoding: bytes.prefix(256), as: UTF8.self), characters: characters)
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw Stop(problem: .notUTF8(line: startLine, column: startColumn))
        }
        return .text(text)
    }

    private mutating func hex4() throws -> UInt32 {
        var v: UInt32 = 0
        for _ in 0..<4 {
            guard let b = next(), let d = Character(Unicode.Scalar(b)).hexDigitValue else { throw fail("4 hex digits after \\u", back: true) }
            v = v * 16 + UInt32(d)
        }
        return v
    }
}
