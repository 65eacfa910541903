import FileSystem
import Foundation
import Keypoints

/// A folder built beside its destination under a temporary name and moved into place whole, so an
/// interrupted or failed export leaves no mixture of old and new files. An existing destination is
/// replaced only when asked, and only if it holds a handpose export (`dataset.json`): `-o ~` can never
/// wipe a home folder.
public struct StagedFolder {
    public let destination: URL
    /// Where the files are written until `commit()`.
    public let staging: URL

    /// Checks `destination` before any work: a non-empty folder is refused unless `replace`, and then
    /// only if it holds `marker`; a file in its place, or an unwritable parent, is refused.
    public init(_ destination: URL, replace: Bool, marker: String = "dataset.json") throws {
        self.destination = destination.standardizedFileURL
        let fm = FileManager.default
        let path = self.destination.path
        var isDir: ObjCBool = false
        if fm.fileExists(atPath: path, isDirectory: &isDir) {
            guard isDir.boolValue else { throw DatasetError.unwritable(path: path, reason: "a file is in the way; the output must be a folder") }
            let contents = (try? fm.contentsOfDirectory(atPath: path)) ?? []
            if !contents.isEmpty {
                guard replace else {
                    throw DatasetError.unwritable(path: path, reason: "the folder is not empty; choose a new folder, or add --overwrite to replace an earlier export")
                }
                let manifest = (try? RegularFile.read(self.destination.appendingPathComponent(marker).path))
                    .flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
                guard let tool = manifest?["tool"] as? [String: Any], tool["name"] as? String == "handpose" else {
                    throw DatasetError.unwritable(path: path, reason: "the folder is not empty and holds no \(marker) written by handpose, so it is not an earlier export; --overwrite replaces only those")
                }
            }
        }
        let parent = self.destination.deletingLastPathComponent()
        do { try fm.createDirectory(at: parent, withIntermediateDirectories: true) } catch {
            throw DatasetError.unwritable(path: parent.path, reason: describe(error))
        }
        guard access(parent.path, W_OK | X_OK) == 0 else {
            throw DatasetError.unwritable(path: parent.path, reason: String(cString: strerror(errno)))
        }
        staging = parent.appendingPathComponent(".\(self.destination.lastPathComponent).\(getpid()).partial")
        try? fm.removeItem(at: staging)
        do { try fm.createDirectory(at: staging, withIntermediateDirectories: false) } catch {
            throw DatasetError.unwritable(path: staging.path, reason: describe(error))
        }
    }

    /// Moves the staged folder into place (the earlier one, if any, is removed after the move).
    public func commit() throws {
        let fm = FileManager.default
        let old = destination.deletingLastPathComponent().appendingPathComponent(".\(destination.lastPathComponent).\(getpid()).old")
        var moved = false
        if fm.fileExists(atPath: destination.path) {
            guard rename(destination.path, old.path) == 0 else {
                throw DatasetError.unwritable(path: destination.path, reason: String(cString: strerror(errno)))
            }
            moved = true
        }
        guard rename(staging.path, destination.path) == 0 else {
            let reason = String(cString: strerror(errno))
            if moved { _ = rename(old.path, destination.path) }
            throw DatasetError.unwritable(path: destination.path, reason: reason)
        }
        if moved { try? fm.removeItem(at: old) }
    }

    /// Removes the staged files (after a failure).
    public func discard() { try? FileManager.default.removeItem(at: staging) }
}
