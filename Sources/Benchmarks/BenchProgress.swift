/// What a measurement reports while it runs, for the tool to print as it likes (`bench` writes these
/// to standard error). Called on the measuring thread, between timed runs.
public enum BenchProgress: Sendable, Equatable {
    /// `bench models`: one model on one thread count timed in round `round` (from 1), its median.
    case modelTimed(round: Int, model: String, threads: Int, medianMs: Double)
    /// `bench extract`: one configuration run in round `round` (from 1), its wall clock.
    case extractRun(round: Int, run: String, seconds: Double)
}
