import FileSystem
import Foundation

/// The clips and images named on a command line or found in its folders, each with the path that names
/// its outputs (`extract`, `status`, `bench`, the review page's list).
public enum InputFiles {
    /// Tracked in image mode: `MediaKind`'s rule, the one `VideoReader.info.isStillImage` reports.
    public static func isStillImage(_ url: URL) -> Bool { MediaKind.isStillImage(url) }

    /// An input and its path relative to the input given, which names its outputs.
    public struct Item: Sendable {
        public var url: URL
        public var relative: String
        public init(url: URL, relative: String) { self.url = url; self.relative = relative }
    }

    /// What the walk found: inputs, places it passed over and why, and what to tell a user who got nothing.
    public struct Found: Sendable {
        public var items: [Item] = []
        /// Folders that could not be read (`lost`: files in them may be missing from the run), symlink
        /// loops, broken links, a file reached twice.
        public var skipped: [(path: String, reason: String, lost: Bool)] = []
        public var subfoldersNotSearched = 0
        public var otherFiles = 0
    }

    /// Why inputs cannot be taken: each case names the path a user must look at.
    public enum Problem: Error, CustomStringConvertible, Equatable {
        case input(path: String, reason: String)
        /// Inputs that would share an output: `listed` names the pairs (at most ten, then a count).
        case collisions(count: Int, listed: String)

        public var description: String {
            switch self {
            case .input(let p, let r): return "\(p): \(r)"
            case .collisions(let n, let listed):
                return """
                \(n) outputs would be written twice:
                  \(listed)
                Outputs are named by the path relative to each input given; give the folder that holds them all \
                (e.g. the parent folder with -r) so their paths differ, or extract them into separate output folders.
                """
            }
        }
    }

    /// Every clip and image named or inside a named folder, with its path relative to that folder.
    /// Symlinked folders are followed; a folder or file already reached (a loop, or two links to one
    /// place) is visited once and the other path reported. Unreadable folders are reported, not dropped.
    public static func collect(_ inputs: [String], recursive: Bool) throws -> Found {
        var found = Found()
        var seenFolders: [FileID: String] = [:]
        var seenFiles: [FileID: String] = [:]
        for input in inputs {
            guard let id = FileID(input) else {
                if (try? FileManager.default.destinationOfSymbolicLink(atPath: input)) != nil {
                    throw Problem.input(path: input, reason: "a symbolic link to something that does not exist")
                }
                throw Problem.input(path: input, reason: "no such file or folder")
            }
            let url = URL(fileURLWithPath: input).standardizedFileURL
            if !id.isFolder {
                if let first = seenFiles[id] { found.skipped.append((input, "the same file as \(first)", false)); continue }
                seenFiles[id] = input
                found.items.append(Item(url: url, relative: url.lastPathComponent))
                continue
            }
            walk(url, relative: "", id: id, recursive: recursive, seenFolders: &seenFolders, seenFiles: &seenFiles, into: &found)
        }
        try refuseCollisions(found.items)
        return found
    }

    /// Outputs are named by the path relative to the input given, so two inputs can claim one output
    /// (`extract poses/call poses/rock` where both hold 0001.jpg). One would silently overwrite the
    /// other; the run is refused before it starts, naming both.
    /// Names are compared byte for byte, as Linux file systems do, and, with `folding`, as the output's file
    /// system compares them (`nameFolding`): there two names that differ only in normalisation or letter case
    /// are one file.
    public static func refuseCollisions(_ items: [Item], folding: NameFolding = NameFolding()) throws {
        var owner: [PathKey: URL] = [:]
        var clashes: [String] = []
        for item in items {
            let key = PathKey(folding.fold(item.relative))
            if let first = owner[key] {
                clashes.append("\(first.path) and \(item.url.path) would both be written as \(item.relative)")
            } else {
                owner[key] = item.url
            }
        }
        guard clashes.isEmpty else {
            let shown = clashes.prefix(10).joined(separator: "\n  ")
            let more = clashes.count > 10 ? "\n  ... and \(clashes.count - 10) more" : ""
            throw Problem.collisions(count: clashes.count, listed: shown + more)
        }
    }

    /// How a file system compares names beyond their bytes.
    public struct NameFolding: Sendable, Equatable {
        /// `é` and `e` + combining accent name one file (an SMB share from macOS, ZFS with `normalization=formD`).
        public var normalization = false
        /// `a.mp4` and `A.mp4` name one file (vfat, exFAT, an SMB share from macOS or Windows).
        public var letterCase = false
        public init(normalization: Bool = false, letterCase: Bool = false) { self.normalization = normalization; self.letterCase = letterCase }

        func fold(_ name: String) -> String {
            var name = name
            if normalization { name = name.precomposedStringWithCanonicalMapping }
            if letterCase { name = name.lowercased() }
            return name
        }
    }

    /// Refuses `items` that would be one file where their outputs are written: names that differ only in
    /// normalisation or letter case, where the file system holding `folder` folds them (`nameFolding`, probed
    /// in `folder` or, before it is made, in the nearest folder above it that exists), beyond the byte-for-byte
    /// comparison `collect` makes. `extract` checks its output folder, `export` the keypoints folder it reads and
    /// extracts into. A folder that cannot be written is not probed, so nothing is refused there.
    public static func refuseFoldedCollisions(_ items: [Item], writtenIn folder: URL) throws {
        var probed = folder.standardizedFileURL
        var isFolder: ObjCBool = false
        while !(FileManager.default.fileExists(atPath: probed.path, isDirectory: &isFolder) && isFolder.boolValue) && probed.path != "/" {
            probed.deleteLastPathComponent()
        }
        let folding = nameFolding(in: probed)
        if folding != NameFolding() { try refuseCollisions(items, folding: folding) }
    }

    /// How the file system holding `folder` compares names, by probing: two hidden files made and looked up
    /// under the other spelling, then removed. Nothing folded where the folder cannot be written.
    public static func nameFolding(in folder: URL) -> NameFolding {
        // A name of its own (a shard beside, or a probe a killed run left, must not make the probe fail quietly).
        let base = folder.appendingPathComponent(".handpose-names-\(UUID().uuidString)-").path
        func folds(_ made: String, _ looked: String) -> Bool {
            let fd = open(base + made, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard fd >= 0 else { return false }
            close(fd)
            defer { unlink(base + made) }
            return access(base + looked, F_OK) == 0
        }
        return NameFolding(normalization: folds("\u{E9}", "e\u{301}"), letterCase: folds("a", "A"))
    }

    private static func walk(_ folder: URL, relative: String, id: FileID, recursive: Bool,
                             seenFolders: inout [FileID: String], seenFiles: inout [FileID: String], into found: inout Found) {
        if let first = seenFolders[id] {
            found.skipped.append((folder.path, "the same folder as \(first) (a symbolic link loop or a second link)", false))
            return
        }
        seenFolders[id] = folder.path
        let listing: FolderListing.Listing
        do { listing = try FolderListing.read(folder.path) } catch let failure as FolderListing.Failure {
            found.skipped.append((folder.path, "cannot be read (\(failure.reason))", true))
            return
        } catch {
            found.skipped.append((folder.path, "cannot be read (\(describe(error)))", true))
            return
        }
        // A name that is not UTF-8 cannot name its outputs (nor be given to FFmpeg as the path FileManager
        // makes of it): a clip, or a folder the walk would search, so named is an input lost, said so; a
        // folder a walk without -r passes over is counted as such, any other file as one of the other files.
        for odd in listing.undecodable where !odd.isHidden {
            if odd.lost(searchingFolders: recursive, wanted: { MediaKind.isMedia(name: $0) || MediaKind.unreadableReason(name: $0) != nil }) {
                found.skipped.append((odd.shown, "its name is not valid UTF-8, which handpose cannot name outputs by: rename it", true))
            } else if odd.isFolder {
                found.subfoldersNotSearched += 1
            } else {
                found.otherFiles += 1
            }
        }
        let names = listing.names
        // Hidden files are not inputs: macOS's `._clip.mp4` twins on USB disks, our own `.x.partial` files.
        for name in names where !name.hasPrefix(".") {
            let url = folder.appendingPathComponent(name)
            let rel = relative.isEmpty ? name : relative + "/" + name
            guard let child = FileID(url.path) else {
                // A link to nothing: often a disk or share not mounted. Where it could be a clip or (with -r) a
                // folder of them, its inputs are lost, not passed over; another file is only passed over.
                var st = stat()
                let why = stat(url.path, &st) == 0 ? 0 : errno
                let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: url.path)).map { " (to \($0))" } ?? ""
                let reason = why == ELOOP ? "a loop of symbolic links\(target)"
                    : why == ENOENT ? "a symbolic link to something that does not exist\(target)"
                    : "cannot be reached\(target): \(String(cString: strerror(why)))"
                // A folder's name rarely has an extension; a link named `notes.txt` is no lost folder of clips.
                let couldBeFolder = recursive && (name as NSString).pathExtension.isEmpty
                found.skipped.append((url.path, reason, couldBeFolder || MediaKind.isMedia(name: name)))
                continue
            }
            if child.isFolder {
                if recursive {
                    walk(url, relative: rel, id: child, recursive: true, seenFolders: &seenFolders, seenFiles: &seenFiles, into: &found)
                } else {
                    found.subfoldersNotSearched += 1
                }
            } else if MediaKind.isMedia(name: name) {
                if let first = seenFiles[child] { found.skipped.append((url.path, "the same file as \(first)", false)); continue }
                seenFiles[child] = url.path
                found.items.append(Item(url: url, relative: rel))
            } else if let reason = MediaKind.unreadableReason(name: name) {
                // Said by name, as `validate` says it of a labelled folder: a user's photos must not
                // vanish into "other files".
                found.skipped.append((url.path, reason, false))
            } else {
                found.otherFiles += 1
            }
        }
    }
}

/// A file's identity on disk (device and inode, symbolic links followed): two paths, one file.
struct FileID: Hashable {
    let device: UInt64
    let inode: UInt64
    let isFolder: Bool

    init?(_ path: String) {
        var s = stat()
        guard stat(path, &s) == 0 else { return nil }
        device = UInt64(s.st_dev)
        inode = UInt64(s.st_ino)
        isFolder = (s.st_mode & S_IFMT) == S_IFDIR
    }
}
