import Extraction
import FileSystem
import Foundation

/// Progress on a terminal (one redrawn line), plain log lines otherwise, and the closing summary,
/// which names every file that failed, crashed, came out incomplete or was passed over, with the reason.
/// Unchecked: its counts and problems are written under `lock` while the pipeline runs; `failures` is read
/// after the pipeline has returned, when no thread writes any more.
final class ExtractProgress: @unchecked Sendable {
    let total: Int
    let quiet: Bool
    let tty = isatty(STDERR_FILENO) != 0
    private let lock = NSLock()
    /// Files whose keypoints are missing or incomplete, and folders that could not be read.
    private(set) var failures = 0
    /// Files whose outputs could not be written (the output's fault: the run exits 3).
    private(set) var unwritableCount = 0
    private var doneCount = 0, skippedCount = 0, incompleteCount = 0, failedCount = 0, frames = 0, hands = 0
    private var problems: [(kind: String, name: String, reason: String)] = []
    private let started = Date()
    private var lastDraw = Date.distantPast

    init(total: Int, quiet: Bool) { self.total = total; self.quiet = quiet }

    /// One line, whatever a file name or a reason holds (`oneLine`).
    private func emit(_ line: String) {
        if tty && !quiet { Console.write("\r") }
        Console.line(oneLine(line))
    }

    private func draw(force: Bool = false) {
        guard tty, !quiet, force || Date().timeIntervalSince(lastDraw) > 0.2 else { return }
        lastDraw = Date()
        let finished = doneCount + skippedCount + incompleteCount + failedCount
        let elapsed = Date().timeIntervalSince(started)
        let rate = Double(frames) / max(elapsed, 1e-3)
        let eta = finished > 0 ? elapsed / Double(finished) * Double(total - finished) : 0
        let width = 24, filled = total == 0 ? width : width * finished / total
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        Console.write(String(format: "\r[%@] %d/%d files  %d frames  %.1f frames/s  ETA %.0fs ", bar, finished, total, frames, rate, eta))
    }

    private func locked(_ body: () -> Void) { lock.lock(); body(); draw(); lock.unlock() }

    /// Draws one pipeline event.
    func record(_ event: ExtractionPipeline.Event) {
        switch event {
        case .frames(let n): locked { frames += n }
        case .done(let name, let f, let h, let threads): done(name, frames: f, hands: h, threads: threads)
        case .skipped(let name): skipped(name)
        case .incomplete(let name, let f, let h, let reason): incomplete(name, frames: f, hands: h, reason: reason)
        case .failed(let name, let reason): failed(name, reason)
        case .unwritable(let name, let reason):
            locked {
                unwritableCount += 1
                problems.append(("not written", name, reason))
                emit("error: \(reason)")
            }
        case .setAside(let name, let kept, let reason):
            locked { emit("warning: \(name): its keypoint file cannot be read (\(reason)); kept as \(kept) and extracted again") }
        }
    }

    /// `threads`: the fewest and most engine threads its model runs used (more once other workers had no
    /// file left); nil when no model ran.
    func done(_ name: String, frames f: Int, hands h: Int, threads: ClosedRange<Int>?) {
        locked {
            doneCount += 1; hands += h
            let engine = threads.map { ", engine threads " + ($0.count == 1 ? "\($0.lowerBound)" : "\($0.lowerBound)-\($0.upperBound)") } ?? ""
            if !quiet && !tty { emit("done \(name): \(f) frames, \(h) hands\(engine)") }
        }
    }

    func skipped(_ name: String) {
        locked {
            skippedCount += 1
            if !quiet && !tty { emit("skip \(name): up to date") }
        }
    }

    /// Keypoints written for the frames before the damage; counts as a failure for the exit code.
    func incomplete(_ name: String, frames f: Int, hands h: Int, reason: String) {
        locked {
            incompleteCount += 1; failures += 1; hands += h
            problems.append(("incomplete", name, "\(f) frames kept; \(reason)"))
            emit("incomplete \(name): \(f) frames kept; \(reason)")
        }
    }

    func failed(_ name: String, _ reason: String) {
        locked {
            failedCount += 1; failures += 1
            problems.append(("failed", name, reason))
            emit("error: \(reason)")
        }
    }

    /// A path the input walk passed over; `lost` when files in it may be missing from the run.
    func note(_ path: String, _ reason: String, lost: Bool) {
        locked {
            if lost { failures += 1 }
            problems.append((lost ? "not searched" : "skipped", path, reason))
            emit("\(lost ? "error" : "warning"): \(path): \(reason)")
        }
    }

    func finish(seconds: Double, output: String, interrupted: Bool = false) {
        lock.lock(); defer { lock.unlock() }
        draw(force: true)
        if tty && !quiet { Console.line("") }
        let notStarted = total - doneCount - skippedCount - incompleteCount - failedCount - unwritableCount
        let unwritten = unwritableCount > 0 ? ", \(unwritableCount) not written (the output cannot be written)" : ""
        let stopped = interrupted ? ", \(notStarted) not done (interrupted; run again to resume)"
            : unwritableCount > 0 && notStarted > 0 ? ", \(notStarted) not started (the output's disk is full or read-only; run again to resume)" : ""
        print(String(format: "%d files: %d done, %d skipped, %d incomplete, %d failed%@%@; %d frames, %d hands, %.1f frames/s; keypoints in %@",
                     total, doneCount, skippedCount, incompleteCount, failedCount, unwritten, stopped,
                     frames, hands, Double(frames) / max(seconds, 1e-3), output))
        for p in problems { print("  \(p.kind) \(oneLine(p.name)): \(oneLine(p.reason))") }
    }
}
