import Foundation

/// How every `--json` is printed: a typed `Encodable` value, keys sorted, indented.
enum JSONText {
    static func pretty<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
