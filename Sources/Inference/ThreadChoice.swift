/// Whether a plan's threads pay, decided from the plan's own runs: a plan of more than one thread times
/// `trialRuns` runs split over its threads and as many on the calling thread alone, alternating, and keeps
/// the threads only when their median is at most `gain` of the other's. It tries again later, since what
/// pays changes with the machine's load and, on a VM, with where the host puts its vCPUs: `firstInterval`
/// runs after a trial that changed the choice, twice as many after each that confirmed it, up to
/// `longestInterval`. A trial that fell on a passing moment of contention is so corrected within about
/// a hundred runs, and a choice that holds costs a trial every few thousand.
///
/// Why: on this project's 2-vCPU VM the small Holistic models (face_landmark, hand_recrop,
/// face_detection_short_range) ran about twice as slowly on two threads as on one in some runs, while the
/// hand and pose models ran 1.9x faster on two (README, "The engine"; docs/engine-kernels.md, "Stable speed"). A fixed rule by
/// model size would lose the runs where two threads do pay. Both ways give the same outputs bit for bit
/// (ModelParityTests compares one and two threads); only the time differs.
struct ThreadChoice: Sendable {
    enum Mode: Sendable, Equatable { case threads, alone }

    /// Runs of each mode in one trial (their medians are compared).
    static let trialRuns = 5
    /// Runs between trials, after a trial that changed the choice (or the first).
    static let firstInterval = 100
    /// The most runs between trials: a trial costs at most `trialRuns` runs at the slower mode's speed, so
    /// about 0.1% of the time once the choice has held for a while.
    static let longestInterval = 6_400
    /// Runs before the first trial, not timed: the arena's first touches and cold caches.
    static let warmUpRuns = 2
    /// The threads must take at most this share of the time alone: a smaller gain is not worth a second core.
    static let gain = 0.9

    /// The mode runs use between trials.
    private(set) var decided: Mode = .threads
    /// Trials ended so far.
    private(set) var trials = 0
    private var untilTrial = warmUpRuns
    private var interval = firstInterval
    /// The trial's times: threads' runs in the first `trialRuns` slots, the others' after them (allocated
    /// once: a plan's run allocates nothing).
    private var times = [Double](repeating: 0, count: 2 * trialRuns)
    private var timed = (threads: 0, alone: 0)
    /// Whether a trial is under way (the run `next` just chose is then timed and recorded).
    private(set) var inTrial = false

    /// The mode of the next run.
    mutating func next() -> Mode {
        if inTrial { return timed.threads <= timed.alone ? .threads : .alone }
        if untilTrial == 0 { inTrial = true; timed = (0, 0); return .threads }
        untilTrial -= 1
        return decided
    }

    /// Says how long a run of `mode` took; ends the trial (and decides) once each mode has `trialRuns` runs.
    /// Runs outside a trial are not recorded.
    ///
    /// In a trial each run on the threads follows one alone, so its workers have gone to sleep and it pays
    /// their wake-up, as a run does after the caller's own work between runs (a frame's crops and decoding);
    /// back-to-back runs on the threads (a benchmark's loop) would find them awake.
    mutating func record(_ mode: Mode, seconds: Double) {
        guard inTrial else { return }
        if mode == .threads, timed.threads < Self.trialRuns {
            times[timed.threads] = seconds; timed.threads += 1
        } else if mode == .alone, timed.alone < Self.trialRuns {
            times[Self.trialRuns + timed.alone] = seconds; timed.alone += 1
        }
        guard timed.threads == Self.trialRuns && timed.alone == Self.trialRuns else { return }
        times[0..<Self.trialRuns].sort()
        times[Self.trialRuns...].sort()
        let choice: Mode = times[Self.trialRuns / 2] <= Self.gain * times[Self.trialRuns + Self.trialRuns / 2] ? .threads : .alone
        interval = trials > 0 && choice == decided ? min(2 * interval, Self.longestInterval) : Self.firstInterval
        decided = choice
        inTrial = false
        trials += 1
        untilTrial = interval
    }
}
