import CPause
import Foundation
import Synchronization

/// Worker threads kept alive between kernel calls: after a task they spin briefly for the next one,
/// then sleep on a condition. Splitting a 0.1 ms kernel over two cores then costs microseconds, where
/// a dispatch to Foundation's pool per kernel cost more than it saved.
///
/// Parts are claimed, not assigned: each thread takes the next unclaimed part until none is left, and the
/// caller, its own part done, takes those no worker has reached. A worker that has not started (asleep,
/// descheduled, or woken onto the caller's own core) then costs the caller only that part's work, where
/// waiting for it had made small models' two-thread runs twice as slow as one thread's; a worker descheduled
/// after it claimed a part is still waited for.
/// Which thread ran a part changes no value: a part's range and scratch slot are its index's.
///
/// A task has one part for each worker taking part (`active`, set from the process's `ThreadShare` by the
/// plan) besides the caller's; the other workers are not started yet, or sleep on `bench` without spinning,
/// so an extract worker held to its share of the cores leaves the other workers' cores alone.
/// Unchecked: `task` is set before the part counter is published and read by a thread only after it has
/// claimed a part (acquire/release on the atomics), the hand-over the compiler cannot follow; `started`
/// is touched only by the thread that runs the pool's tasks.
final class WorkerPool: @unchecked Sendable {
    /// The most workers the pool starts.
    let workers: Int
    /// Worker threads started so far (`setActive` starts them when first needed).
    private(set) var started = 0
    /// Workers that take part in tasks (numbers 1...active); the others sleep on `bench`.
    private let active = Atomic<Int>(0)
    private let bench = NSCondition()
    private let generation = Atomic<Int>(0)
    /// Parts of the current task not yet finished; the caller waits for zero.
    private let pending = Atomic<Int>(0)
    /// The current task's parts besides the caller's (high 32 bits) and the next part to claim (low 32 bits,
    /// from 1; the caller runs part 0 first). One word, so a worker late from an earlier task reads the
    /// count and the part of one task, never one task's part against another's count.
    private let nextPart = Atomic<Int>(1)
    private let stopping = Atomic<Bool>(false)
    /// Set between model runs (`park`): a waiting worker then sleeps after `idlePolls`, not `spinPolls`.
    private let parked = Atomic<Bool>(false)
    private let condition = NSCondition()
    /// Calls of `wake`: a worker that has spun since the count it saw does not sleep through a later one.
    private let wakeups = Atomic<Int>(0)
    private var task: ((Int) -> Void)?

    /// A pool of up to `workers` threads, `active` of them taking part (every one unless told otherwise).
    init(workers: Int, active: Int? = nil) {
        self.workers = workers
        setActive(active ?? workers)
    }

    /// Sets how many workers take part from the next task on (0...workers), starting those not yet started;
    /// a worker left out finishes the task it is in and then sleeps until it is let in again. Called by
    /// the thread that runs tasks, between them.
    func setActive(_ count: Int) {
        let count = min(max(0, count), workers)
        while started < count {
            started += 1
            let number = started
            let thread = Thread { [self] in self.loop(number) }
            thread.stackSize = 1 << 20
            thread.start()
        }
        let before = active.exchange(count, ordering: .acquiringAndReleasing)
        if count > before { bench.lock(); bench.broadcast(); bench.unlock() }
    }

    /// Runs `body(0)` here and `body(1...active)` on whichever threads claim them (this one takes those no
    /// worker has claimed once its own is done); returns when all are done.
    func run(_ body: (Int) -> Void) {
        withoutActuallyEscaping(body) { b in
            task = b
            parked.store(false, ordering: .relaxed)
            // pending before the counter: a part claimed is always counted.
            let parts = active.load(ordering: .relaxed)
            pending.store(parts, ordering: .releasing)
            nextPart.store(parts << 32 | 1, ordering: .releasing)
            generation.add(1, ordering: .releasing)
            condition.lock(); condition.broadcast(); condition.unlock()
            b(0)
            runClaimedParts()
            // The parts workers claimed usually end within microseconds of this one: spin (with the CPU's
            // pause hint), but not for long, since a worker may be descheduled (more threads than cores, or
            // a competing process): then yield the core, then sleep in short steps.
            var polls = 0
            while pending.load(ordering: .acquiring) > 0 {
                polls += 1
                if polls <= Self.spinPolls {
                    Self.pause(polls)
                } else if polls <= Self.spinPolls + Self.yieldPolls {
                    sched_yield()
                } else {
                    usleep(50)
                }
            }
            task = nil
        }
    }

    /// Says a model run begins: workers asleep since the last one are woken now, so that their wake-up (a
    /// futex, and on a VM a halted vCPU's, tens of microseconds) passes while the caller copies the input
    /// and runs the first steps, not while it waits at the first split.
    func wake() {
        parked.store(false, ordering: .relaxed)
        wakeups.add(1, ordering: .releasing)
        condition.lock(); condition.broadcast(); condition.unlock()
    }

    /// Says the model run is over: until the next `run` or `wake`, workers wait only `idlePolls` before they sleep, so
    /// they leave the cores to the caller's work between runs (a frame's crops, decoding, tracking).
    func park() { parked.store(true, ordering: .relaxed) }

    /// Ends the worker threads (they hold the pool until then).
    func stop() {
        stopping.store(true, ordering: .releasing)
        generation.add(1, ordering: .releasing)
        condition.lock(); condition.broadcast(); condition.unlock()
        bench.lock(); bench.broadcast(); bench.unlock()
    }

    /// Polls before a waiting thread stops spinning, the workers' figure: 50,000 polls outlast any one
    /// kernel's split (a PAUSE takes 10 to 140 cycles by CPU, so 0.2 to 3 ms here).
    static let spinPolls = 50_000

    /// One poll's wait: the CPU's pause hint, and every 512th poll the core offered to another thread. A
    /// spinning thread that shares its core with the thread it waits for (more threads than free cores: a
    /// shared machine, a VM's busy host) otherwise holds the core until the scheduler preempts it, a
    /// time slice lost each time. Measured on a 2-vCPU VM: hand_recrop on 2 threads took 0.6 ms in some
    /// rounds and 2.2 ms in others, beside XNNPACK's 0.5-1.0 ms.
    @inline(__always)
    static func pause(_ poll: Int) {
        if poll & 511 == 0 { sched_yield() } else { handpose_cpu_relax() }
    }
    /// Polls a worker waits for its next task between model runs (after `park`) before it sleeps: tens of
    /// microseconds. Within a run the next kernel comes within microseconds, and a sleeping worker's wake-up
    /// (a futex, and on a VM a halted vCPU) costs more than the small models' kernels, so there workers spin
    /// `spinPolls`; between runs (the frame's crops, decoding, tracking on the caller's thread) a worker
    /// spinning that long burned a core the caller needed.
    static let idlePolls = 1_024

    /// Then `sched_yield` calls before the caller of `run` sleeps.
    static let yieldPolls = 1_000

    /// Worker `number`'s life: tasks while it takes part, sleep on `bench` while it does not.
    private func loop(_ number: Int) {
        var seen = generation.load(ordering: .acquiring)
        while true {
            if number > active.load(ordering: .acquiring) {
                bench.lock()
                while number > active.load(ordering: .acquiring) && !stopping.load(ordering: .acquiring) { bench.wait() }
                bench.unlock()
                if stopping.load(ordering: .acquiring) { return }
                // Back in: from the next task on (the caller claims this one's unclaimed parts).
                seen = generation.load(ordering: .acquiring)
            }
            var spins = 0
            // A `wake` after this point, even one just before the worker decides to sleep, keeps it awake.
            var woken = wakeups.load(ordering: .acquiring)
            while generation.load(ordering: .acquiring) == seen {
                spins += 1
                Self.pause(spins)
                if spins > (parked.load(ordering: .relaxed) ? Self.idlePolls : Self.spinPolls) {
                    condition.lock()
                    while generation.load(ordering: .acquiring) == seen && wakeups.load(ordering: .acquiring) == woken { condition.wait() }
                    condition.unlock()
                    // A task, or a run beginning (`wake`): spin for its first task.
                    spins = 0
                    woken = wakeups.load(ordering: .acquiring)
                }
            }
            seen = generation.load(ordering: .acquiring)
            if stopping.load(ordering: .acquiring) { return }
            // Left out while it waited (the share fell): no part of this task, back to `bench`.
            if number > active.load(ordering: .acquiring) { continue }
            runClaimedParts()
        }
    }

    /// Claims and runs parts of the current task until none is left.
    private func runClaimedParts() {
        while true {
            let claim = nextPart.wrappingAdd(1, ordering: .acquiringAndReleasing).oldValue
            let part = claim & 0xFFFF_FFFF
            guard part <= claim >> 32 else { return }
            task!(part)
            pending.subtract(1, ordering: .releasing)
        }
    }
}
