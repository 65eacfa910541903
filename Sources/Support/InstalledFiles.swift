import FileSystem
import Foundation

/// Where the files handpose ships beside its binary are found (the models, `bench`'s Python helpers, the
/// review page), one look-up for all three so an installed `handpose` runs from any folder. Each kind
/// lists its places, first match wins:
/// - models: `--models`, `$HANDPOSE_MODELS`, `<binary>/../share/handpose/models` (what `make install`
///   writes), `$XDG_DATA_HOME/handpose/models` (default `~/.local/share`), then `./Models` (a checkout);
/// - scripts: `<binary>/../share/handpose/scripts`, then `./scripts` (a checkout);
/// - the review page: SwiftPM's resource bundle beside the binary (a build folder), then
///   `<binary>/../share/handpose/review`.
public struct InstalledFiles: Sendable {
    /// What is looked for.
    public enum Kind: String, Sendable {
        case models, scripts, page

        /// What a user is told to do when no place holds the files.
        var advice: String {
            switch self {
            case .models:
                "Put them in one of these (in a checkout, `make setup` fills ./Models; `make install` copies them to "
                    + "PREFIX/share/handpose/models), or point --models or $HANDPOSE_MODELS at the folder holding them."
            case .scripts:
                "Run from a handpose checkout, or install handpose with `make install` (it copies scripts/ to "
                    + "PREFIX/share/handpose/scripts)."
            case .page:
                "Run the handpose that `swift build` or `make install` made: the page ships beside it "
                    + "(handpose_Review.resources/Page, or PREFIX/share/handpose/review)."
            }
        }
    }

    public let kind: Kind
    /// The places to look, first match wins, each with why it is looked in.
    public let candidates: [(folder: URL, source: String)]

    /// `explicit` is a flag naming the folder (`--models`): when given, the only place looked.
    /// `environment`, `executable` and `workingDirectory` are the process's (injectable for tests).
    public init(_ kind: Kind, explicit: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment,
                executable: URL? = Executable.url,
                workingDirectory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)) {
        self.kind = kind
        let bin = executable?.deletingLastPathComponent()
        func beside(_ path: String) -> URL? { bin?.appendingPathComponent(path).standardizedFileURL }
        func relative(_ path: String) -> URL { URL(fileURLWithPath: path, relativeTo: workingDirectory).standardizedFileURL }
        var list: [(URL?, String)] = []
        switch kind {
        case .models:
            if let explicit {
                candidates = [(relative(explicit), "--models")]
                return
            }
            if let env = environment["HANDPOSE_MODELS"], !env.isEmpty { list.append((relative(env), "$HANDPOSE_MODELS")) }
            list.append((beside("../share/handpose/models"), "beside the binary"))
            let home = environment["HOME"].map { URL(fileURLWithPath: $0) } ?? FileManager.default.homeDirectoryForCurrentUser
            let data = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
                ?? home.appendingPathComponent(".local/share")
            list.append((data.appendingPathComponent("handpose/models").standardizedFileURL, "$XDG_DATA_HOME"))
            list.append((workingDirectory.appendingPathComponent("Models").standardizedFileURL, "./Models"))
        case .scripts:
            list.append((beside("../share/handpose/scripts"), "beside the binary, as make install puts them"))
            list.append((workingDirectory.appendingPathComponent("scripts").standardizedFileURL, "./scripts, in a checkout"))
        case .page:
            list.append((beside("handpose_Review.resources/Page"), "beside the binary, as swift build puts it"))
            list.append((beside("../share/handpose/review"), "beside the binary, as make install puts it"))
        }
        candidates = list.compactMap { url, source in url.map { ($0, source) } }
    }

    /// The first folder holding every file in `names`; otherwise an error listing every place looked.
    public func folder(holding names: [String]) throws -> URL {
        // A script must be readable to run; a model or page file need only be there (one that cannot be read is
        // reported, naming it, when it is opened, rather than passed over for another folder's).
        func present(_ path: String) -> Bool {
            kind == .scripts ? FileManager.default.isReadableFile(atPath: path) : FileManager.default.fileExists(atPath: path)
        }
        for c in candidates where names.allSatisfy({ present(c.folder.appendingPathComponent($0).path) }) {
            return c.folder
        }
        throw NotFound(kind: kind, names: names, looked: candidates.map { "\($0.folder.path) (\($0.source))" })
    }

    /// The file `name` in the first folder holding it.
    public func url(for name: String) throws -> URL {
        try folder(holding: [name]).appendingPathComponent(name)
    }

    /// No place holds the files: what was looked for, every place looked, and how to put them there.
    public struct NotFound: Error, CustomStringConvertible, Equatable {
        public var kind: Kind
        public var names: [String]
        public var looked: [String]
        public var description: String {
            let what = switch kind {
            case .models: names.joined(separator: " and ")
            case .scripts: "the helper script \(names.joined(separator: ", "))"
            case .page: "the review page (\(names.joined(separator: ", ")))"
            }
            return """
                cannot find \(what); looked in:
                  \(looked.joined(separator: "\n  "))
                \(kind.advice)
                """
        }
    }
}
