import Foundation

/// What `bench --json` prints and what its reference scripts print back, as types: keys are the
/// properties in snake case (`medianMs` is `median_ms`), and a script's output that lacks a field is
/// refused by the decoder rather than read as a missing dictionary entry.
enum BenchJSON {
    /// `bench models`: one model on one thread count, ours and (with --reference) XNNPACK's.
    struct ModelRow: Codable {
        var model: String
        var threads: Int
        var isa: String
        var medianMs: Double
        var p90Ms: Double
        var gflops: Double
        var arenaMib: Double
        var xnnpackMedianMs: Double?
        var xnnpackP90Ms: Double?
        /// Ours over XNNPACK's median.
        var ratio: Double?
    }

    /// `bench extract`: one configuration's best round, measured from outside its process tree.
    struct ExtractRow: Codable {
        var run: String
        var frames: Int
        var seconds: Double
        var fps: Double
        var cpuMsPerFrame: Double
        var peakMib: Double
        var largestProcessMib: Double
        /// This handpose row's frames/s over the MediaPipe row after it.
        var speedup: Double?
    }

    /// handpose's time per frame by stage (`bench extract --profile`).
    struct ProfileSplit: Codable {
        struct Stage: Codable {
            var stage: String
            var msPerFrame: Double
            var percent: Double
        }
        var stages: [Stage]
        var palmRunsPerFrame: Double
        var landmarkRunsPerFrame: Double
    }

    struct ExtractReport: Codable {
        var runs: [ExtractRow]
        var profile: ProfileSplit?
    }

    /// `scripts/tflite_reference.py bench`: the official interpreter's times.
    struct ReferenceTiming: Codable {
        var medianMs: Double
        var p90Ms: Double
    }

    /// `scripts/mediapipe_bench.py`: what MediaPipe read and found, to check the runs are comparable.
    struct ReferenceCounts: Codable {
        var frames: Int
        var hands: Int
    }

    static var decoder: JSONDecoder {
        let d = JSONDecoder()
        d.keyDecodingStrategy = .convertFromSnakeCase
        return d
    }

    /// `value` as pretty, key-sorted JSON text.
    static func text<T: Encodable>(_ value: T) throws -> String {
        let e = JSONEncoder()
        e.keyEncodingStrategy = .convertToSnakeCase
        e.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: try e.encode(value), as: UTF8.self)
    }
}
