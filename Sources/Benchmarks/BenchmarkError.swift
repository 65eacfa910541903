import Foundation

/// Why a measurement could not be made. Each case carries the file, program or run it concerns, and its
/// description is a sentence a user can act on; a case that wraps a library's error keeps that error's
/// own sentence, which already names its file.
public enum BenchmarkError: Error, Equatable, CustomStringConvertible {
    /// The model files are not where they were looked for, or one could not be read.
    case models(reason: String)
    /// A helper script (`scripts/NAME.py`) is in none of the places looked.
    case helperScript(name: String, reason: String)
    /// The inputs could not be listed.
    case inputs(reason: String)
    /// The inputs name no clip (only stills, or nothing playable).
    case noClips(inputs: [String])
    /// The engine could not plan or run a model.
    case engine(reason: String)
    /// The fused plan of `model` gave another output `output` than the same plan without fusion.
    case fusedOutputDiffers(model: String, output: Int)
    /// A clip could not be decoded, extracted or its keypoints read back.
    case extraction(reason: String)
    /// A program could not be started.
    case cannotStart(executable: String, reason: String)
    /// The Python given for MediaPipe could not be run at all.
    case referenceNotRunnable(python: String, reason: String)
    /// The Python given for MediaPipe runs but cannot import mediapipe.
    case referenceWithoutMediaPipe(python: String)
    /// One side of a comparison exited with a failure.
    case runFailed(run: String, status: Int32, errorTail: String, ours: Bool)
    /// MediaPipe's helper printed no frame and hand counts, so its run cannot be checked.
    case noCounts(run: String, output: String)
    /// One side read other frames or found other hands than handpose: its time says nothing of the same work.
    case notComparable(run: String, frames: Int, hands: Int, expectedFrames: Int, expectedHands: Int)
    /// A run wrote fewer output files than it had clips.
    case missingOutputs(run: String, made: Int, expected: Int)

    public var description: String {
        switch self {
        case .models(let reason), .inputs(let reason), .engine(let reason), .extraction(let reason):
            return reason
        case .helperScript(_, let reason):
            return reason
        case .noClips(let inputs):
            return "no clips in \(inputs.joined(separator: ", "))"
        case .fusedOutputDiffers(let model, let output):
            return "\(model): output \(output) of the fused plan differs from the unfused plan's"
        case .cannotStart(let executable, let reason):
            return "\(executable) cannot be run (\(reason))"
        case .referenceNotRunnable(let python, let reason):
            return "\(python) cannot be run (\(reason))"
        case .referenceWithoutMediaPipe(let python):
            return "\(python) has no mediapipe; `make bench-setup` installs it in .venv-tasks"
        case .runFailed(let run, let status, let tail, let ours):
            return "\(run) failed (status \(status)): \(tail)" + (ours ? "" : "; `make bench-setup` installs MediaPipe in .venv-tasks")
        case .noCounts(let run, let output):
            return "\(run) printed no frame and hand counts: \(output)"
        case .notComparable(let run, let frames, let hands, let expectedFrames, let expectedHands):
            return "\(run) read \(frames) frames and found \(hands) hands where handpose read \(expectedFrames) and found \(expectedHands); "
                + "the runs are not comparable"
        case .missingOutputs(let run, let made, let expected):
            return "\(run) wrote \(made) .pose files for \(expected) clips; the runs are not comparable"
        }
    }
}

/// `body`'s result, or its error as the `BenchmarkError` that `wrap` makes of it.
func attempt<T>(_ wrap: (String) -> BenchmarkError, _ body: () throws -> T) throws(BenchmarkError) -> T {
    do { return try body() } catch let error as BenchmarkError { throw error } catch { throw wrap("\(error)") }
}
