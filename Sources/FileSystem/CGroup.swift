import Foundation

/// The control groups this process is in, through which Slurm, Kubernetes, Docker and systemd limit a job's
/// cores and memory: the smallest limit on the way from the process's own group to the root, in cgroup v2
/// or, where only v1 is mounted, in one v1 controller's hierarchy. The machine's figures (Foundation's
/// `physicalMemory`, `activeProcessorCount`) ignore them: a 16 GiB Slurm job on a 512 GiB node sees 512.
public enum CGroup {
    /// The smallest value `v2` reads in the folders of this process's v2 group and each above it; else (no
    /// v2 group, or no limit in it) the smallest `v1` reads along its group in the v1 hierarchy whose
    /// controllers include `controller`, mounted under each of `v1Roots`. Nil when no folder gives a value.
    public static func smallest(v2: (String) -> Int?, controller: String, v1Roots: [String], v1: (String) -> Int?) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8) else { return nil }
        let lines = text.split(separator: "\n")
        // v2: "0::/path".
        if let line = lines.first(where: { $0.hasPrefix("0::") }),
           let found = smallest(along: String(line.dropFirst(3)), under: ["/sys/fs/cgroup"], read: v2) {
            return found
        }
        // v1: "N:cpu,cpuacct:/path".
        guard let line = lines.first(where: { $0.split(separator: ":", maxSplits: 2).dropFirst().first?.split(separator: ",").contains(Substring(controller)) == true }),
              let path = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).last else { return nil }
        return smallest(along: String(path), under: v1Roots, read: v1)
    }

    /// The smallest of `read` over the folders of `path` and each folder above it, under each of `roots`; a
    /// path that leaves its root (`..`, a process outside its cgroup namespace) is not followed.
    public static func smallest(along path: String, under roots: [String], read: (String) -> Int?) -> Int? {
        guard !path.split(separator: "/").contains("..") else { return nil }
        var found: Int?
        for root in roots {
            var at = path
            while true {
                if let n = read(root + (at == "/" ? "" : at)) { found = min(found ?? .max, n) }
                guard at != "/", let slash = at.lastIndex(of: "/") else { break }
                at = slash == at.startIndex ? "/" : String(at[..<slash])
            }
        }
        return found
    }

    /// The memory this process may use, in bytes: the machine's, or less where a memory limit on its group
    /// or one above it says so (v2 `memory.max`, v1 `memory.limit_in_bytes`).
    public static var memoryLimit: UInt64 {
        let physical = ProcessInfo.processInfo.physicalMemory
        func bytes(_ file: String) -> Int? {
            // "max" (no limit) and anything not a whole number read as none.
            (try? String(contentsOfFile: file, encoding: .utf8)).flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
                .flatMap { $0 > 0 ? $0 : nil }
        }
        let limit = smallest(v2: { bytes($0 + "/memory.max") }, controller: "memory", v1Roots: ["/sys/fs/cgroup/memory"],
                             v1: { bytes($0 + "/memory.limit_in_bytes") })
        return limit.map { min(physical, UInt64($0)) } ?? physical
    }
}
