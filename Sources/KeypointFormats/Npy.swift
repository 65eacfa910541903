import Foundation

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
