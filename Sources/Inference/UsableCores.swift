import Foundation

/// The cores this process may run on: its CPU affinity (what `taskset`, a cpuset and Slurm's cgroups allow),
/// capped by a cgroup v2 CPU quota on its cgroup or any above it (`cpu.max`: Kubernetes' CPU limits), at least 1.
/// Foundation's `activeProcessorCount` counts the machine's online CPUs whatever the process is allowed, so a
/// 2-CPU Slurm task on a 64-core node planned 64 threads. Read afresh each call: affinity is per thread, and
/// the caller's is the one that counts.
public enum UsableCores {
    public static var count: Int {
        let affinity = affinityCount() ?? ProcessInfo.processInfo.activeProcessorCount
        return max(1, min(affinity, quota() ?? .max))
    }

    /// CPUs in the calling thread's affinity mask; nil when it cannot be read.
    static func affinityCount() -> Int? {
        var words = 16  // 1024 CPUs; doubled while the kernel's mask is larger.
        while words <= 1 << 16 {
            var mask = [UInt64](repeating: 0, count: words)
            let result = mask.withUnsafeMutableBytes { raw in getAffinity(0, raw.count, raw.baseAddress!) }
            if result == 0 { return mask.reduce(0) { $0 + $1.nonzeroBitCount } }
            guard errno == EINVAL else { return nil }
            words *= 2
        }
        return nil
    }

    /// The smallest cgroup v2 CPU quota on the way from this process's cgroup to the root, in whole cores
    /// (rounded up); nil when there is none (no cgroup v2, or `max` everywhere).
    static func quota() -> Int? {
        guard let own = try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8),
              let line = own.split(separator: "\n").first(where: { $0.hasPrefix("0::") }) else { return nil }
        var path = String(line.dropFirst(3))
        var smallest: Int?
        while true {
            let file = "/sys/fs/cgroup" + (path == "/" ? "" : path) + "/cpu.max"
            if let text = try? String(contentsOfFile: file, encoding: .utf8), let cores = cores(cpuMax: text) {
                smallest = min(smallest ?? .max, cores)
            }
            guard path != "/", let slash = path.lastIndex(of: "/") else { break }
            path = slash == path.startIndex ? "/" : String(path[..<slash])
        }
        return smallest
    }

    /// `cpu.max`'s "QUOTA PERIOD" in whole cores, rounded up; nil for "max" or anything else.
    static func cores(cpuMax text: String) -> Int? {
        let fields = text.split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard fields.count == 2, let quota = Int(fields[0]), let period = Int(fields[1]), quota > 0, period > 0 else { return nil }
        return (quota + period - 1) / period
    }
}

/// glibc's sched_getaffinity (<sched.h> with _GNU_SOURCE, which Swift's Glibc module does not export): the
/// calling thread's mask (pid 0), `size` bytes of it.
@_silgen_name("sched_getaffinity") func getAffinity(_ pid: Int32, _ size: Int, _ mask: UnsafeMutableRawPointer) -> Int32
/// Its sibling, for the tests: sets the calling thread's mask.
@_silgen_name("sched_setaffinity") func setAffinity(_ pid: Int32, _ size: Int, _ mask: UnsafeRawPointer) -> Int32
