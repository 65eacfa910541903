/// A path as a key, equal to another only byte for byte.
///
/// Swift's `String` compares and hashes by canonical equivalence, so `café.mp4` spelt with `é` (NFC, as Linux
/// and Windows tools write it) and with `e` and a combining accent (NFD, as macOS writes it) are one `String`
/// key, while on Linux they are two files. Every table that matches inputs, outputs or annotation rows by path
/// keys it by `PathKey`, so two such files are never mixed.
public struct PathKey: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let path: String

    public init(_ path: String) { self.path = path }

    public var description: String { path }

    public static func == (a: PathKey, b: PathKey) -> Bool { a.path.utf8.elementsEqual(b.path.utf8) }

    public func hash(into hasher: inout Hasher) {
        var path = path
        path.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        hasher.combine(path.utf8.count)
    }

    /// Byte order (as `sort` and `ls` in the C locale).
    public static func < (a: PathKey, b: PathKey) -> Bool { a.path.utf8.lexicographicallyPrecedes(b.path.utf8) }
}
