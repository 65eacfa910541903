import Foundation
import Support

/// The Python helpers `bench` runs beside handpose (scripts/, or where `make install` copies them).
enum HelperScript {
    /// The script `name`, or an error naming every place looked: a missing file is not a usage error.
    static func url(_ name: String) throws(BenchmarkError) -> URL {
        do { return try InstalledFiles(.scripts).url(for: name) } catch {
            throw .helperScript(name: name, reason: "\(error)")
        }
    }
}
