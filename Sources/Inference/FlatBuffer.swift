/// A bounds-checked reader of FlatBuffers (the TFLite file format). Every offset and length is
/// checked against the buffer before it is read, so a truncated or hostile file throws instead of
/// reading out of bounds. Written by hand: no FlatBuffers package for Swift is on this machine,
/// and we need only reading.
struct FlatBuffer {
    let bytes: UnsafeRawBufferPointer
    let path: String

    func fail(_ reason: String) -> InferenceError { .malformed(path: path, reason: reason) }

    func check(_ at: Int, _ size: Int) throws {
        guard at >= 0, size >= 0, at <= bytes.count - size else {
            throw fail("offset \(at) (+\(size) bytes) is outside the file's \(bytes.count) bytes")
        }
    }
    func load<T: FixedWidthInteger>(_ at: Int, as: T.Type) throws -> T {
        try check(at, MemoryLayout<T>.size)
        return T(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: T.self))
    }
    /// The root table.
    func root() throws -> FBTable {
        let offset = Int(try load(0, as: UInt32.self))
        return try table(at: offset)
    }
    func table(at pos: Int) throws -> FBTable {
        let soffset = Int(try load(pos, as: Int32.self))
        let vtable = pos - soffset
        let vsize = Int(try load(vtable, as: UInt16.self))
        guard vsize >= 4, vsize % 2 == 0 else { throw fail("table at \(pos) has a bad vtable size \(vsize)") }
        try check(vtable, vsize)
        return FBTable(fb: self, pos: pos, vtable: vtable, vtableSize: vsize)
    }
    /// Follows a 32-bit forward offset stored at `at`.
    func indirect(_ at: Int) throws -> Int {
        let offset = Int(try load(at, as: UInt32.self))
        return at + offset
    }
}

/// One table inside a `FlatBuffer`; fields are addressed by their index in the schema.
struct FBTable {
    let fb: FlatBuffer
    let pos: Int
    let vtable: Int
    let vtableSize: Int

    /// Absolute position of field `i`, or nil when the field is absent (its default applies).
    func field(_ i: Int) throws -> Int? {
        let slot = 4 + 2 * i
        guard slot + 2 <= vtableSize else { return nil }
        let offset = Int(try fb.load(vtable + slot, as: UInt16.self))
        return offset == 0 ? nil : pos + offset
    }
    func scalar<T: FixedWidthInteger>(_ i: Int, _ type: T.Type, default value: T) throws -> T {
        guard let at = try field(i) else { return value }
        return try fb.load(at, as: T.self)
    }
    func bool(_ i: Int) throws -> Bool { try scalar(i, UInt8.self, default: 0) != 0 }
    func table(_ i: Int) throws -> FBTable? {
        guard let at = try field(i) else { return nil }
        return try fb.table(at: try fb.indirect(at))
    }
    /// Start and element count of a vector field whose elements are `elementSize` bytes.
    func vector(_ i: Int, elementSize: Int) throws -> (start: Int, count: Int)? {
        guard let at = try field(i) else { return nil }
        let v = try fb.indirect(at)
        let count = Int(try fb.load(v, as: UInt32.self))
        guard count <= (fb.bytes.count - v - 4) / max(elementSize, 1) else {
            throw fb.fail("vector at \(v) claims \(count) elements, more than the file holds")
        }
        try fb.check(v + 4, count * elementSize)
        return (v + 4, count)
    }
    func string(_ i: Int) throws -> String? {
        guard let (start, count) = try vector(i, elementSize: 1) else { return nil }
        return String(decoding: UnsafeRawBufferPointer(rebasing: fb.bytes[start..<(start + count)]), as: UTF8.self)
    }
    func int32s(_ i: Int) throws -> [Int32] {
        guard let (start, count) = try vector(i, elementSize: 4) else { return [] }
        return try (0..<count).map { try fb.load(start + 4 * $0, as: Int32.self) }
    }
    func tables(_ i: Int) throws -> [FBTable] {
        guard let (start, count) = try vector(i, elementSize: 4) else { return [] }
        return try (0..<count).map { try fb.table(at: try fb.indirect(start + 4 * $0)) }
    }
}
