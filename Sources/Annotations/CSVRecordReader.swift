/// One record of a CSV file: its fields as written (quotes removed, doubled quotes undone) and the
/// line it starts on, or what makes it unusable.
struct CSVRecord: Equatable {
    /// 1-based line of the record's first character.
    var line: Int
    var fields: [String]
    /// The first problem found in the record; its fields are then incomplete.
    var problem: CSVProblem?

    /// Only separators and white space: skipped, as Create ML skips empty lines.
    var isBlank: Bool { problem == nil && fields.allSatisfy { $0.allSatisfy(\.isWhitespace) } }
}

/// Why a CSV record cannot be used; `field` is 1-based.
enum CSVProblem: Equatable {
    /// A `"` inside a value that does not start with one (RFC 4180 allows quotes only in quoted values).
    case strayQuote(line: Int, field: Int)
    /// Text after a quoted value's closing quote, before the next comma.
    case textAfterQuote(line: Int, field: Int)
    /// A quoted value still open at the end of the file; `line` is where its quote opened.
    case unclosedQuote(line: Int, field: Int)
    /// Bytes that are not UTF-8; `byte` is the offset of the first one within the value.
    case notUTF8(line: Int, field: Int, byte: Int)
    /// A value longer than `CSVRecordReader.maxValueBytes`: `head` is its start, `characters` its length.
    case tooLong(line: Int, field: Int, head: String, characters: Int)
}

/// Reads CSV records one at a time from chunks of bytes, so a file of any size is read in the memory
/// of one chunk and one record. Follows RFC 4180 (quoted values may hold commas, quotes written `""`
/// and line breaks; records end at LF, CRLF or CR) with SwiftCSV's leniencies, which files checked by
/// earlier versions relied on: spaces before an opening quote or after a closing one, and `""` inside
/// an unquoted value meaning one quote. Written here rather than taken from a library because neither
/// SwiftCSV (whole file in memory) nor CSV.swift (no line numbers, malformed quoting accepted
/// silently) reports where a record starts and what is wrong with it.
struct CSVRecordReader {
    /// Longer values are not paths, labels or times but a file gone wrong (an unclosed quote, binary
    /// data): reported, and only their start kept, so memory stays bounded.
    static let maxValueBytes = LabelText.maxBytes

    private enum State { case fieldStart, unquoted, unquotedQuote, quoted, quotedQuote, afterQuote, skipping }

    private let nextChunk: () -> [UInt8]?
    private var chunk: [UInt8] = []
    private var position = 0
    private var inputEnded = false

    private var line = 1
    private var previousWasCR = false
    private var state = State.fieldStart

    // The record being read.
    private var recordLine = 1
    private var recordStarted = false
    private var fields: [String] = []
    private var field: [UInt8] = []
    private var fieldBytes = 0
    private var fieldCharacters = 0
    private var quoteLine = 1
    private var problem: CSVProblem?

    /// Reads the chunks `nextChunk` returns until it returns nil.
    init(chunks nextChunk: @escaping () -> [UInt8]?) {
        self.nextChunk = nextChunk
    }

    /// Reads `bytes` (already in memory).
    init(bytes: [UInt8]) { self.init(chunks: Self.once(bytes)) }

    /// A chunk source that gives `bytes` once.
    static func once(_ bytes: [UInt8]) -> () -> [UInt8]? {
        var given = false
        return { defer { given = true }; return given ? nil : bytes }
    }

    /// The next record, or nil after the last.
    mutating func next() -> CSVRecord? {
        while true {
            if position == chunk.count {
                if inputEnded { return finishAtEndOfInput() }
                guard let c = nextChunk() else { inputEnded = true; continue }
                chunk = c
                position = 0
                continue
            }
            let bytes = chunk
            let complete = bytes.withUnsafeBufferPointer { scan($0) }
            if complete { return takeRecord() }
        }
    }

    /// Consumes bytes from `position` until a record ends (true) or the chunk does (false).
    private mutating func scan(_ buffer: UnsafeBufferPointer<UInt8>) -> Bool {
        let quote = UInt8(ascii: "\""), comma = UInt8(ascii: ","), cr = UInt8(ascii: "\r"), lf = UInt8(ascii: "\n")
        while position < buffer.count {
            let b = buffer[position]
            position += 1
            // Lines are counted on every break, inside quotes too; CRLF is one break.
            let wasCR = previousWasCR
            previousWasCR = b == cr
            if b == lf && wasCR && !recordStarted { continue }   // the LF of a CRLF that ended the last record
            if b == cr || (b == lf && !wasCR) { line += 1 }
            if !recordStarted { recordStarted = true; recordLine = b == cr || b == lf ? line - 1 : line }
            let isBreak = b == cr || b == lf
            let isSpace = b == 0x20 || b == 0x09
            switch state {
            case .fieldStart:
                if b == quote { field.removeAll(keepingCapacity: true); resetCounts(); quoteLine = line; state = .quoted }
                else if b == comma { endField() }
                else if isBreak { endField(); return true }
                else { append(b); if !isSpace { state = .unquoted } }
            case .unquoted:
                if b == comma { endField(); state = .fieldStart }
                else if isBreak { endField(); return true }
                else if b == quote { state = .unquotedQuote }
                else { append(b) }
            case .unquotedQuote:
                if b == quote { append(quote); state = .unquoted }
                else {
                    fail(.strayQuote(line: line - (isBreak ? 1 : 0), field: fields.count + 1))
                    if isBreak { return true }
                }
            case .quoted:
                if b == quote { state = .quotedQuote } else { append(b) }
            case .quotedQuote:
                if b == quote { append(quote); state = .quoted }
                else if b == comma { endField(); state = .fieldStart }
                else if isBreak { endField(); return true }
                else if isSpace { state = .afterQuote }
                else { fail(.textAfterQuote(line: line, field: fields.count + 1)) }
            case .afterQuote:
                if b == comma { endField(); state = .fieldStart }
                else if isBreak { endField(); return true }
                else if !isSpace { fail(.textAfterQuote(line: line, field: fields.count + 1)) }
            case .skipping:
                if isBreak { return true }
            }
        }
        return false
    }

    private mutating func append(_ b: UInt8) {
        fieldBytes += 1
        if b & 0xC0 != 0x80 { fieldCharacters += 1 }   // counts scalars: a UTF-8 continuation byte starts none
        if field.count < Self.maxValueBytes { field.append(b) }
    }

    private mutating func resetCounts() { fieldBytes = 0; fieldCharacters = 0 }

    /// Ends the current value: checks its length and encoding and adds it to the record.
    private mutating func endField() {
        defer { field.removeAll(keepingCapacity: field.capacity <= 4096); resetCounts(); state = .fieldStart }
        guard problem == nil else { return }
        if fieldBytes > Self.maxValueBytes {
            problem = .tooLong(line: recordLine, field: fields.count + 1,
                               head: String(decoding: field.prefix(256), as: UTF8.self), characters: fieldCharacters)
            return
        }
        guard let text = String(validating: field, as: UTF8.self) else {
            problem = .notUTF8(line: recordLine, field: fields.count + 1, byte: Self.firstInvalidUTF8(field))
            return
        }
        fields.append(text)
    }

    private mutating func fail(_ p: CSVProblem) {
        if problem == nil { problem = p }
        state = .skipping
    }

    private mutating func takeRecord() -> CSVRecord {
        let record = CSVRecord(line: recordLine, fields: problem == nil ? fields : [], problem: problem)
        fields.removeAll(keepingCapacity: true)
        field.removeAll(keepingCapacity: field.capacity <= 4096)   // a record given up mid-value leaves bytes behind
        resetCounts()
        problem = nil
        recordStarted = false
        state = .fieldStart
        return record
    }

    private mutating func finishAtEndOfInput() -> CSVRecord? {
        guard recordStarted else { return nil }
        switch state {
        case .quoted: fail(.unclosedQuote(line: quoteLine, field: fields.count + 1))
        case .unquotedQuote: fail(.strayQuote(line: line, field: fields.count + 1))
        case .skipping: break
        default: endField()
        }
        return takeRecord()
    }

    /// Offset of the first byte of `bytes` that does not belong to valid UTF-8.
    static func firstInvalidUTF8(_ bytes: [UInt8]) -> Int {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let scalar): offset += scalar.count
            case .error, .emptyInput: return offset
            }
        }
    }
}
