import Foundation

/// A thread that runs pieces of work one after another beside its caller's, in the order handed over
/// (`start`), each waited for in that order (`wait`, or `poll` without blocking). A caller with two
/// independent parts of a frame's work runs one here and one itself, each under its half of the share
/// (`ThreadShare.capped`): two whole parts at once keep two cores busier than each layer split between two
/// threads, whose waits at each layer's end grow when a third thread (the decoder) takes one of the cores.
/// It sleeps while it has no work. `HolisticTracker.frames`, `KeypointExtraction` for `--body`.
/// Unchecked: the work and the results pass between the two threads under `lock`; `inFlight` is the
/// caller's alone.
public final class StageThread<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private let started = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
    private var work: [() throws -> Value] = []
    private var results: [Result<Value, Error>] = []
    private var stopping = false
    /// Work handed over and not yet waited for.
    public private(set) var inFlight = 0

    public init() {
        // The models run on 1 MiB stacks on the engine's and the decoder's threads too.
        let thread = Thread { [self] in
            while true {
                started.wait()
                guard let next = lock.withLock({ stopping ? nil : work.removeFirst() }) else { return }
                let result = Result { try next() }
                lock.withLock { results.append(result) }
                done.signal()
            }
        }
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Hands `work` over, to run after the work handed over before it.
    public func start(_ work: @escaping () throws -> Value) {
        inFlight += 1
        lock.withLock { self.work.append(work) }
        started.signal()
    }

    /// The oldest work's value or error, once it has ended.
    public func wait() -> Result<Value, Error> {
        precondition(inFlight > 0, "nothing was handed over")
        done.wait()
        return take()
    }

    /// The oldest work's value or error if it has ended, else nil (nothing in flight: nil).
    public func poll() -> Result<Value, Error>? {
        guard inFlight > 0, done.wait(timeout: .now()) == .success else { return nil }
        return take()
    }

    private func take() -> Result<Value, Error> {
        inFlight -= 1
        return lock.withLock { results.removeFirst() }
    }

    /// A frame's work split in two on `share` threads (two or more): the stage kept in `held` (made on first
    /// need), which the second part runs on, and that part's threads, half the share rounded down; the caller's
    /// part runs on the rest. Notes the share as run (`ThreadShare.noteRun`), what the worker reports, since the
    /// two parts' plans each run on less.
    public static func split(_ held: inout StageThread?, share: Int) -> (stage: StageThread, second: Int) {
        let stage = held ?? StageThread()
        held = stage
        ThreadShare.noteRun(share)
        return (stage, share / 2)
    }

    /// Ends the thread once the work in flight has ended (the caller's `deinit`).
    public func stop() {
        while inFlight > 0 { _ = wait() }
        lock.withLock { stopping = true }
        started.signal()
    }
}
