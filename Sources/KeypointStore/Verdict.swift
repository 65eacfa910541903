import FileSystem
import Foundation
import KeypointFormats
import Keypoints

/// Whether an input's keypoints may be used, decided in one place for `extract` (which inputs to
/// skip), `status` (what to report) and `export` (what to accept, refuse or extract now).
public struct Verdict: Sendable {
    public enum State: String, Codable, Sendable, CaseIterable {
        /// Keypoints present, complete, newer than the input, made as asked.
        case done
        /// No keypoint file (or a format asked for is not beside it).
        case missing
        /// No keypoint file, and a failure record says why.
        case failed
        /// Made as asked, but the clip is damaged: the frames before the damage. Kept by `extract`
        /// unless --overwrite; refused by `export`.
        case incomplete
        /// The input changed after its keypoints were made (or cannot be read now).
        case stale
        case otherSettings = "other-settings"
        case otherModels = "other-models"
        /// A keypoint file that cannot be read.
        case unreadable

        /// `extract` without --overwrite makes this input's keypoints again.
        public var redoneByExtract: Bool { self != .done && self != .incomplete }
    }

    public var state: State
    /// Why, in a phrase (the failure recorded, the settings that differ, the decoder's error).
    public var reason: String?
    /// For `otherSettings`: each recorded setting that differs from the one asked for (empty when the
    /// difference is not a setting, such as the still-image decoder).
    public var differences: [KeypointFile.Settings.Difference] = []
    /// What the keypoint file holds, when it could be read (or its index line still applies).
    public var summary: KeypointSummary?
    /// The keypoint file itself, when the verdict read it (not when the summary came from an index).
    public var file: KeypointFile?

    public init(_ state: State, reason: String? = nil) { self.state = state; self.reason = reason }

    /// `reason`, with each settings difference's field named by `label` (the tool passes its flag table).
    public func reason(label: (KeypointFile.Settings.Field) -> String) -> String? {
        differences.isEmpty ? reason : differences.map { $0.described(label: label) }.joined(separator: "; ")
    }
}

/// What a keypoint file says of itself, as far as a verdict and an index need it: read from the file,
/// or from an index line written from the same file earlier (same size and time).
public struct KeypointSummary: Codable, Equatable, Sendable {
    public var frames: Int
    public var hands: Int
    public var framesWithHand: Int
    public var settings: KeypointFile.Settings?
    public var models: [String: String]?
    /// The still-image decoder that read the input (`KeypointFile.Video.decoder`).
    public var decoder: String?
    /// The decoder's error when the clip was damaged.
    public var incomplete: String?
    /// The sizes of the files written beside it, by format name (`KeypointFile.outputs`).
    public var outputs: [String: UInt64]?
    /// The input's size when the keypoints were made (`KeypointFile.Source.bytes`).
    public var inputBytes: UInt64?
    /// Size and modification time (seconds since 1970) of the keypoint file summarised.
    public var bytes: UInt64
    public var modified: Double

    public init(frames: Int, hands: Int, framesWithHand: Int, bytes: UInt64, modified: Double) {
        self.frames = frames; self.hands = hands; self.framesWithHand = framesWithHand
        self.bytes = bytes; self.modified = modified
    }

    public init(_ file: KeypointFile, bytes: UInt64, modified: Double) {
        frames = file.frames.count
        hands = file.frames.reduce(0) { $0 + $1.hands.count }
        framesWithHand = file.frames.filter { !$0.hands.isEmpty }.count
        settings = file.settings
        models = file.models
        decoder = file.video.decoder
        incomplete = file.incomplete?.error
        outputs = file.outputs?.mapValues(\.bytes)
        inputBytes = file.source.bytes
        self.bytes = bytes
        self.modified = modified
    }
}

/// What the keypoints of an input must have been made with.
public struct KeypointRequest: Sendable {
    /// The settings asked for this input (a still's differ from a clip's).
    public var settings: KeypointFile.Settings
    /// File name to SHA-256 of the models asked for; nil when they are not known here (not checked).
    public var models: [String: String]?
    /// The formats that must be beside the keypoint file (json itself is implied).
    public var formats: [OutputFormat]

    public init(settings: KeypointFile.Settings, models: [String: String]?, formats: [OutputFormat] = [.json]) {
        self.settings = settings
        self.models = models
        self.formats = formats
    }
}

extension KeypointFolder {
    /// The verdict on the keypoints of `input` (whose path relative to its input folder is `relative`).
    /// The checks, in order, each deciding when it fails:
    /// 1. no keypoint file: `failed` when a failure record says why, else `missing`;
    /// 2. the file cannot be read: `unreadable`;
    /// 3. the input is newer than the file, its time cannot be read, or it is not the size it had when the
    ///    keypoints were made (another file put in its place with an older time): `stale`;
    /// 4. settings other than asked, none recorded, or a JPEG still read before libjpeg-turbo decoded
    ///    them (other pixels, no EXIF orientation): `otherSettings`;
    /// 5. models other than asked (when known): `otherModels`;
    /// 6. a format asked for is absent, older than the input, or not the size its keypoint file records
    ///    (cut or replaced): `missing`;
    /// 7. the clip was damaged: `incomplete`;
    /// otherwise `done`. A readable keypoint file stands even if a later attempt (--overwrite) failed:
    /// failure records count only for inputs without one. `cached` may give the summary of a keypoint
    /// file of this size and time from an earlier index, so it is not read again.
    public func verdict(for input: URL, relative: String, asked: KeypointRequest,
                        cached: ((UInt64, Double) -> KeypointSummary?)? = nil) -> Verdict {
        let fm = FileManager.default
        let url = keypointURL(for: relative)
        guard let attributes = try? fm.attributesOfItem(atPath: url.path),
              let modifiedDate = attributes[.modificationDate] as? Date else {
            if let failure = FailureRecord.load(for: relative, in: self) {
                return Verdict(.failed, reason: failure.reason + " (\(failure.host), \(failure.time))")
            }
            return Verdict(.missing)
        }
        let bytes = (attributes[.size] as? NSNumber)?.uint64Value ?? 0
        let modified = modifiedDate.timeIntervalSince1970
        var verdict = Verdict(.done)
        // An index line from before decoders were recorded cannot tell a JPEG still's decoder: read the file.
        if let summary = cached?(bytes, modified), summary.decoder != nil || !Self.isJPEG(input) {
            verdict.summary = summary
        } else {
            do {
                let file = try KeypointFile.load(url)
                verdict.file = file
                verdict.summary = KeypointSummary(file, bytes: bytes, modified: modified)
            } catch {
                return Verdict(.unreadable, reason: "\(error)")
            }
        }
        let summary = verdict.summary!
        func fail(_ state: Verdict.State, _ reason: String) -> Verdict {
            verdict.state = state
            verdict.reason = reason
            return verdict
        }
        guard let inputFacts = RegularFile.facts(input.path) else {
            return fail(.stale, "the input cannot be read")
        }
        let inputModified = inputFacts.modified
        if inputModified > modifiedDate { return fail(.stale, "the input changed after its keypoints were made") }
        if let made = summary.inputBytes, inputFacts.bytes != made {
            return fail(.stale, "the input is \(inputFacts.bytes) bytes, but its keypoints were made from one of \(made) (another file in its place?)")
        }
        guard let settings = summary.settings else {
            return fail(.otherSettings, "no extraction settings recorded (not made by handpose extract?)")
        }
        if settings != asked.settings {
            verdict.differences = settings.differences(from: asked.settings)
            return fail(.otherSettings, verdict.differences.map(\.description).joined(separator: "; "))
        }
        if Self.isJPEG(input) && summary.decoder == nil {
            return fail(.otherSettings, "decoder: FFmpeg's, before JPEG stills were read by libjpeg-turbo with their EXIF orientation")
        }
        if let models = asked.models, summary.models != models {
            guard let made = summary.models else { return fail(.otherModels, "no models recorded") }
            let names = made.keys.sorted().joined(separator: ", ")
            return fail(.otherModels, Set(made.keys) == Set(models.keys) ? names + " with other contents (SHA-256)" : names)
        }
        for format in asked.formats where format != .json {
            let companion = self.url(for: relative, format: format)
            // Its own size and time, behind a link if it is one; a folder or a FIFO in its place is none.
            guard let found = RegularFile.facts(companion.path) else {
                return fail(.missing, "no \(format.suffix) file beside its keypoints")
            }
            guard found.modified >= inputModified else {
                return fail(.missing, "its \(format.suffix) file is older than the input (made for another version of it)")
            }
            let size = found.bytes
            if let recorded = summary.outputs?[format.rawValue], size != recorded {
                return fail(.missing, "its \(format.suffix) file is \(size) bytes where its keypoint file records \(recorded) (cut or replaced)")
            }
        }
        if let damage = summary.incomplete { return fail(.incomplete, damage) }
        return verdict
    }

    /// JPEG stills are read by libjpeg-turbo (with EXIF orientation); files made before record no decoder.
    static func isJPEG(_ url: URL) -> Bool { ["jpg", "jpeg"].contains(url.pathExtension.lowercased()) }
}
