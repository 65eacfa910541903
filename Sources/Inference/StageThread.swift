import Foundation

/// A thread that runs one piece of work at a time beside its caller's: handed over (`start`), then waited
/// for (`wait`). A caller with two independent parts of a frame's work runs one here and one itself, each
/// under its half of the share (`ThreadShare.capped`): two whole parts at once keep two cores busier than
/// each layer split between two threads, whose waits at each layer's end grow when a third thread (the
/// decoder) takes one of the cores. It sleeps while it has no work. `HolisticTracker.frames`,
/// `KeypointExtraction` for `--body`.
/// Unchecked: `work` and `result` pass between the two threads through the semaphores, each written by one
/// side while the other waits on it.
public final class StageThread<Value>: @unchecked Sendable {
    private let started = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
    private var work: (() throws -> Value)?
    private var result: Result<Value, Error>?
    private var stopping = false
    /// Work handed over and not yet waited for.
    public private(set) var busy = false

    public init() {
        // The models run on 1 MiB stacks on the engine's and the decoder's threads too.
        let thread = Thread { [self] in
            while true {
                started.wait()
                if stopping { return }
                result = Result { try work!() }
                work = nil
                done.signal()
            }
        }
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Hands `work` over (nothing may be in flight).
    public func start(_ work: @escaping () throws -> Value) {
        precondition(!busy, "a stage thread runs one piece of work at a time")
        busy = true
        self.work = work
        started.signal()
    }

    /// The work's value or error, once it has ended.
    public func wait() -> Result<Value, Error> {
        precondition(busy, "nothing was handed over")
        done.wait()
        busy = false
        defer { result = nil }
        return result!
    }

    /// Ends the thread once the work in flight, if any, has ended (the caller's `deinit`).
    public func stop() {
        if busy { _ = wait() }
        stopping = true
        started.signal()
    }
}
