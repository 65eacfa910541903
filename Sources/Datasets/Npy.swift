import Foundation

/// NumPy `.npy` (format 1.0) encoding: a header naming dtype and shape, then little-endian data.
/// Written by hand: no Swift package on this machine writes NumPy files, and the format is one page.
public enum Npy {
    public enum DType: String { case float32 = "<f4", int64 = "<i8", uint8 = "|u1" }

    static func header(_ dtype: DType, shape: [Int]) -> Data {
        let dims = shape.count == 1 ? "(\(shape[0]),)" : "(" + shape.map(String.init).joined(separator: ", ") + ")"
        var dict = "{'descr': '\(dtype.rawValue)', 'fortran_order': False, 'shape': \(dims), }"
        // Magic (6) + version (2) + length (2) + dict + newline, padded to a multiple of 64.
        let unpadded = 10 + dict.utf8.count + 1
        dict += String(repeating: " ", count: (64 - unpadded % 64) % 64) + "\n"
        var d = Data([0x93] + Array("NUMPY".utf8) + [1, 0])
        let n = UInt16(dict.utf8.count)
        d.append(contentsOf: [UInt8(n & 0xFF), UInt8(n >> 8)])
        d.append(contentsOf: Array(dict.utf8))
        return d
    }

    public static func encode(_ values: [Float], shape: [Int]) -> Data {
        precondition(values.count == shape.reduce(1, *), "values do not fill the shape")
        var d = header(.float32, shape: shape)
        values.withUnsafeBufferPointer { d.append(contentsOf: UnsafeRawBufferPointer($0)) }
        return d
    }

    public static func encode(_ values: [Int64], shape: [Int]) -> Data {
        precondition(values.count == shape.reduce(1, *), "values do not fill the shape")
        var d = header(.int64, shape: shape)
        values.withUnsafeBufferPointer { d.append(contentsOf: UnsafeRawBufferPointer($0)) }
        return d
    }

    public static func encode(_ values: [UInt8], shape: [Int]) -> Data {
        precondition(values.count == shape.reduce(1, *), "values do not fill the shape")
        var d = header(.uint8, shape: shape)
        d.append(contentsOf: values)
        return d
    }
}
