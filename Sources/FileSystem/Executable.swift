import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The file of the running handpose, for starting its own worker processes and finding what was
/// installed beside it (models, helper scripts).
public enum Executable {
    /// `/proc/self/exe` where /proc is mounted; otherwise the path the kernel was given at exec
    /// (`AT_EXECFN`, which needs no /proc: bare chroots and some HPC sandboxes have none), made
    /// absolute from the working folder. Nil only when neither is known.
    public static var url: URL? {
        var path = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &path, path.count - 1)
        if n > 0 { return URL(fileURLWithPath: String(cString: path)) }
        #if os(Linux)
        if let name = UnsafePointer<CChar>(bitPattern: UInt(getauxval(UInt(AT_EXECFN)))) {
            let text = String(cString: name)
            if !text.isEmpty {
                return URL(fileURLWithPath: text, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath)).standardizedFileURL
            }
        }
        #endif
        return CommandLine.arguments.first.map { URL(fileURLWithPath: $0) }
    }
}
