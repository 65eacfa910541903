import FileSystem
import Foundation

/// Where the `.tflite` models are looked for, in order, so an installed `handpose` runs from any folder:
/// `--models`, `$HANDPOSE_MODELS`, `<binary>/../share/handpose/models` (what `make install` writes),
/// `$XDG_DATA_HOME/handpose/models` (default `~/.local/share`), then `./Models` (a checkout).
public struct ModelLocator: Sendable {
    /// The places to look, first match wins, each with how it was chosen.
    public var candidates: [(folder: URL, source: String)]

    /// `explicit` is `--models`; `environment` and `executable` are the process's (injectable for tests).
    public init(explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment,
                executable: URL = ModelLocator.currentExecutable(), workingDirectory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)) {
        if let explicit {
            candidates = [(URL(fileURLWithPath: explicit, relativeTo: workingDirectory).standardizedFileURL, "--models")]
            return
        }
        var list: [(URL, String)] = []
        if let env = environment["HANDPOSE_MODELS"], !env.isEmpty {
            list.append((URL(fileURLWithPath: env, relativeTo: workingDirectory).standardizedFileURL, "$HANDPOSE_MODELS"))
        }
        list.append((executable.deletingLastPathComponent().appendingPathComponent("../share/handpose/models").standardizedFileURL,
                     "beside the binary"))
        let home = environment["HOME"].map { URL(fileURLWithPath: $0) } ?? FileManager.default.homeDirectoryForCurrentUser
        let data = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? home.appendingPathComponent(".local/share")
        list.append((data.appendingPathComponent("handpose/models").standardizedFileURL, "$XDG_DATA_HOME"))
        list.append((workingDirectory.appendingPathComponent("Models").standardizedFileURL, "./Models"))
        candidates = list
    }

    /// The first candidate holding both models of `complexity`; otherwise an error listing every place.
    public func folder(for complexity: HandTrackerOptions.Complexity) throws -> URL {
        let names = HandModels.fileNames(complexity)
        for c in candidates where names.allSatisfy({ FileManager.default.fileExists(atPath: c.folder.appendingPathComponent($0).path) }) {
            return c.folder
        }
        throw ModelLookupError(names: names, looked: candidates.map { "\($0.folder.path) (\($0.source))" })
    }

    /// This process's executable file.
    public static func currentExecutable() -> URL {
        Executable.url ?? URL(fileURLWithPath: CommandLine.arguments[0])
    }
}

/// No folder holds the models: every place looked, and how to put them there.
public struct ModelLookupError: Error, CustomStringConvertible {
    public var names: [String]
    public var looked: [String]
    public var description: String {
        """
        cannot find \(names.joined(separator: " and ")); looked in:
          \(looked.joined(separator: "\n  "))
        Put them in one of these (in a checkout, `make setup` fills ./Models; `make install` copies them to \
        PREFIX/share/handpose/models), or point --models or $HANDPOSE_MODELS at the folder holding them.
        """
    }
}
