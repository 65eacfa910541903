import FileSystem
import Foundation

/// The cores this process may run on: its CPU affinity (what `taskset`, a cpuset and Slurm's cgroups allow),
/// capped by a cgroup CPU quota on its cgroup or any above it (v2 `cpu.max`, v1 `cpu.cfs_quota_us`: Kubernetes'
/// CPU limits, Docker's `--cpus`), at least 1. Foundation's `activeProcessorCount` ignores the affinity mask
/// (under `taskset -c 0` it counts every CPU), so a 2-CPU Slurm task on a 64-core node planned 64 threads.
public enum UsableCores {
    /// Read afresh each call: affinity is per thread, and the caller's is the one that counts.
    public static var count: Int {
        let affinity = affinityCount() ?? ProcessInfo.processInfo.activeProcessorCount
        return max(1, min(affinity, quota() ?? .max))
    }

    /// CPUs in the calling thread's affinity mask; nil when it cannot be read.
    static func affinityCount() -> Int? {
        #if os(Linux)
        var words = 16  // 1024 CPUs; doubled while the kernel's mask is larger.
        while words <= 1 << 16 {
            var mask = [UInt64](repeating: 0, count: words)
            let result = mask.withUnsafeMutableBytes { raw in getAffinity(0, raw.count, raw.baseAddress!) }
            if result == 0 { return mask.reduce(0) { $0 + $1.nonzeroBitCount } }
            guard errno == EINVAL else { return nil }
            words *= 2
        }
        #endif
        return nil
    }

    /// The smallest CPU quota on the way from this process's cgroup to the root, in whole cores (rounded up):
    /// cgroup v2's `cpu.max`, else v1's `cpu.cfs_quota_us` over `cpu.cfs_period_us`; nil when there is none.
    static func quota() -> Int? {
        CGroup.smallest(v2: { folder in (try? String(contentsOfFile: folder + "/cpu.max", encoding: .utf8)).flatMap { cores(cpuMax: $0) } },
                        controller: "cpu", v1Roots: ["/sys/fs/cgroup/cpu,cpuacct", "/sys/fs/cgroup/cpu"]) { folder in
            guard let quota = try? String(contentsOfFile: folder + "/cpu.cfs_quota_us", encoding: .utf8),
                  let period = try? String(contentsOfFile: folder + "/cpu.cfs_period_us", encoding: .utf8) else { return nil }
            return cores(cpuMax: quota.trimmingCharacters(in: .whitespacesAndNewlines) + " " + period)
        }
    }

    /// A quota and a period ("QUOTA PERIOD", `cpu.max`'s form) in whole cores, rounded up; nil for "max", -1
    /// (v1's "no quota") or anything else.
    static func cores(cpuMax text: String) -> Int? {
        let fields = text.split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard fields.count == 2, let quota = Int(fields[0]), let period = Int(fields[1]), quota > 0, period > 0 else { return nil }
        return quota / period + (quota % period == 0 ? 0 : 1)
    }
}

#if os(Linux)
/// glibc's sched_getaffinity (<sched.h> with _GNU_SOURCE, which Swift's Glibc module does not export): the
/// calling thread's mask (pid 0), `size` bytes of it.
@_silgen_name("sched_getaffinity") func getAffinity(_ pid: Int32, _ size: Int, _ mask: UnsafeMutableRawPointer) -> Int32
/// Its sibling, for the tests: sets the calling thread's mask.
@_silgen_name("sched_setaffinity") func setAffinity(_ pid: Int32, _ size: Int, _ mask: UnsafeRawPointer) -> Int32
#endif
