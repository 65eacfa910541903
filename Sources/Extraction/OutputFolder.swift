import FileSystem
import Foundation

/// The folder keypoint files are written into.
public enum OutputFolder {
    /// An output folder checked before any work: it is a folder (or can be made one) and can be written.
    public static func prepare(_ path: String) throws {
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDir) {
            guard isDir.boolValue else { throw ExtractionError.output(path: path, reason: "is a file; the output must be a folder (a new or existing one)") }
        } else {
            do { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) } catch {
                throw ExtractionError.output(path: path, reason: "cannot create the output folder (\(describe(error)))")
            }
        }
        guard access(path, W_OK | X_OK) == 0 else {
            throw ExtractionError.output(path: path, reason: "cannot write into the output folder (\(String(cString: strerror(errno))))")
        }
    }
}
