import Foundation
#if os(Linux)
// glibc's getauxval (<sys/auxv.h>, which Swift's Glibc module does not export).
@_silgen_name("getauxval") private func getauxval(_ type: UInt) -> UInt
/// AT_EXECFN from <elf.h>: the file name given to execve.
private let atExecFileName: UInt = 31
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
        if let name = UnsafePointer<CChar>(bitPattern: getauxval(atExecFileName)) {
            let text = String(cString: name)
            if !text.isEmpty {
                return URL(fileURLWithPath: text, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath)).standardizedFileURL
            }
        }
        #endif
        return CommandLine.arguments.first.map { URL(fileURLWithPath: $0) }
    }
}
