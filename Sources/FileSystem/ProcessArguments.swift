import CProcessArguments

/// The command line the process was started with. Swift's `CommandLine.arguments` reads
/// /proc/self/cmdline on Linux and is empty without /proc (a bare chroot, some HPC sandboxes): a
/// tool parsing nothing then printed its help and exited 0 having done nothing. The vector the
/// process was given, saved before main (`CProcessArguments`), comes first.
public enum ProcessArguments {
    /// Every argument, the program's name first; empty only when neither source has them.
    public static var all: [String] {
        let argc = Int(handpose_saved_argc())
        if argc > 0, let argv = handpose_saved_argv() {
            return (0..<argc).map { argv[$0].map { String(cString: $0) } ?? "" }
        }
        return CommandLine.arguments
    }
}
