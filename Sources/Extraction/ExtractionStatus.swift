import Foundation
import HandLandmarks
import Keypoints

/// What a keypoint folder holds for a list of inputs: done, missing, failed (with the reason recorded
/// by the run), incomplete, stale (the input changed since) or made with other settings or models;
/// per shard when the run was sharded. Also the dataset index, `OUT/index.jsonl`.
public struct ExtractionStatus {
    public enum State: String, Codable, Sendable, CaseIterable {
        case done, missing, failed, incomplete, stale, otherSettings = "other-settings", otherModels = "other-models", unreadable
    }

    /// One input: a line of `index.jsonl`. Frame and hand counts, settings and models are those of its
    /// keypoint file, when it has one that can be read.
    public struct Entry: Codable, Sendable, Equatable {
        /// The input's path relative to the input folder given (its keypoints are `<path>.hands.json`).
        public var path: String
        public var state: State
        public var shard: Int?
        public var reason: String?
        public var frames: Int?
        public var hands: Int?
        public var framesWithHand: Int?
        public var settings: KeypointFile.Settings?
        public var models: [String: String]?
        /// Size and modification time of the keypoint file these counts were read from (index reuse).
        public var keypointBytes: UInt64?
        public var keypointModified: Double?
    }

    public var entries: [Entry] = []
    public var shards: Int?

    public var complete: Bool { entries.allSatisfy { $0.state == .done } }

    /// States a rerun of `extract` with the same flags fixes (an incomplete file is kept unless --overwrite).
    public static let fixedByRerun: Set<State> = [.missing, .failed, .stale, .otherSettings, .otherModels, .unreadable]

    public func count(_ state: State, shard: Int? = nil) -> Int {
        entries.filter { $0.state == state && (shard == nil || $0.shard == shard) }.count
    }

    /// Checks every item against `root`. `settings` gives the settings asked for an input (`true` for a
    /// still image); `models` the model hashes asked (nil: not checked). `previous` is an earlier index:
    /// a keypoint file of the same size and time is not read again.
    public static func check(_ items: [InputFiles.Item], root: URL, settings: (Bool) -> HandTrackerOptions,
                             models: [String: String]?, shards: Int?, previous: [String: Entry] = [:]) -> ExtractionStatus {
        let assignment = shards.map { Shard.assignment(items, count: $0) }
        var status = ExtractionStatus(shards: shards)
        for (k, item) in items.enumerated() {
            var entry = Entry(path: item.relative, state: .missing, shard: assignment?[k])
            let out = ExtractionPipeline.outputURL(for: item.relative, in: root)
            let failure = FailureRecord.load(for: item.relative, in: root)
            let attributes = try? FileManager.default.attributesOfItem(atPath: out.path)
            guard let attributes, let modified = attributes[.modificationDate] as? Date else {
                if let failure { entry.state = .failed; entry.reason = failure.reason + " (\(failure.host), \(failure.time))" }
                status.entries.append(entry)
                continue
            }
            entry.keypointBytes = (attributes[.size] as? NSNumber)?.uint64Value
            entry.keypointModified = modified.timeIntervalSince1970
            if let old = previous[item.relative], old.keypointBytes == entry.keypointBytes, old.keypointModified == entry.keypointModified,
               old.frames != nil {
                entry.frames = old.frames; entry.hands = old.hands; entry.framesWithHand = old.framesWithHand
                entry.settings = old.settings; entry.models = old.models
                entry.reason = old.state == .incomplete ? old.reason : nil
                entry.state = old.state == .incomplete ? .incomplete : .done
            } else {
                do {
                    let file = try KeypointFile.load(out)
                    entry.frames = file.frames.count
                    entry.hands = file.frames.reduce(0) { $0 + $1.hands.count }
                    entry.framesWithHand = file.frames.filter { !$0.hands.isEmpty }.count
                    entry.settings = file.settings
                    entry.models = file.models
                    entry.state = .done
                    if let damage = file.incomplete { entry.state = .incomplete; entry.reason = damage.error }
                } catch {
                    entry.state = .unreadable
                    entry.reason = "\(error)"
                }
            }
            if entry.state == .done {
                let asked = KeypointFile.Settings(settings(InputFiles.isStillImage(item.url)))
                let inputModified = (try? FileManager.default.attributesOfItem(atPath: item.url.path))?[.modificationDate] as? Date
                // A readable keypoint file stands even if a later attempt (--overwrite) failed: failures
                // count only for inputs without one.
                if let inputModified, inputModified > modified {
                    entry.state = .stale
                    entry.reason = "the input changed after its keypoints were made"
                } else if entry.settings != asked {
                    entry.state = .otherSettings
                    entry.reason = entry.settings.map { $0.differences(from: asked).joined(separator: "; ") } ?? "no settings recorded"
                } else if let models, entry.models != models {
                    entry.state = .otherModels
                    entry.reason = "made with " + (entry.models ?? [:]).keys.sorted().joined(separator: ", ")
                }
            }
            status.entries.append(entry)
        }
        return status
    }

    /// Reads an index written by `writeIndex` (entries by path); an absent or damaged one is empty.
    public static func loadIndex(_ url: URL) -> [String: Entry] {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [:] }
        var out: [String: Entry] = [:]
        for line in text.split(separator: "\n") {
            if let e = try? JSONDecoder().decode(Entry.self, from: Data(line.utf8)) { out[e.path] = e }
        }
        return out
    }

    /// Writes the index: one JSON line per input, in input order, atomically.
    public func writeIndex(to url: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var data = Data()
        for e in entries {
            data.append(try encoder.encode(e))
            data.append(0x0A)
        }
        let temporary = KeypointFile.temporaryURL(for: url)
        do {
            try data.write(to: temporary)
            guard rename(temporary.path, url.path) == 0 else { throw KeypointError.unwritable(path: url.path, reason: String(cString: strerror(errno))) }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw KeypointError.unwritable(path: url.path, reason: describe(error))
        }
    }
}
