import Foundation
import Keypoints

/// One output of an input's extraction, written as frames complete: `complete` writes what only the
/// end knows and closes the temporary file, `commit` renames it into place, `abandon` removes it.
public protocol KeypointOutput: AnyObject {
    var url: URL { get }
    /// The temporary file it is written to until `commit`.
    var temporary: URL { get }
    func append(_ frame: KeypointFile.Frame) throws
    func complete(_ file: KeypointFile) throws
    func commit() throws
    func abandon()
}

extension KeypointFileWriter: KeypointOutput {}
