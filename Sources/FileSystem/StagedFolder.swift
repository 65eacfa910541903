import Foundation

/// A folder built beside its destination under a temporary name and moved into place whole, so an
/// interrupted or failed run leaves no mixture of old and new files. An existing destination is replaced
/// only when asked, and only if `replaceable` says it holds what an earlier run wrote (an export's
/// `dataset.json`, a folder of `.eaf` files): `-o ~ --overwrite` can never wipe a home folder.
public struct StagedFolder {
    public let destination: URL
    /// Where the files are written until `commit()`.
    public let staging: URL

    /// Why a folder cannot be staged or put in place, naming it.
    public struct Refusal: Error, CustomStringConvertible, Equatable {
        public var path: String
        public var reason: String
        public var description: String { "\(path): cannot be written (\(reason))." }
    }

    /// Checks `destination` before any work: a non-empty folder is refused unless `replace`, and then only
    /// if `replaceable` accepts it (`notReplaceable` says why not, `whatIsReplaced` what `--overwrite` replaces);
    /// a file in its place, or an unwritable parent, is refused.
    public init(_ destination: URL, replace: Bool, whatIsReplaced: String, notReplaceable: String, replaceable: (URL) -> Bool) throws {
        self.destination = destination.standardizedFileURL
        let fm = FileManager.default
        let path = self.destination.path
        var isDir: ObjCBool = false
        if fm.fileExists(atPath: path, isDirectory: &isDir) {
            guard isDir.boolValue else { throw Refusal(path: path, reason: "a file is in the way; the output must be a folder") }
            let contents = (try? fm.contentsOfDirectory(atPath: path)) ?? []
            if !contents.isEmpty {
                guard replace else {
                    throw Refusal(path: path, reason: "the folder is not empty; choose a new folder, or add --overwrite to replace \(whatIsReplaced)")
                }
                guard replaceable(self.destination) else {
                    throw Refusal(path: path, reason: "the folder is not empty and \(notReplaceable); --overwrite replaces only those")
                }
            }
        }
        let parent = self.destination.deletingLastPathComponent()
        do { try fm.createDirectory(at: parent, withIntermediateDirectories: true) } catch {
            throw Refusal(path: parent.path, reason: describe(error))
        }
        guard access(parent.path, W_OK | X_OK) == 0 else {
            throw Refusal(path: parent.path, reason: String(cString: strerror(errno)))
        }
        staging = parent.appendingPathComponent(AtomicFile.fitted(".", self.destination.lastPathComponent, ".\(getpid()).partial"))
        try? fm.removeItem(at: staging)
        do { try fm.createDirectory(at: staging, withIntermediateDirectories: false) } catch {
            throw Refusal(path: staging.path, reason: describe(error))
        }
    }

    /// Moves the staged folder into place (the earlier one, if any, is removed after the move; if the move
    /// fails, the earlier one is put back).
    public func commit() throws {
        let fm = FileManager.default
        let old = destination.deletingLastPathComponent().appendingPathComponent(".\(destination.lastPathComponent).\(getpid()).old")
        var moved = false
        if fm.fileExists(atPath: destination.path) {
            guard rename(destination.path, old.path) == 0 else {
                throw Refusal(path: destination.path, reason: String(cString: strerror(errno)))
            }
            moved = true
        }
        guard rename(staging.path, destination.path) == 0 else {
            let reason = String(cString: strerror(errno))
            if moved { _ = rename(old.path, destination.path) }
            throw Refusal(path: destination.path, reason: reason)
        }
        if moved { try? fm.removeItem(at: old) }
    }

    /// Removes the staged files (after a failure).
    public func discard() { try? FileManager.default.removeItem(at: staging) }
}
