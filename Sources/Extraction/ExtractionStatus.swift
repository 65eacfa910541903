import FileSystem
import Foundation
import Keypoints
import KeypointStore
import VideoIO

/// What a keypoint folder holds for a list of inputs: done, missing, failed (with the reason recorded
/// by the run), incomplete, stale (the input changed since) or made with other settings or models;
/// per shard when the run was sharded. Also the dataset index, `OUT/index.jsonl`.
public struct ExtractionStatus {
    /// An input's state: its keypoints' verdict (`KeypointFolder.verdict`).
    public typealias State = Verdict.State

    /// One input: a line of `index.jsonl`. Frame and hand counts, settings and models are those of its
    /// keypoint file, when it has one that can be read.
    public struct Entry: Codable, Sendable, Equatable {
        /// The input's path relative to the input folder given (its keypoints are `<path>.hands.json`).
        public var path: String
        public var state: State
        public var shard: Int?
        public var reason: String?
        /// For `other-settings`: each recorded setting that differs from the one asked for.
        public var differences: [KeypointFile.Settings.Difference]?
        public var frames: Int?
        public var hands: Int?
        public var framesWithHand: Int?
        public var settings: KeypointFile.Settings?
        public var models: [String: String]?
        /// The still-image decoder recorded in the keypoint file (the JPEG rule of the verdict).
        public var decoder: String?
        /// The sizes of the files written beside the keypoint file, by format (`KeypointFile.outputs`).
        public var outputs: [String: UInt64]?
        /// The input's size when the keypoints were made (`KeypointFile.Source.bytes`).
        public var inputBytes: UInt64?
        /// Size and modification time of the keypoint file these counts were read from (index reuse).
        public var keypointBytes: UInt64?
        public var keypointModified: Double?

        /// The summary this line was written from, if it holds one.
        var summary: KeypointSummary? {
            guard let frames, let hands, let framesWithHand, let keypointBytes, let keypointModified else { return nil }
            var s = KeypointSummary(frames: frames, hands: hands, framesWithHand: framesWithHand, bytes: keypointBytes,
                                    modified: keypointModified)
            s.settings = settings; s.models = models; s.decoder = decoder; s.outputs = outputs; s.inputBytes = inputBytes
            s.incomplete = state == .incomplete ? reason : nil
            return s
        }
    }

    public var entries: [Entry] = []
    public var shards: Int?

    public var complete: Bool { entries.allSatisfy { $0.state == .done } }

    /// States a rerun of `extract` with the same flags fixes (an incomplete file is kept unless --overwrite).
    public static let fixedByRerun = Set(State.allCases.filter(\.redoneByExtract))

    public func count(_ state: State, shard: Int? = nil) -> Int {
        entries.filter { $0.state == state && (shard == nil || $0.shard == shard) }.count
    }

    /// Checks every item against `root`: each input's verdict (`KeypointFolder.verdict`). `asked` gives
    /// what was asked of an input (`true` for a still image). `previous` is an earlier index: a keypoint
    /// file of the same size and time is not read again.
    public static func check(_ items: [InputFiles.Item], root: URL, asked: (Bool) -> KeypointRequest,
                             shards: Int?, previous: [PathKey: Entry] = [:]) -> ExtractionStatus {
        let assignment = shards.map { Shard.assignment(items, count: $0) }
        let folder = KeypointFolder(root)
        var status = ExtractionStatus(shards: shards)
        for (k, item) in items.enumerated() {
            let verdict = folder.verdict(for: item.url, relative: item.relative, asked: asked(InputFiles.isStillImage(item.url))) { bytes, modified in
                guard let old = previous[PathKey(item.relative)]?.summary, old.bytes == bytes, old.modified == modified else { return nil }
                return old
            }
            var entry = Entry(path: item.relative, state: verdict.state, shard: assignment?[k], reason: verdict.reason)
            entry.differences = verdict.differences.isEmpty ? nil : verdict.differences
            if let s = verdict.summary {
                entry.frames = s.frames; entry.hands = s.hands; entry.framesWithHand = s.framesWithHand
                entry.settings = s.settings; entry.models = s.models; entry.decoder = s.decoder; entry.outputs = s.outputs; entry.inputBytes = s.inputBytes
                entry.keypointBytes = s.bytes; entry.keypointModified = s.modified
            }
            status.entries.append(entry)
        }
        return status
    }

    /// Reads an index written by `writeIndex` (entries by path); an absent or damaged one is empty.
    public static func loadIndex(_ url: URL) -> [PathKey: Entry] {
        guard let text = (try? RegularFile.read(url.path)).flatMap({ String(data: $0, encoding: .utf8) }) else { return [:] }
        var out: [PathKey: Entry] = [:]
        for line in text.split(separator: "\n") {
            if let e = try? JSONDecoder().decode(Entry.self, from: Data(line.utf8)) { out[PathKey(e.path)] = e }
        }
        return out
    }

    /// Writes the index: one JSON line per input, in input order, atomically.
    public func writeIndex(to url: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var data = Data()
        for var e in entries {
            // The index keeps its format: the differences are for `status`' reader, told again from the settings.
            e.differences = nil
            data.append(try encoder.encode(e))
            data.append(0x0A)
        }
        // An index that already says this is left as it is: `status` on a finished dataset on a read-only share
        // writes nothing and fails nothing.
        if let old = try? RegularFile.read(url.path), old == data { return }
        do { try AtomicFile.write(data, to: url) } catch let e as AtomicFile.WriteError {
            throw KeypointError.unwritable(path: e.path, reason: e.reason)
        }
    }
}
