import Foundation
import Synchronization

/// Samples the memory of a process and its descendants from /proc on a thread of its own: the highest
/// sum of their proportional set sizes, and the highest resident peak of any one of them.
public final class MemorySampler: Sendable {
    private struct State {
        var running = true
        var total = 0
        var largest = 0
    }

    private let root: pid_t
    private let interval: Double
    private let state = Mutex(State())
    private let done = DispatchSemaphore(value: 0)

    /// Samples `root`'s tree every `interval` seconds once started.
    public init(root: pid_t, interval: Double) {
        self.root = root
        self.interval = interval
    }

    /// The highest sum over the tree, in bytes, of the samples so far.
    public var peakTotal: Int { state.withLock { $0.total } }
    /// The highest resident peak (VmHWM) of one process of the tree, in bytes, of the samples so far.
    public var peakProcess: Int { state.withLock { $0.largest } }

    /// Starts sampling on a thread of its own.
    public func start() {
        let thread = Thread { [self] in
            while state.withLock({ $0.running }) {
                sample()
                Thread.sleep(forTimeInterval: interval)
            }
            done.signal()
        }
        thread.start()
    }

    /// Stops sampling and waits for the sampling thread to end.
    public func stop() {
        state.withLock { $0.running = false }
        done.wait()
    }

    private func sample() {
        var sum = 0, biggest = 0
        for pid in Self.tree(of: root) {
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { continue }
            biggest = max(biggest, Self.kilobytes("VmHWM:", in: status))
            if let rollup = try? String(contentsOfFile: "/proc/\(pid)/smaps_rollup", encoding: .utf8) {
                sum += Self.kilobytes("Pss:", in: rollup)
            } else {
                sum += Self.kilobytes("VmRSS:", in: status)
            }
        }
        state.withLock {
            $0.total = max($0.total, sum * 1024)
            $0.largest = max($0.largest, biggest * 1024)
        }
    }

    /// The value of a `Name:   123 kB` line (of /proc/PID/status or smaps_rollup); 0 without one.
    public static func kilobytes(_ field: String, in text: String) -> Int {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(field) }) else { return 0 }
        return Int(line.dropFirst(field.count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "") ?? 0
    }

    /// `root` and every live descendant, from the kernel's list of each thread's children
    /// (/proc/PID/task/TID/children), so a sample reads only the tree's own files.
    public static func tree(of root: pid_t) -> [pid_t] {
        var out = [root], i = 0
        while i < out.count {
            let pid = out[i]
            for task in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? [] {
                let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? ""
                out += text.split(separator: " ").compactMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            }
            i += 1
        }
        return out
    }
}
