import Foundation
import Keypoints

/// NumPy `.npy` (format 1.0) encoding: a header naming dtype and shape, then little-endian data.
/// Written by hand: no Swift package on this machine writes NumPy files, and the format is one page.
public enum Npy {
    public enum DType: Equatable {
        case float32, float64, int32, int64, uint8, bool
        /// A fixed-length Unicode string of `n` characters (UTF-32, as NumPy's `<U` stores it).
        case unicode(Int)

        var descr: String {
            switch self {
            case .float32: return "<f4"
            case .float64: return "<f8"
            case .int32: return "<i4"
            case .int64: return "<i8"
            case .uint8: return "|u1"
            case .bool: return "|b1"
            case .unicode(let n): return "<U\(n)"
            }
        }

        /// Bytes per element.
        public var size: Int {
            switch self {
            case .float32, .int32: return 4
            case .float64, .int64: return 8
            case .uint8, .bool: return 1
            case .unicode(let n): return 4 * n
            }
        }
    }

    /// The header of an array of `dtype` and `shape` (an empty shape is a single value).
    public static func header(_ dtype: DType, shape: [Int]) -> Data {
        let dims = shape.count == 1 ? "(\(shape[0]),)" : "(" + shape.map(String.init).joined(separator: ", ") + ")"
        var dict = "{'descr': '\(dtype.descr)', 'fortran_order': False, 'shape': \(dims), }"
        // Magic (6) + version (2) + length (2) + dict + newline, padded to a multiple of 64.
        let unpadded = 10 + dict.utf8.count + 1
        dict += String(repeating: " ", count: (64 - unpadded % 64) % 64) + "\n"
        var d = Data([0x93] + Array("NUMPY".utf8) + [1, 0])
        let n = UInt16(dict.utf8.count)
        d.append(contentsOf: [UInt8(n & 0xFF), UInt8(n >> 8)])
        d.append(contentsOf: Array(dict.utf8))
        return d
    }

    public static func encode(_ values: [Float], shape: [Int]) -> Data { encode(values, .float32, shape: shape) }
    public static func encode(_ values: [Int64], shape: [Int]) -> Data { encode(values, .int64, shape: shape) }
    public static func encode(_ values: [UInt8], shape: [Int]) -> Data { encode(values, .uint8, shape: shape) }

    static func encode<T>(_ values: [T], _ dtype: DType, shape: [Int]) -> Data {
        precondition(values.count == shape.reduce(1, *), "values do not fill the shape")
        var d = header(dtype, shape: shape)
        values.withUnsafeBufferPointer { d.append(contentsOf: UnsafeRawBufferPointer($0)) }
        return d
    }

    /// A single string (a 0-d `<U` array: `str(np.load(f)["name"])` gives it back).
    public static func encode(_ text: String) -> Data {
        let scalars = text.unicodeScalars.map { $0.value }
        var d = header(.unicode(max(scalars.count, 1)), shape: [])
        scalars.withUnsafeBufferPointer { d.append(contentsOf: UnsafeRawBufferPointer($0)) }
        if scalars.isEmpty { d.append(contentsOf: [0, 0, 0, 0]) }
        return d
    }
}

extension Npy {
    /// An array read back: its shape and its values as Float (from float32, float64, int32, int64,
    /// uint8 or bool data in C order).
    public struct Loaded: Sendable {
        public var shape: [Int]
        public var values: [Float]
    }

    /// Reads `.npy` bytes (format 1.0 or 2.0); `name` names them in errors.
    public static func read(_ data: Data, name: String) throws -> Loaded {
        func fail(_ reason: String) -> KeypointError { .invalid(path: name, reason: reason) }
        let bytes = [UInt8](data)
        guard bytes.count >= 10, bytes[0] == 0x93, String(decoding: bytes[1..<6], as: UTF8.self) == "NUMPY" else {
            throw fail("not a NumPy .npy file")
        }
        let major = bytes[6]
        let headerLength: Int, start: Int
        if major == 1 {
            headerLength = Int(bytes[8]) | Int(bytes[9]) << 8; start = 10
        } else {
            guard bytes.count >= 12 else { throw fail("truncated header") }
            headerLength = Int(bytes[8]) | Int(bytes[9]) << 8 | Int(bytes[10]) << 16 | Int(bytes[11]) << 24; start = 12
        }
        guard bytes.count >= start + headerLength else { throw fail("truncated header") }
        let header = String(decoding: bytes[start..<start + headerLength], as: UTF8.self)
        func field(_ key: String) -> String? {
            guard let r = header.range(of: "'\(key)':") else { return nil }
            return String(header[r.upperBound...]).trimmingCharacters(in: .whitespaces)
        }
        guard let descrText = field("descr"), let q1 = descrText.firstIndex(of: "'"),
              let q2 = descrText[descrText.index(after: q1)...].firstIndex(of: "'") else { throw fail("no dtype in the header") }
        let descr = String(descrText[descrText.index(after: q1)..<q2])
        guard field("fortran_order")?.hasPrefix("False") == true else { throw fail("Fortran order is not read") }
        // The first ")" after the first "(": a header may hold them in either order.
        guard let shapeText = field("shape"), let open = shapeText.firstIndex(of: "("),
              let close = shapeText[open...].firstIndex(of: ")") else {
            throw fail("no shape in the header")
        }
        let shape = try shapeText[shapeText.index(after: open)..<close].split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            .map { guard let n = Int($0), n >= 0 else { throw fail("shape \(shapeText[open...close])") }; return n }
        // The shape is from the file: its product (and the bytes it needs) may overflow an Int.
        var count = 1
        for n in shape {
            let (product, overflow) = count.multipliedReportingOverflow(by: n)
            guard !overflow, product <= Int(Int32.max) * 64 else { throw fail("shape \(shapeText[open...close]) holds more values than any file") }
            count = product
        }
        let body = bytes[(start + headerLength)...]
        func load<T>(_ type: T.Type, _ convert: (T) -> Float) throws -> [Float] {
            let size = MemoryLayout<T>.size
            guard body.count / size >= count else { throw fail("\(body.count) bytes of data for \(count) values of \(descr)") }
            return body.withUnsafeBytes { raw in (0..<count).map { convert(raw.loadUnaligned(fromByteOffset: $0 * size, as: T.self)) } }
        }
        let values: [Float]
        switch descr {
        case "<f4": values = try load(Float.self) { $0 }
        case "<f8": values = try load(Double.self) { Float($0) }
        case "<i4": values = try load(Int32.self) { Float($0) }
        case "<i8": values = try load(Int64.self) { Float($0) }
        case "|u1", "|b1": values = try load(UInt8.self) { Float($0) }
        default: throw fail("dtype \(descr) is not read")
        }
        return Loaded(shape: shape, values: values)
    }
}
