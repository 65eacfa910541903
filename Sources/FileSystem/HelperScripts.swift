import Foundation

/// The Python helpers `bench` runs (the reference implementations it times against), found where
/// `make install` puts them, `<prefix>/share/handpose/scripts` beside `<prefix>/bin/handpose`, then in
/// a checkout's `./scripts`: an installed handpose runs from any folder.
public struct HelperScripts: Sendable {
    /// The folders looked in, first match wins, each with why it is looked in.
    public var candidates: [(folder: URL, source: String)]

    /// `executable` and `workingDirectory` are the process's (injectable for tests).
    public init(executable: URL? = Executable.url,
                workingDirectory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)) {
        var list: [(URL, String)] = []
        if let executable {
            list.append((executable.deletingLastPathComponent().appendingPathComponent("../share/handpose/scripts").standardizedFileURL,
                         "beside the binary, as make install puts them"))
        }
        list.append((workingDirectory.appendingPathComponent("scripts").standardizedFileURL, "./scripts, in a checkout"))
        candidates = list
    }

    /// The script `name` (e.g. `tflite_reference.py`) in the first folder holding it.
    public func url(for name: String) throws -> URL {
        for c in candidates {
            let url = c.folder.appendingPathComponent(name)
            if FileManager.default.isReadableFile(atPath: url.path) { return url }
        }
        throw NotFound(name: name, looked: candidates.map { "\($0.folder.path) (\($0.source))" })
    }

    /// No folder holds the script: every place looked, and how to put it there.
    public struct NotFound: Error, CustomStringConvertible, Equatable {
        public var name: String
        public var looked: [String]
        public var description: String {
            """
            cannot find the helper script \(name); looked in:
              \(looked.joined(separator: "\n  "))
            Run from a handpose checkout, or install handpose with `make install` (it copies scripts/ to \
            PREFIX/share/handpose/scripts).
            """
        }
    }
}
