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
/// hand and pose models ran 1.9x faster on two (docs/engine-kernels.md, "Stable speed"). A fixed rule by
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
    private var trial: (threads: [Double], alone: [Double])?

    /// The mode of the next run.
    mutating func next() -> Mode {
        if let trial { return trial.threads.count <= trial.alone.count ? .threads : .alone }
        if untilTrial == 0 { trial = ([], []); return .threads }
        untilTrial -= 1
        return decided
    }

    /// Says how long a run of `mode` took; ends the trial (and decides) once each mode has `trialRuns` runs.
    /// Runs outside a trial are not recorded.
    mutating func record(_ mode: Mode, seconds: Double) {
        guard var t = trial else { return }
        if mode == .threads { t.threads.append(seconds) } else { t.alone.append(seconds) }
        guard t.threads.count >= Self.trialRuns && t.alone.count >= Self.trialRuns else { trial = t; return }
        let choice: Mode = Self.median(t.threads) <= Self.gain * Self.median(t.alone) ? .threads : .alone
        interval = trials > 0 && choice == decided ? min(2 * interval, Self.longestInterval) : Self.firstInterval
        decided = choice
        trial = nil
        trials += 1
        untilTrial = interval
    }

    /// Whether the run `next` just chose is part of a trial (and so is to be timed and recorded).
    var inTrial: Bool { trial != nil }

    static func median(_ values: [Double]) -> Double {
        let s = values.sorted()
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }
}
