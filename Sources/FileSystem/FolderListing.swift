import Foundation

/// A folder's entries as the file system holds them. FileManager decodes each name as UTF-8 and puts
/// U+FFFD in place of bytes that are not, so a file named `b\xff.mp4` comes back as a path that does not
/// exist and was skipped as "a link to nothing", or not seen at all (its enumerator). Here names are read
/// with `readdir`, as bytes: a name that is UTF-8 is listed, one that is not is reported (shown with its
/// bytes escaped) for the caller to name as an input it cannot take, never turned into another name.
public enum FolderListing {
    /// One entry whose name is not UTF-8: the folder's path joined to the name with its bytes escaped
    /// (`\xFF`), whether the name is hidden (a leading period, skipped as every hidden name is), and whether
    /// it is a folder (links followed, asked of the file system when `readdir` does not say).
    public struct Undecodable: Equatable, Sendable {
        public var shown: String
        public var isHidden: Bool
        public var isFolder: Bool
        public init(shown: String, isHidden: Bool, isFolder: Bool) { self.shown = shown; self.isHidden = isHidden; self.isFolder = isFolder }

        /// Whether a walk looking for files that `wanted` (judged by the escaped name) takes has lost
        /// something here: a folder it would search (`searched`), or a file it would take.
        public func lost(searchingFolders searched: Bool, wanted: (String) -> Bool) -> Bool {
            !isHidden && (isFolder ? searched : wanted(shown))
        }
    }

    /// The names of a folder's entries (not `.` and `..`, hidden ones included), sorted, and those not UTF-8.
    public struct Listing: Equatable, Sendable {
        public var names: [String]
        public var undecodable: [Undecodable]
    }

    /// Why a folder cannot be listed.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public var path: String
        public var reason: String
        public var description: String { "\(path): cannot be listed (\(reason))" }
    }

    /// Lists `path` (after links). Only a folder is opened as one (`opendir` asks for a directory, so a
    /// FIFO is refused, never waited on).
    public static func read(_ path: String) throws -> Listing {
        guard let dir = opendir(path) else { throw Failure(path: path, reason: String(cString: strerror(errno))) }
        defer { closedir(dir) }
        var names: [String] = [], undecodable: [Undecodable] = []
        while true {
            errno = 0
            guard let entry = readdir(dir) else {
                // readdir returns nil at the end and on an error, which only errno tells apart: a folder
                // whose listing fails midway is an error, never a shorter listing.
                if errno != 0 { throw Failure(path: path, reason: String(cString: strerror(errno))) }
                break
            }
            // The name's bytes up to its terminating zero, never past the entry's own record; and for a name
            // that is not UTF-8, whether it is a folder: asked of the file system by those bytes, relative to
            // the folder open here, links followed, when `readdir` does not say.
            let type = entry.pointee.d_type
            let (bytes, name, isFolder) = withUnsafePointer(to: &entry.pointee.d_name) { tuple in
                tuple.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: tuple.pointee)) { raw -> ([UInt8], String?, Bool) in
                    let bytes = Array(UnsafeRawBufferPointer(start: raw, count: strlen(raw)))
                    if let name = String(validating: bytes, as: UTF8.self) { return (bytes, name, false) }
                    guard type == UInt8(DT_UNKNOWN) || type == UInt8(DT_LNK) else { return (bytes, nil, type == UInt8(DT_DIR)) }
                    var st = stat()
                    return (bytes, nil, fstatat(dirfd(dir), raw, &st, 0) == 0 && st.st_mode & S_IFMT == S_IFDIR)
                }
            }
            if bytes == [0x2E] || bytes == [0x2E, 0x2E] { continue }
            if let name {
                names.append(name)
            } else {
                let shown = (path.hasSuffix("/") ? path : path + "/") + escaped(bytes)
                undecodable.append(Undecodable(shown: shown, isHidden: bytes.first == 0x2E, isFolder: isFolder))
            }
        }
        return Listing(names: names.sorted(), undecodable: undecodable.sorted { $0.shown < $1.shown })
    }

    /// A name's bytes as text: printable ASCII as it is, every other byte as `\xHH`.
    static func escaped(_ bytes: [UInt8]) -> String {
        bytes.map { (0x20..<0x7F).contains($0) && $0 != 0x5C ? String(UnicodeScalar($0)) : String(format: "\\x%02X", $0) }.joined()
    }

    /// Every regular file (or link to one) under `root`, as paths relative to it, sorted, walking
    /// sub-folders (not through links to folders, so no loop); and what could not be walked: folders that
    /// cannot be searched, and names that are not UTF-8 of folders or of files `wanted` would take (judged by
    /// the name with its bytes escaped), each a message naming the path.
    public static func files(under root: URL, wanted: (String) -> Bool) -> (files: [String], problems: [String]) {
        var files: [String] = [], problems: [String] = []
        var pending: [(path: String, relative: String)] = [(root.path, "")]
        while let (path, relative) = pending.popLast() {
            let listing: Listing
            do { listing = try read(path) } catch let failure as Failure {
                problems.append("\(failure.path): cannot be searched (\(failure.reason))")
                continue
            } catch { problems.append("\(error)"); continue }
            problems += listing.undecodable.filter { $0.lost(searchingFolders: true, wanted: wanted) }
                .map { "\($0.shown): its name is not valid UTF-8, so it cannot be read here; rename it" }
            for name in listing.names {
                let full = path + "/" + name, rel = relative.isEmpty ? name : relative + "/" + name
                var own = stat()
                guard lstat(full, &own) == 0 else { continue }
                if own.st_mode & S_IFMT == S_IFDIR {
                    pending.append((full, rel))
                } else if own.st_mode & S_IFMT == S_IFREG || RegularFile.problem(full) == nil {
                    files.append(rel)
                }
            }
        }
        return (files.sorted(), problems)
    }
}
