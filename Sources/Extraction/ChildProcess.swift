import Foundation
#if canImport(Glibc)
import Glibc
#endif

// glibc 2.34's posix_spawn_file_actions_addclosefrom_np (close_range in the child: no /proc needed),
// which Swift's Glibc module does not export.
@_silgen_name("posix_spawn_file_actions_addclosefrom_np")
private func addCloseFrom(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ from: Int32) -> Int32

/// A child process started with `posix_spawn`, its standard input and output as pipes and its standard
/// error into a file. Foundation's `Process` finds the descriptors to close in the child by listing
/// /proc/self/fd and fails (EBADF) where /proc is absent (a bare chroot, some HPC sandboxes); here the
/// child closes every descriptor above 2 with close_range, which needs no /proc.
final class ChildProcess {
    let pid: pid_t
    /// The parent's ends: write to the child's standard input, read its standard output.
    let input: Int32
    let output: Int32
    private let lock = NSLock()
    private var waitStatus: Int32?

    struct SpawnError: Error, CustomStringConvertible {
        var path: String
        var code: Int32
        var description: String { "cannot start \(path) (\(String(cString: strerror(code))))" }
    }

    init(executable: String, arguments: [String], environment: [String: String], standardError: Int32) throws {
        var toChild: [Int32] = [0, 0], fromChild: [Int32] = [0, 0]
        guard makePipe(&toChild) == 0 else { throw SpawnError(path: executable, code: errno) }
        guard makePipe(&fromChild) == 0 else {
            let e = errno
            close(toChild[0]); close(toChild[1])
            throw SpawnError(path: executable, code: e)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // dup2 onto 0, 1 and 2 clears close-on-exec on the copies; everything above 2 is closed.
        posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
        posix_spawn_file_actions_adddup2(&actions, standardError, 2)
        _ = addCloseFrom(&actions, 3)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for p in argv { free(p) }; for p in envp { free(p) } }
        var child: pid_t = 0
        let result = posix_spawn(&child, executable, &actions, nil, argv, envp)
        close(toChild[0])
        close(fromChild[1])
        guard result == 0 else {
            close(toChild[1]); close(fromChild[0])
            throw SpawnError(path: executable, code: result)
        }
        pid = child
        input = toChild[1]
        output = fromChild[0]
    }

    deinit {
        if inputOpen { close(input) }
        close(output)
    }

    /// Closes the child's standard input (it sees the end of its jobs), once: a second close, from `deinit`,
    /// would close whatever file took the number since (another worker's pipe, an output).
    func closeInput() {
        guard inputOpen else { return }
        inputOpen = false
        close(input)
    }
    private var inputOpen = true

    /// Writes all of `data` to the child's standard input; false when the child has gone (EPIPE).
    func write(_ data: Data) -> Bool {
        data.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                let n = Glibc.write(input, raw.baseAddress! + done, raw.count - done)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return false }
                done += n
            }
            return true
        }
    }

    /// False once the child has exited (it is reaped then, and its status kept).
    var isRunning: Bool {
        lock.lock(); defer { lock.unlock() }
        if waitStatus != nil { return false }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid { waitStatus = status; return false }
        return true
    }

    /// Waits for the child to end; returns its raw wait status.
    @discardableResult
    func wait() -> Int32 {
        lock.lock(); defer { lock.unlock() }
        if let waitStatus { return waitStatus }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        waitStatus = status
        return status
    }

    /// The signal that ended the child, if one did (after `wait`).
    var terminationSignal: Int32? {
        let s = wait()
        return (s & 0x7f) != 0 && (s & 0x7f) != 0x7f ? s & 0x7f : nil
    }

    /// The child's exit status, if it exited (after `wait`).
    var exitStatus: Int32? {
        let s = wait()
        return (s & 0x7f) == 0 ? (s >> 8) & 0xff : nil
    }
}

// pipe2 (<unistd.h> with _GNU_SOURCE), which Swift's Glibc module does not export.
@_silgen_name("pipe2")
private func pipe2(_ fds: UnsafeMutablePointer<Int32>, _ flags: Int32) -> Int32

/// A pipe whose both ends close on exec (only the copies dup2 makes in a child stay open there).
func makePipe(_ fds: inout [Int32]) -> Int32 {
    fds.withUnsafeMutableBufferPointer { pipe2($0.baseAddress!, O_CLOEXEC) }
}
