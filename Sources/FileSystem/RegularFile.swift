import Foundation

/// Inputs are regular files: a FIFO, a socket or a device named `clip.mp4` (or a link to one) is named
/// and refused, never opened or waited on. `check` asks the file system without opening the path;
/// `open` opens without blocking (O_NONBLOCK, which a FIFO with no writer would otherwise wait on) and
/// checks what it opened, so a file swapped for a FIFO between the two is refused too.
public enum RegularFile {
    /// Why a path is not an input that can be read.
    public struct Refusal: Error, CustomStringConvertible, Equatable, Sendable {
        public var path: String
        public var reason: String
        public init(path: String, reason: String) { self.path = path; self.reason = reason }
        public var description: String { "\(path): \(reason)" }
    }

    /// What kind of file a `stat` mode is, in words.
    public static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFREG: return "a regular file"
        case S_IFDIR: return "a folder"
        case S_IFIFO: return "a FIFO (named pipe)"
        case S_IFSOCK: return "a socket"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        default: return "not a regular file"
        }
    }

    /// Nil when `path` (after links) is a regular file; else why it is not one. Never opens it.
    public static func problem(_ path: String) -> String? {
        var st = stat()
        guard stat(path, &st) == 0 else {
            let e = errno
            return e == ENOENT ? "no such file" : String(cString: strerror(e))
        }
        guard st.st_mode & S_IFMT == S_IFREG else {
            var link = stat()
            let viaLink = lstat(path, &link) == 0 && link.st_mode & S_IFMT == S_IFLNK
            return "is \(kind(st.st_mode))\(viaLink ? " (behind a symbolic link)" : ""), not a regular file: skipped, never opened"
        }
        return nil
    }

    /// Size and modification time of the regular file `path` names, after links (a link's own size and time
    /// say nothing of the file behind it); nil when it is missing or not a regular file.
    public static func facts(_ path: String) -> (bytes: UInt64, modified: Date)? {
        stamp(path).map { ($0.bytes, $0.modified) }
    }

    /// Which file a path names and as it was: its device and inode, size and modification time. Two stamps differ
    /// when the file was replaced (another inode), rewritten or grown.
    public struct Stamp: Equatable, Sendable {
        public var device: UInt64, inode: UInt64, bytes: UInt64
        /// The modification time as `stat` gives it: whole seconds and the nanoseconds past them.
        public var modifiedSeconds: Int64, modifiedNanoseconds: Int64
        public var modified: Date { Date(timeIntervalSince1970: Double(modifiedSeconds) + Double(modifiedNanoseconds) / 1e9) }

        /// Whether `other` is the same file (device and inode), whatever its contents now.
        public func sameFile(as other: Stamp) -> Bool { device == other.device && inode == other.inode }
    }

    /// The stamp of the regular file at `path` (links followed; `/proc/self/fd/N` gives the open file's), or nil.
    public static func stamp(_ path: String) -> Stamp? {
        var st = stat()
        guard stat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return nil }
        return Stamp(device: UInt64(st.st_dev), inode: UInt64(st.st_ino), bytes: UInt64(st.st_size),
                     modifiedSeconds: Int64(st.st_mtim.tv_sec), modifiedNanoseconds: Int64(st.st_mtim.tv_nsec))
    }

    /// Nil when `path` (after links) is a folder; else what it is instead ("no such folder", "is a
    /// regular file, not a folder"), for the message of a command given a folder.
    public static func folderProblem(_ path: String) -> String? {
        var st = stat()
        guard stat(path, &st) == 0 else { return errno == ENOENT ? "no such folder" : String(cString: strerror(errno)) }
        return st.st_mode & S_IFMT == S_IFDIR ? nil : "is \(kind(st.st_mode)), not a folder"
    }

    /// Throws `Refusal` unless `path` is a regular file.
    public static func check(_ path: String) throws {
        if let reason = problem(path) { throw Refusal(path: path, reason: reason) }
    }

    /// Whether a `problem` reason says the path exists but is no regular file (rather than missing or unreadable).
    public static func isSpecial(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && st.st_mode & S_IFMT != S_IFREG
    }

    /// Opens `path` for reading without ever blocking on it: a descriptor of a regular file, in blocking
    /// mode again, or `Refusal`. The caller closes it.
    public static func open(_ path: String) throws -> Int32 {
        let fd = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw Refusal(path: path, reason: "cannot be opened (\(String(cString: strerror(errno))))") }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw Refusal(path: path, reason: "is \(kind(st.st_mode)), not a regular file: refused")
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return fd
    }

    /// A handle reading the regular file at `path` (opened as `open` does: a file swapped for a FIFO after a
    /// check is still refused, and nothing waits), or nil when it is not one or cannot be opened.
    public static func handle(_ path: String) -> FileHandle? {
        guard let fd = try? open(path) else { return nil }
        return FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    }

    /// Runs `body` with a name that opens the regular file at `path` as it was when checked: for a library
    /// that opens files by name (FFmpeg, ZIPFoundation), which a check by name then an open by name would
    /// leave to a file swapped for a FIFO in between, and the open waiting for ever. The file is opened here
    /// as `open` does, and `body` gets `/proc/self/fd/N`, which reopens that very file whatever is at `path`
    /// now; where there is no /proc (a bare chroot), `path` itself, checked just before. Closed after `body`.
    public static func pinned<R>(_ path: String, _ body: (String) throws -> R) throws -> R {
        let fd = try open(path)
        defer { close(fd) }
        var st = stat()
        let hasProc = stat("/proc/self/fd", &st) == 0 && st.st_mode & S_IFMT == S_IFDIR
        return try body(hasProc ? "/proc/self/fd/\(fd)" : path)
    }

    /// The whole of a regular file, read without blocking on a special file.
    public static func read(_ path: String) throws -> Data {
        let fd = try open(path)
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        do { return try handle.readToEnd() ?? Data() } catch {
            throw Refusal(path: path, reason: "cannot be read (\(error.localizedDescription))")
        }
    }
}
