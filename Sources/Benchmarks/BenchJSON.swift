import Foundation

/// What `bench --json` prints and what its reference scripts print back, as types: keys are the
/// properties in snake case (`medianMs` is `median_ms`), and a script's output that lacks a field is
/// refused by the decoder rather than read as a missing dictionary entry.
public enum BenchJSON {
    /// `bench models`: one model on one thread count, ours and (with --reference) XNNPACK's.
    public struct ModelRow: Codable, Sendable, Equatable {
        public var model: String
        public var threads: Int
        public var isa: String
        /// The AVX-512 matrix-product tiling (`12x16`, `6x32`); nil for the other kernels.
        public var gemmTiling: String?
        public var medianMs: Double
        public var p90Ms: Double
        public var gflops: Double
        public var arenaMib: Double
        public var xnnpackMedianMs: Double?
        public var xnnpackP90Ms: Double?
        /// Ours over XNNPACK's median.
        public var ratio: Double?
        /// The spread of the rounds' medians (median and p90 are over every run of every round): the
        /// fastest round's median is `roundP10Ms`'s lower bound, and with 5 rounds p10 and p90 are the
        /// fastest and slowest round's.
        public var roundP10Ms: Double?
        public var roundP90Ms: Double?
        public var xnnpackRoundP10Ms: Double?
        public var xnnpackRoundP90Ms: Double?
        /// The largest of the rounds' ours/XNNPACK ratios (each round times both, one after the other).
        public var worstRoundRatio: Double?

        public init(model: String, threads: Int, isa: String, medianMs: Double, p90Ms: Double, gflops: Double, arenaMib: Double,
                    xnnpackMedianMs: Double? = nil, xnnpackP90Ms: Double? = nil, ratio: Double? = nil,
                    roundP10Ms: Double? = nil, roundP90Ms: Double? = nil, xnnpackRoundP10Ms: Double? = nil,
                    xnnpackRoundP90Ms: Double? = nil, worstRoundRatio: Double? = nil, gemmTiling: String? = nil) {
            self.gemmTiling = gemmTiling
            self.roundP10Ms = roundP10Ms
            self.roundP90Ms = roundP90Ms
            self.xnnpackRoundP10Ms = xnnpackRoundP10Ms
            self.xnnpackRoundP90Ms = xnnpackRoundP90Ms
            self.worstRoundRatio = worstRoundRatio
            self.model = model
            self.threads = threads
            self.isa = isa
            self.medianMs = medianMs
            self.p90Ms = p90Ms
            self.gflops = gflops
            self.arenaMib = arenaMib
            self.xnnpackMedianMs = xnnpackMedianMs
            self.xnnpackP90Ms = xnnpackP90Ms
            self.ratio = ratio
        }
    }

    /// `bench extract`: one configuration's best round, measured from outside its process tree.
    public struct ExtractRow: Codable, Sendable, Equatable {
        /// The rows of a comparison, one per side in order, each from its best run over `frames` frames;
        /// each of our rows gets its speed-up over the reference row right after it.
        static func rows(_ sides: [(name: String, ours: Bool, best: MeasuredRun)], frames: Int) -> [ExtractRow] {
            var rows = sides.map { side in
                let r = side.best
                return ExtractRow(run: side.name, frames: frames, seconds: r.seconds, fps: Double(frames) / r.seconds,
                                  cpuMsPerFrame: 1000 * r.cpuSeconds / Double(frames), peakMib: Double(r.peakBytes) / 1048576,
                                  largestProcessMib: Double(r.largestProcessBytes) / 1048576, speedup: nil)
            }
            for i in rows.indices where sides[i].ours && i + 1 < rows.count && !sides[i + 1].ours {
                rows[i].speedup = rows[i].fps / rows[i + 1].fps
            }
            return rows
        }

        public var run: String
        public var frames: Int
        public var seconds: Double
        public var fps: Double
        public var cpuMsPerFrame: Double
        public var peakMib: Double
        public var largestProcessMib: Double
        /// This handpose row's frames/s over the MediaPipe row after it.
        public var speedup: Double?

        public init(run: String, frames: Int, seconds: Double, fps: Double, cpuMsPerFrame: Double, peakMib: Double,
                    largestProcessMib: Double, speedup: Double? = nil) {
            self.run = run
            self.frames = frames
            self.seconds = seconds
            self.fps = fps
            self.cpuMsPerFrame = cpuMsPerFrame
            self.peakMib = peakMib
            self.largestProcessMib = largestProcessMib
            self.speedup = speedup
        }
    }

    /// handpose's time per frame by stage (`bench extract --profile`).
    public struct ProfileSplit: Codable, Sendable, Equatable {
        public struct Stage: Codable, Sendable, Equatable {
            public var stage: String
            public var msPerFrame: Double
            public var percent: Double

            public init(stage: String, msPerFrame: Double, percent: Double) {
                self.stage = stage
                self.msPerFrame = msPerFrame
                self.percent = percent
            }
        }
        /// How often a gated step ran, a frame on average ("palm model": 0.91).
        public struct Runs: Codable, Sendable, Equatable {
            public var what: String
            public var perFrame: Double

            public init(_ what: String, perFrame: Double) {
                self.what = what
                self.perFrame = perFrame
            }
        }
        public var stages: [Stage]
        public var runsPerFrame: [Runs]

        public init(stages: [Stage], runsPerFrame: [Runs]) {
            self.stages = stages
            self.runsPerFrame = runsPerFrame
        }
    }

    /// `bench extract --json`: every configuration's row, and the split by stage with --profile.
    public struct ExtractReport: Codable, Sendable, Equatable {
        public var runs: [ExtractRow]
        public var profile: ProfileSplit?

        public init(runs: [ExtractRow], profile: ProfileSplit?) {
            self.runs = runs
            self.profile = profile
        }
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

    /// `value` as pretty, key-sorted JSON text with snake-case keys.
    public static func text<T: Encodable>(_ value: T) throws -> String {
        let e = JSONEncoder()
        e.keyEncodingStrategy = .convertToSnakeCase
        e.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: try e.encode(value), as: UTF8.self)
    }
}
