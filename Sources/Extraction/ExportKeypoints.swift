import FileSystem
import Foundation
import Keypoints
import KeypointStore
import Synchronization
import VideoIO

/// The keypoint files an export uses. Each input's verdict (`KeypointFolder.verdict`, the same that
/// `extract` and `status` give) decides: `done` is accepted; `incomplete` is refused; `otherSettings`
/// and `otherModels` are refused, or accepted and listed with `allowMixed`; `missing`, `failed`,
/// `stale` and `unreadable`, which `extract` would redo, are extracted now through the pipeline (a clip
/// edited since its keypoints were made gets new ones, never its old ones).
public struct ExportKeypoints {
    /// A clip or image an export needs keypoints for: its file, and its path relative to the annotation
    /// root, which is also where its keypoints are in the keypoints folder (never its bare file name).
    public struct Input: Hashable, Sendable {
        public var url: URL
        public var relative: String
        public var still: Bool
        public init(url: URL, relative: String, still: Bool) { self.url = url; self.relative = relative; self.still = still }
        // By the bytes of the paths (`PathKey`): two files whose names differ only in Unicode normalisation are two inputs.
        public static func == (a: Input, b: Input) -> Bool {
            PathKey(a.url.path) == PathKey(b.url.path) && PathKey(a.relative) == PathKey(b.relative) && a.still == b.still
        }
        public func hash(into hasher: inout Hasher) {
            hasher.combine(PathKey(url.path))
            hasher.combine(PathKey(relative))
            hasher.combine(still)
        }
    }

    /// An input whose keypoints cannot be used, and why.
    public struct Refusal: Equatable, Sendable {
        public var input: Input
        public var state: Verdict.State
        public var reason: String
    }

    /// What an export does with an input of each verdict.
    public enum Action: Equatable, Sendable { case accept, refuse, extract }

    public static func action(for state: Verdict.State, allowMixed: Bool) -> Action {
        switch state {
        case .done: return .accept
        case .incomplete: return .refuse
        case .otherSettings, .otherModels: return allowMixed ? .accept : .refuse
        case .missing, .failed, .stale, .unreadable: return .extract
        }
    }

    /// Accepted keypoint files by relative path.
    public var files: [PathKey: KeypointFile] = [:]
    /// Inputs refused, in input order.
    public var refused: [Refusal] = []
    /// Relative paths of files accepted though made otherwise than asked (`allowMixed`).
    public var mixed: [String] = []
    /// The models the accepted files were made with (file name to SHA-256).
    public var models: [String: String] = [:]
    /// Inputs extracted now (their relative paths).
    public var extracted: [String] = []
    /// SIGINT or SIGTERM stopped the extraction.
    public var interrupted = false
    /// Why keypoints could not be written into the keypoints folder (a full disk, a read-only folder), one per
    /// input it stopped: the folder's fault, not the inputs'.
    public var unwritable: [String] = []
    /// Why the missing keypoints could not be extracted at all (no worker process could start); nil
    /// when extraction ran.
    public var couldNotExtract: String?

    public init() {}

    /// Gathers the keypoints of `inputs` from `folder`. `settings` gives the settings asked (`true` for
    /// a still). `pipeline` extracts what is needed (its `modelHashes` are the models asked); nil when
    /// the models are not found here: then the models most files share are the reference (ties go to the
    /// first input's), and an input that needs extracting is refused, naming `noPipeline`.
    /// `extracting` is told how many inputs are about to be extracted; `events` gets the pipeline's events.
    /// `label` names a settings field in a refusal (the tool passes its flag table; by default the field's
    /// name as keypoint files write it).
    public static func gather(_ inputs: [Input], from folder: KeypointFolder, settings: (Bool) -> KeypointFile.Settings,
                              pipeline: ExtractionPipeline?, noPipeline: String = "the models are not found here",
                              allowMixed: Bool, label: (KeypointFile.Settings.Field) -> String = { "\($0.rawValue):" },
                              extracting: (Int) -> Void = { _ in },
                              events: @escaping @Sendable (ExtractionPipeline.Event) -> Void = { _ in }) -> ExportKeypoints {
        var out = ExportKeypoints()
        func request(_ input: Input, models: [String: String]?) -> KeypointRequest {
            KeypointRequest(settings: settings(input.still), models: models)
        }
        var verdicts = inputs.map { folder.verdict(for: $0.url, relative: $0.relative, asked: request($0, models: pipeline?.modelHashes)) }
        let reference = pipeline?.modelHashes ?? commonModels(verdicts)
        if pipeline == nil, let reference {
            // The same verdicts against the reference models, from the summaries already read.
            for (k, input) in inputs.enumerated() where verdicts[k].state == .done {
                let first = verdicts[k]
                var again = folder.verdict(for: input.url, relative: input.relative, asked: request(input, models: reference)) { _, _ in first.summary }
                again.file = first.file
                verdicts[k] = again
            }
        }
        var toExtract: [Int] = []
        for (k, input) in inputs.enumerated() {
            switch action(for: verdicts[k].state, allowMixed: allowMixed) {
            case .accept: out.accept(input, verdicts[k])
            case .refuse: out.refuse(input, verdicts[k], label: label)
            case .extract:
                if pipeline == nil {
                    out.refused.append(Refusal(input: input, state: verdicts[k].state, reason: describe(verdicts[k], label: label) + "; cannot extract it: " + noPipeline))
                } else {
                    toExtract.append(k)
                }
            }
        }
        if let pipeline, !toExtract.isEmpty {
            extracting(toExtract.count)
            let failures = FailureLog()
            let unwritable = FailureLog()
            let finished: Bool
            do {
                finished = try pipeline.run(toExtract.map { InputFiles.Item(url: inputs[$0].url, relative: inputs[$0].relative) }, into: folder.root) { event in
                    if case .failed(let name, let reason) = event { failures.add(name, reason) }
                    if case .unwritable(let name, let reason) = event { unwritable.add(name, reason) }
                    events(event)
                }
            } catch {
                out.couldNotExtract = "\(error)"
                return out
            }
            out.interrupted = !finished
            out.unwritable = unwritable.reasons.sorted { $0.key < $1.key }.map(\.value)
            let failed = failures.reasons
            for k in toExtract {
                let input = inputs[k]
                if let reason = failed[PathKey(input.relative)] {
                    out.refused.append(Refusal(input: input, state: .failed, reason: reason))
                    continue
                }
                out.extracted.append(input.relative)
                let verdict = folder.verdict(for: input.url, relative: input.relative, asked: request(input, models: pipeline.modelHashes))
                switch action(for: verdict.state, allowMixed: allowMixed) {
                case .accept: out.accept(input, verdict)
                case .refuse, .extract: out.refuse(input, verdict, label: label)
                }
            }
            out.refused.sort { a, b in
                (inputs.firstIndex(of: a.input) ?? 0) < (inputs.firstIndex(of: b.input) ?? 0)
            }
        }
        if let reference { out.models = reference } else {
            for input in inputs { if let m = out.files[PathKey(input.relative)]?.models { out.models.merge(m) { a, _ in a } } }
        }
        return out
    }

    private mutating func accept(_ input: Input, _ verdict: Verdict) {
        guard let file = verdict.file else {
            refused.append(Refusal(input: input, state: .unreadable, reason: "its keypoint file was not read"))
            return
        }
        files[PathKey(input.relative)] = file
        if verdict.state != .done { mixed.append(input.relative) }
    }

    private mutating func refuse(_ input: Input, _ verdict: Verdict, label: (KeypointFile.Settings.Field) -> String) {
        refused.append(Refusal(input: input, state: verdict.state, reason: Self.describe(verdict, label: label)))
    }

    /// A verdict as the reason an export gives.
    static func describe(_ verdict: Verdict, label: (KeypointFile.Settings.Field) -> String) -> String {
        switch verdict.state {
        case .done: return "its keypoints are usable"
        case .missing: return "it has no keypoints" + (verdict.reason.map { " (\($0))" } ?? "")
        case .failed: return "its extraction failed: " + (verdict.reason ?? "")
        case .incomplete: return "its keypoints are incomplete (\(verdict.reason ?? ""))"
        case .stale: return "its keypoints are stale (\(verdict.reason ?? ""))"
        case .otherSettings: return "its keypoints were made with other settings (\(verdict.reason(label: label) ?? ""))"
        case .otherModels: return "its keypoints were made with other models (\(verdict.reason ?? ""))"
        case .unreadable: return "its keypoint file cannot be read (\(verdict.reason ?? ""))"
        }
    }

    /// The model set most readable keypoint files record; ties go to the earliest input's.
    static func commonModels(_ verdicts: [Verdict]) -> [String: String]? {
        var counts: [[String: String]: (count: Int, first: Int)] = [:]
        for (k, v) in verdicts.enumerated() {
            guard let m = v.summary?.models else { continue }
            counts[m, default: (0, k)].count += 1
        }
        return counts.max { a, b in a.value.count != b.value.count ? a.value.count < b.value.count : a.value.first > b.value.first }?.key
    }
}

/// Failures (or unwritable outputs) reported by a pipeline's events, gathered from its threads, by input path.
final class FailureLog: Sendable {
    private let items = Mutex<[PathKey: String]>([:])
    var reasons: [PathKey: String] { items.withLock { $0 } }
    func add(_ name: String, _ reason: String) { items.withLock { if $0[PathKey(name)] == nil { $0[PathKey(name)] = reason } } }
}
