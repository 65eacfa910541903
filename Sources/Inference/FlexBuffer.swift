/// A bounds-checked reader of the FlexBuffers map a TFLite custom operator carries as its options
/// (`custom_options`, format FLEXBUFFERS): MediaPipe's face mesh with attention keeps its landmark subsets
/// and crop sizes there. Written by hand like `FlatBuffer`: only reading, only what operator options hold
/// (a map of numbers, booleans and vectors of numbers), every offset checked against the bytes first, so a
/// damaged file is an error naming it, never a read outside the buffer or a trapping conversion.
enum FlexValue: Equatable, Sendable {
    case int(Int64)
    case float(Double)
    case bool(Bool)
    case numbers([Double])
    /// A value of a kind operator options do not use here (strings, nested maps, blobs): kept by its type code.
    case other(type: Int)
}

struct FlexBuffer {
    let bytes: [UInt8]
    let path: String

    func fail(_ reason: String) -> InferenceError { .malformed(path: path, reason: "custom options: \(reason)") }

    /// A little-endian unsigned value of `width` bytes at `at`.
    func unsigned(_ at: Int, _ width: Int) throws -> UInt64 {
        guard [1, 2, 4, 8].contains(width), at >= 0, at <= bytes.count - width else {
            throw fail("\(width) bytes at offset \(at) are outside the \(bytes.count) bytes")
        }
        var v: UInt64 = 0
        for i in (0..<width).reversed() { v = v << 8 | UInt64(bytes[at + i]) }
        return v
    }
    func signed(_ at: Int, _ width: Int) throws -> Int64 {
        let u = try unsigned(at, width)
        let shift = UInt64(64 - 8 * width)
        return Int64(bitPattern: u << shift) >> Int64(shift)
    }
    func float(_ at: Int, _ width: Int) throws -> Double {
        switch width {
        case 4: return Double(Float(bitPattern: UInt32(try unsigned(at, 4))))
        case 8: return Double(bitPattern: try unsigned(at, 8))
        default: throw fail("a float of \(width) bytes")
        }
    }
    /// Where the offset stored at `at` (`width` bytes, counted back from `at`) points.
    func target(_ at: Int, _ width: Int) throws -> Int {
        let offset = try unsigned(at, width)
        guard offset <= UInt64(at) else { throw fail("offset \(offset) at \(at) points before the buffer") }
        return at - Int(offset)
    }
    /// The element count stored just before a vector's first element.
    func count(_ vector: Int, _ width: Int) throws -> Int {
        let n = try unsigned(vector - width, width)
        guard n <= UInt64(bytes.count) else { throw fail("a vector at \(vector) claims \(n) elements") }
        return Int(n)
    }
    func key(_ at: Int) throws -> String {
        guard at >= 0, at < bytes.count, let end = bytes[at...].firstIndex(of: 0) else { throw fail("a key at \(at) has no end") }
        return String(decoding: bytes[at..<end], as: UTF8.self)
    }

    /// The value in the slot at `at` whose parent is `parentWidth` bytes wide, with packed type `packed`.
    func value(_ at: Int, parentWidth: Int, packed: UInt8) throws -> FlexValue {
        let type = Int(packed >> 2), width = 1 << Int(packed & 3)
        switch type {
        case 1: return .int(try signed(at, parentWidth))
        case 2:
            let u = try unsigned(at, parentWidth)
            guard let v = Int64(exactly: u) else { throw fail("unsigned value \(u) at \(at) is out of range") }
            return .int(v)
        case 3: return .float(try float(at, parentWidth))
        case 26: return .bool(try unsigned(at, parentWidth) != 0)
        case 6: return .int(try signed(try target(at, parentWidth), width))
        case 7:
            let u = try unsigned(try target(at, parentWidth), width)
            guard let v = Int64(exactly: u) else { throw fail("unsigned value \(u) at \(at) is out of range") }
            return .int(v)
        case 8: return .float(try float(try target(at, parentWidth), width))
        case 11, 12, 13:
            // Typed vectors of ints, unsigned ints and floats: a count, then elements `width` bytes each.
            let v = try target(at, parentWidth), n = try count(v, width)
            guard n <= (bytes.count - v) / width else { throw fail("a vector at \(v) of \(n) elements runs past the end") }
            return .numbers(try (0..<n).map { i in
                let p = v + i * width
                return type == 13 ? try float(p, width) : type == 11 ? Double(try signed(p, width)) : Double(try unsigned(p, width))
            })
        default: return .other(type: type)
        }
    }

    /// The root, which must be a map: its keys and values.
    func rootMap() throws -> [String: FlexValue] {
        guard bytes.count >= 3 else { throw fail("\(bytes.count) bytes") }
        let rootWidth = Int(bytes[bytes.count - 1]), packed = bytes[bytes.count - 2]
        guard [1, 2, 4, 8].contains(rootWidth) else { throw fail("root width \(rootWidth)") }
        guard packed >> 2 == 9 else { throw fail("the root is of type \(packed >> 2), not a map") }
        let width = 1 << Int(packed & 3)
        let map = try target(bytes.count - 2 - rootWidth, rootWidth)
        let n = try count(map, width)
        guard n <= (bytes.count - map) / (width + 1) else { throw fail("a map at \(map) of \(n) entries runs past the end") }
        // Before the count: the keys vector's offset and its element width.
        let keysSlot = map - 3 * width
        let keys = try target(keysSlot, width)
        let keyWidth = Int(try unsigned(map - 2 * width, width))
        guard [1, 2, 4, 8].contains(keyWidth), try count(keys, keyWidth) == n else { throw fail("the map's keys do not match its values") }
        var out: [String: FlexValue] = [:]
        for i in 0..<n {
            let name = try key(try target(keys + i * keyWidth, keyWidth))
            out[name] = try value(map + i * width, parentWidth: width, packed: bytes[map + n * width + i])
        }
        return out
    }
}

/// Typed reads of one custom operator's options, each naming the operator and key when it is missing,
/// of another kind, or out of `range`.
public struct CustomOptions: Sendable {
    let values: [String: FlexValue]
    let path: String, index: Int, name: String
    /// The operator code's version (OperatorCode field 2).
    let version: Int

    func fail(_ reason: String) -> InferenceError { .unsupportedOption(path: path, index: index, name: name, reason: reason) }

    func int(_ key: String, in range: ClosedRange<Int>) throws -> Int {
        guard case .int(let v) = values[key] else { throw fail("option '\(key)' missing or not an integer") }
        guard let i = Int(exactly: v), range.contains(i) else { throw fail("option '\(key)' = \(v) outside \(range)") }
        return i
    }
    func float(_ key: String, in range: ClosedRange<Float>) throws -> Float {
        let v: Double
        switch values[key] {
        case .float(let f): v = f
        case .int(let i): v = Double(i)
        default: throw fail("option '\(key)' missing or not a number")
        }
        guard v.isFinite, range.contains(Float(v)) else { throw fail("option '\(key)' = \(v) outside \(range)") }
        return Float(v)
    }
    public func ints(_ key: String, in range: ClosedRange<Int>) throws -> [Int] {
        guard case .numbers(let list) = values[key] else { throw fail("option '\(key)' missing or not a vector of numbers") }
        return try list.map { v in
            guard let i = Int(exactly: v), range.contains(i) else { throw fail("option '\(key)' holds \(v), outside \(range)") }
            return i
        }
    }
}
