import Foundation

/// What a Range header asks of a file of `size` bytes, read as RFC 9110 (14.1, 14.2) says: a unit other
/// than bytes, or a range-set that does not parse, is ignored (the whole file, 200); so is a request for
/// several ranges, which 14.2 allows a server to do rather than answer with multipart/byteranges
/// (browsers' players ask for one). One range: `first-last` (last clamped to the end; last before first
/// makes it invalid, so ignored), `first-`, or `-suffix` (the last bytes); 416 only when it starts at or
/// past the end, or is a suffix of zero bytes.
enum ByteRange: Equatable {
    /// Send it whole (200): no range asked that this server serves.
    case whole
    /// The bytes to send (206).
    case part(ClosedRange<Int>)
    /// A well-formed range wholly past the end (416).
    case unsatisfiable

    init(_ header: String, size: Int) {
        guard let equals = header.firstIndex(of: "=") else { self = .whole; return }
        // The range unit is case-insensitive.
        guard header[..<equals].lowercased() == "bytes" else { self = .whole; return }
        // range-set = 1#range-spec: list elements with optional white space, empty ones ignored.
        let specs = header[header.index(after: equals)...].split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " \t")) }.filter { !$0.isEmpty }
        guard specs.count == 1 else { self = .whole; return }
        self = Self.one(specs[0], size: size)
    }

    /// One range-spec.
    static func one(_ spec: String, size: Int) -> ByteRange {
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return .whole }
        let first = parts[0], last = parts[1]
        func isNumber(_ s: Substring) -> Bool { !s.isEmpty && s.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }
        // A number too large for Int is larger than any file: as good as Int.max here.
        func value(_ s: Substring) -> Int { Int(s) ?? Int.max }
        if first.isEmpty {
            guard isNumber(last) else { return .whole }
            let n = value(last)
            guard n > 0 else { return .unsatisfiable }
            guard size > 0 else { return .whole }
            return .part(max(0, size - n)...(size - 1))
        }
        guard isNumber(first), last.isEmpty || isNumber(last) else { return .whole }
        if !last.isEmpty && less(last, than: first) { return .whole }
        let a = value(first)
        guard a < size else { return .unsatisfiable }
        return .part(a...min(last.isEmpty ? size - 1 : value(last), size - 1))
    }

    /// Whether decimal digits `a` are a smaller number than `b`, however long either is.
    static func less(_ a: Substring, than b: Substring) -> Bool {
        let x = a.drop { $0 == "0" }, y = b.drop { $0 == "0" }
        return x.count != y.count ? x.count < y.count : x.lexicographicallyPrecedes(y)
    }
}
