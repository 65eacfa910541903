import BodyLandmarks
import FileSystem
import Foundation
import HandLandmarks
import HolisticLandmarks
import Inference
import KeypointFormats
import Keypoints
import Landmarking
import VideoIO

/// Runs the hand tracker over every frame of a clip or image, decoding on a second thread ahead of
/// inference so decode and inference overlap.
public enum KeypointExtraction {
    /// What a streamed extraction wrote.
    public struct Outcome: Sendable {
        public var frames: Int
        public var hands: Int
        public var incomplete: KeypointFile.Incomplete?
        public var profile: Profile
    }

    /// Where an extraction's time went (`bench extract --profile`). Decoding runs on its own thread,
    /// beside the rest, so the parts may add up to more than `wall`.
    public struct Profile: Sendable {
        public var frames = 0
        public var decoding = VideoReader.Timings()
        public var tracker = HandTracker.Timings()
        /// With `--holistic`: its body, hands and face.
        public var holistic = HolisticTracker.Timings()
        /// Frames handed to the outputs (keypoint file and other formats).
        public var writing: Duration = .zero
        public var wall: Duration = .zero

        public init() {}

        /// Adds another extraction's times (the profile of several clips).
        public mutating func add(_ other: Profile) {
            frames += other.frames
            wall += other.wall
            writing += other.writing
            decoding.decode += other.decoding.decode
            decoding.convert += other.decoding.convert
            let t = other.tracker
            tracker.letterbox += t.letterbox; tracker.palmModel += t.palmModel; tracker.palmDecode += t.palmDecode
            tracker.crop += t.crop; tracker.landmarkModel += t.landmarkModel; tracker.landmarkDecode += t.landmarkDecode
            tracker.tracking += t.tracking
            tracker.palmRuns += t.palmRuns
            tracker.landmarkRuns += t.landmarkRuns
            holistic.add(other.holistic)
        }
    }

    /// Extracts into a keypoint file at `output`, frame by frame: memory stays flat however long the
    /// clip. `progress` is called after each frame with the number of frames done. A clip whose data is
    /// damaged or cut short keeps the frames decoded before the damage: the file is written marked
    /// `incomplete` with the decoder's error. A file that yields no frame at all, or an inference error,
    /// throws and leaves nothing behind. `decodeThreads`: FFmpeg's threads (0: FFmpeg chooses).
    /// `settings`: what to make (nil: the tracker's hands, with the body when `body` is given, nothing after tracking).
    public static func extract(_ url: URL, sourcePath: String, tracker: HandTracker, body: BodyTracker? = nil, settings: ExtractionSettings? = nil,
                               tool: KeypointFile.Tool, to output: URL, decodeThreads: Int = 0, progress: (Int) -> Void = { _ in }) throws -> Outcome {
        try extract(url, sourcePath: sourcePath, tracker: tracker, body: body, settings: settings ?? .init(tracker, body), tool: tool,
                    into: KeypointOutputs(outputs: [try KeypointFileWriter(url: output)]), decodeThreads: decodeThreads, progress: progress)
    }

    /// The same into every output of `formats` under `root` at once (`OutputFormat.url(for:in:)` of
    /// `sourcePath`): each frame goes to each as it completes; all are renamed into place together.
    /// `tracker` may be nil only for Holistic without `--hand-fallback` (`holistic` and `settings` given), which
    /// runs no palm detection: a worker then never plans the hand tracker's models.
    public static func extract(_ url: URL, sourcePath: String, tracker: HandTracker?, body: BodyTracker? = nil, holistic: HolisticTracker? = nil,
                               settings: ExtractionSettings? = nil,
                               tool: KeypointFile.Tool, formats: [OutputFormat], root: URL, decodeThreads: Int = 0,
                               progress: (Int) -> Void = { _ in }) throws -> Outcome {
        let settings = settings ?? .init(tracker!, body)
        return try extract(url, sourcePath: sourcePath, tracker: tracker, body: body, holistic: holistic, settings: settings, tool: tool,
                    into: KeypointOutputs(formats: formats, relative: sourcePath, root: root,
                                          completed: settings.completes || settings.holistic?.handFallback == true,
                                          bodies: body == nil ? 0 : settings.body?.maxBodies ?? 1, holistic: holistic != nil,
                                          facePoints: holistic?.facePoints ?? KeypointFile.Face.meshPoints),
                    decodeThreads: decodeThreads, progress: progress)
    }

    static func extract(_ url: URL, sourcePath: String, tracker: HandTracker?, body: BodyTracker?, holistic: HolisticTracker? = nil,
                        settings: ExtractionSettings, tool: KeypointFile.Tool,
                        into outputs: KeypointOutputs, decodeThreads: Int, progress: (Int) -> Void) throws -> Outcome {
        var hands = 0, frames = 0
        do {
            var (header, profile) = try run(url, sourcePath: sourcePath, tracker: tracker, body: body, holistic: holistic, settings: settings, tool: tool,
                                            decodeThreads: decodeThreads,
                                            progress: progress) { frame in
                hands += frame.hands.count
                frames += 1
                try outputs.append(frame)
            }
            header.video.frames = frames
            let start = ContinuousClock.now
            try outputs.finish(header)
            profile.writing += ContinuousClock.now - start
            profile.wall += ContinuousClock.now - start
            return Outcome(frames: frames, hands: hands, incomplete: header.incomplete, profile: profile)
        } catch {
            outputs.abandon()
            throw error
        }
    }

    /// The same, kept in memory: the whole file comes back.
    public static func extract(_ url: URL, sourcePath: String, tracker: HandTracker, body: BodyTracker? = nil, holistic: HolisticTracker? = nil,
                               settings: ExtractionSettings? = nil,
                               tool: KeypointFile.Tool, progress: (Int) -> Void = { _ in }) throws -> KeypointFile {
        var frames: [KeypointFile.Frame] = []
        var (file, _) = try run(url, sourcePath: sourcePath, tracker: tracker, body: body, holistic: holistic,
                                settings: settings ?? .init(tracker, body), tool: tool,
                                decodeThreads: 0, progress: progress) { frames.append($0) }
        file.frames = frames
        file.video.frames = frames.count
        return file
    }

    /// Decodes on a second thread ahead of inference; hands each frame's keypoints to
    /// `sink`; returns the file's header (everything but its frames) and where the time went.
    /// `decoderEnded` is told how many frames the decoding thread decoded, once it has ended (for tests:
    /// a failed clip must not be decoded to its end).
    /// `body`: the body pipeline, run on every frame beside the hands, each hand then tied to a body
    /// (`BodyAssociation`) once the hands are final (after `--complete` and `--smooth`).
    /// `holistic`: MediaPipe Holistic in place of `tracker` and `body` (`--holistic`): its body, hands and face.
    static func run(_ url: URL, sourcePath: String, tracker: HandTracker?, body: BodyTracker? = nil, holistic: HolisticTracker? = nil,
                    settings: ExtractionSettings? = nil,
                    tool: KeypointFile.Tool, decodeThreads: Int,
                    progress: (Int) -> Void, decoderEnded: (_ framesDecoded: Int) -> Void = { _ in },
                    sink: (KeypointFile.Frame) throws -> Void) throws -> (KeypointFile, Profile) {
        let start = ContinuousClock.now
        var profile = Profile()
        let settings = settings ?? .init(tracker!, body)
        precondition((holistic != nil) == (settings.holistic != nil), "a Holistic tracker comes with Holistic's settings")
        let handTracker = settings.runsHandTracker ? tracker : nil
        precondition(handTracker != nil || !settings.runsHandTracker, "extraction without Holistic, and Holistic with --hand-fallback, run the hand tracker")
        precondition(holistic == nil || !settings.completes, "--complete follows the hand tracker's tracks, not Holistic's")
        let reader = try VideoReader(url: url, threads: decodeThreads)
        if let handTracker {
            if handTracker.options != settings.hands { handTracker.options = settings.hands }
            handTracker.reset()
        }
        // The body pipeline follows the hands' mode (a still is in image mode for both).
        if let body, let options = settings.bodyOptions { body.options = options }
        holistic?.reset()
        // One decoded frame waits (and one more is converted meanwhile): decoding takes a few ms a frame
        // against 25-30 of inference, so a deeper queue only held more frames (6 MB each at 1080p) with
        // no measurable gain in `bench extract`.
        let queue = FrameQueue(capacity: 1)
        // Ends when the clip does, or at the first push after inference gave up on the clip (`cancel`):
        // decoding the rest of a failed clip would only keep a core busy.
        let decoded = DecodeCount()
        let handoff = DecoderHandoff(reader: reader)
        let decoder = Thread {
            do {
                while let f = try handoff.reader.nextFrame() {
                    decoded.value += 1
                    guard queue.push(.frame(f)) else { break }
                }
                _ = queue.push(.end)
            } catch {
                _ = queue.push(.failed(error))
            }
            decoded.ended.signal()
        }
        decoder.stackSize = 1 << 20
        decoder.start()
        // Whatever happens below, the reader is not touched again until the decoding thread has ended.
        defer {
            queue.cancel()
            decoded.ended.wait()
            decoderEnded(decoded.value)
        }
        // `--smooth` holds each frame until the frames after it are known (a few, see TrackSmoother).
        let smoothing = settings.smooths && !reader.info.isStillImage
        let rate = reader.info.averageFrameRate > 0 ? reader.info.averageFrameRate : reader.info.nominalFrameRate
        var smoother = smoothing ? TrackSmoother(frameRate: rate) : TrackSmoother(radius: 0)
        func write(_ frames: [TrackedFrame]) throws {
            let writing = ContinuousClock.now
            for f in frames {
                var frame = KeypointFile.Frame(i: f.index, t: (f.time * 1e6).rounded() / 1e6, hands: f.hands.map(KeypointFile.Hand.init),
                                               bodies: f.bodies, faces: f.faces)
                if holistic == nil {
                    BodyAssociation.tie(&frame, width: reader.info.width, height: reader.info.height)
                } else {
                    // Holistic finds each hand from the body's arm: it is that person's, on that side.
                    for h in frame.hands.indices {
                        frame.hands[h].person = 0
                        frame.hands[h].arm = frame.hands[h].chirality.rawValue
                    }
                }
                try sink(frame)
            }
            profile.writing += ContinuousClock.now - writing
        }
        // `--complete` keeps the clip's hands until it has been read (see `complete`).
        let completing = settings.completes && !reader.info.isStillImage
        var held: [TrackedFrame] = []
        var count = 0
        var last: Int?
        var failure: Error?
        var damage: VideoError?
        func take(_ frame: TrackedFrame) throws {
            if completing { held.append(frame) } else { try write(smoother.push(frame)) }
            count += 1
            last = frame.index
            progress(count)
        }
        // Holistic hands a frame back when its hands and face are found, which may be after the next frame
        // has come in (`HolisticTracker.frames`).
        func takeHolistic(_ f: VideoFrame, _ found: HolisticObservation) throws {
            var hands = [found.leftHand, found.rightHand].compactMap { $0 }
            let person = found.body.map { KeypointFile.Body($0) }
            // The fallback's tracker sees every frame, so it tracks as it would alone.
            let tracked = try handTracker?.process(f) ?? []
            if let person, !tracked.isEmpty {
                hands += HolisticFallback.fill(hands, tracked: tracked, body: person, width: f.width, height: f.height)
            }
            try take(TrackedFrame(index: f.index, time: f.time, hands: hands, bodies: person.map { [$0] } ?? [],
                                  faces: found.face.map { [KeypointFile.Face($0, person: 0)] } ?? []))
        }
        // `--body`'s tracker on a thread beside the hand tracker's while the share is two threads or more.
        var bodyStage: StageThread<[BodyObservation]>?
        defer { bodyStage?.stop() }
        loop: while true {
            switch queue.pop() {
            case .frame(let f):
                do {
                    if let holistic {
                        try holistic.frames(f, emit: takeHolistic)
                    } else {
                        let (hands, bodies) = try handsAndBodies(f, hands: handTracker!, body: body, beside: &bodyStage)
                        try take(TrackedFrame(index: f.index, time: f.time, hands: hands,
                                              bodies: bodies?.map { KeypointFile.Body($0, mirrored: handTracker!.options.mirrored) }))
                    }
                } catch {
                    failure = error
                    // A frame still with Holistic's second thread is waited for and dropped: the clip has failed.
                    holistic?.reset()
                    break loop
                }
            case .end:
                do { try holistic?.finish(emit: takeHolistic) } catch { failure = error }
                break loop
            case .failed(let e):
                do { try holistic?.finish(emit: takeHolistic) } catch {
                    failure = error
                    break loop
                }
                if let e = e as? VideoError, count > 0 { damage = e } else { failure = e }
                break loop
            }
        }
        if let failure { throw failure }
        if completing {
            try complete(&held, url: url, tracker: handTracker!, width: reader.info.width, height: reader.info.height, decodeThreads: decodeThreads)
            for frame in held { try write(smoother.push(frame)) }
        }
        // The last frames, smoothed with what came before them; also when decoding stopped at damage, so
        // an incomplete file holds every frame that was read.
        try write(smoother.finish())
        // A file FFmpeg opens but yields no frame from (text named .png, an empty stream) is not a clip
        // with no hands: it fails like any unreadable file, and no keypoint file claims it was read.
        guard count > 0 else {
            let info = reader.info
            // FFmpeg refuses a frame too large to address (an image bomb) without a word: say so, not "damaged".
            if info.width <= 0 || info.height <= 0 {
                throw VideoError.corrupt(path: url.path, frame: 0, time: nil, ffmpeg: "its header gives no picture size (\(info.width)x\(info.height)) and no frame decodes")
            }
            if !VideoReader.decodableSize(width: info.width, height: info.height) {
                throw VideoError.unreadable(path: url.path, ffmpeg: "its frames are \(info.width)x\(info.height) pixels, larger than FFmpeg decodes: refused for size")
            }
            throw VideoError.corrupt(path: url.path, frame: 0, time: nil, ffmpeg: "no frame could be decoded")
        }
        let info = reader.info
        var tool = tool
        tool.kernels = handTracker?.kernels ?? holistic!.kernels
        var file = KeypointFile(source: sourcePath, width: info.width, height: info.height,
                                fps: info.isStillImage ? nil : info.averageFrameRate, frames: [], tool: tool,
                                settings: KeypointFile.Settings(settings),
                                models: Self.models(tracker: handTracker, body: body, holistic: holistic, settings: settings))
        file.video.decoder = info.decoder
        // The file read must still be the one at the path: one replaced, rewritten or grown meanwhile (a copy or a
        // recording still being written) would leave keypoints of other bytes that later runs take as up to date.
        let now = RegularFile.stamp(url.path)
        if let opened = reader.opened, now != opened {
            let reason: String
            if let now, now.sameFile(as: opened) {
                reason = "changed while it was read (\(opened.bytes) bytes when opened, \(now.bytes) now); run again once it is complete"
            } else if now != nil {
                reason = "was replaced by another file while it was read; run again to extract the new one"
            } else {
                reason = "was removed while it was read"
            }
            throw ExtractionError.input(path: url.path, reason: reason)
        }
        file.source.bytes = now?.bytes
        if body != nil { file.schema = KeypointFile.bodySchemaName }
        if holistic != nil { file.schema = KeypointFile.faceSchemaName }
        if let damage { file.incomplete = .init(error: damage.description, lastGoodFrame: last) }
        // The decoding thread has ended (it pushed .end or .failed last), so its timings are final.
        profile.frames = count
        profile.decoding = reader.timings
        profile.tracker = handTracker?.timings ?? .init()
        if let holistic { profile.holistic = holistic.timings }
        profile.wall = ContinuousClock.now - start
        return (file, profile)
    }
}

extension KeypointExtraction {
    /// A frame's hands and, with `body`, its bodies. While the process's share (`ThreadShare`, up to the
    /// hand tracker's threads) is two threads or more, the body tracker runs on `beside` (made on first need)
    /// while the hand tracker runs here, each on half the share: the two follow their own tracks and
    /// read nothing of each other's, so the values are those of one after the other. An error is the hand
    /// tracker's first, as one after the other.
    static func handsAndBodies(_ f: VideoFrame, hands: HandTracker, body: BodyTracker?,
                               beside: inout StageThread<[BodyObservation]>?) throws -> ([HandObservation], [BodyObservation]?) {
        let share = min(hands.threads, ThreadShare.forThisThread)
        guard let body, share >= 2 else { return (try hands.process(f), try body?.process(f)) }
        let (stage, second) = StageThread.split(&beside, share: share)
        stage.start { try ThreadShare.capped(second) { try body.process(f) } }
        let found = Result { try ThreadShare.capped(share - second) { try hands.process(f) } }
        let bodies = stage.wait()
        return (try found.get(), try bodies.get())
    }

    /// The models that made a file, by file name: the hand tracker's, the body's beside them; Holistic's
    /// alone, or with the hand tracker's under `--hand-fallback`. `ExtractionPipeline.modelIdentity` asks the same.
    static func models(tracker: HandTracker?, body: BodyTracker?, holistic: HolisticTracker?, settings: ExtractionSettings) -> [String: String] {
        guard let holistic else { return tracker!.models.hashes.merging(body?.models.hashes ?? [:]) { a, _ in a } }
        guard settings.holistic?.handFallback == true, let tracker else { return holistic.models.hashes }
        return holistic.models.hashes.merging(tracker.models.hashes) { a, _ in a }
    }

    /// `--complete` on a clip's hands as tracked (`frames`, every decoded frame in order): a second
    /// decoding pass holds the frames within `SequenceCompletion.backwardReach` before each track's start
    /// (no more: 30 frames at 30 fps) and tracks each start backwards through them; then tracks are
    /// joined, gaps filled and chirality voted. If the second pass cannot decode a frame the first did (or
    /// decodes another), backward tracking stops there; the rest of the completion still runs.
    static func complete(_ frames: inout [TrackedFrame], url: URL, tracker: HandTracker, width: Int, height: Int,
                         decodeThreads: Int) throws {
        let completion = SequenceCompletion(maxHands: tracker.options.maxHands, width: width, height: height)
        let starts = SequenceCompletion.starts(frames)
        if !starts.isEmpty, let reader = try? VideoReader(url: url, threads: decodeThreads) {
            var held: [Int: VideoFrame] = [:]
            var decoded = 0
            var next = 0
            decoding: while next < starts.count {
                let position = starts[next].position
                while decoded < position {
                    guard let f = try? reader.nextFrame(), f.index == frames[decoded].index else { break decoding }
                    if decoded >= starts[next].earliest { held[decoded] = f }
                    decoded += 1
                }
                while next < starts.count && starts[next].position == position {
                    try completion.extendBackward(&frames, from: starts[next]) { p, later in
                        try held[p].flatMap { try tracker.trackBackward($0, from: later) }
                    }
                    next += 1
                }
                // Frames no later start reaches back to are let go (`earliest` grows with the position).
                if next < starts.count { held = held.filter { $0.key >= starts[next].earliest } }
            }
        }
        completion.finish(&frames)
    }
}

/// A bounded hand-over of decoded frames between the decoding thread and inference. The consumer
/// may `cancel` it: the items waiting are dropped, and every push from then on returns false at once,
/// so the producer is never left blocked on a full queue and knows to stop.
/// Unchecked: every access to `items` and `cancelled` holds `condition`'s lock.
final class FrameQueue: @unchecked Sendable {
    enum Item { case frame(VideoFrame), end, failed(Error) }
    private var items: [Item] = []
    private var cancelled = false
    private let capacity: Int
    private let condition = NSCondition()

    init(capacity: Int) { self.capacity = capacity }

    /// Waits for room and adds `item`; false (the item dropped) once the queue is cancelled.
    @discardableResult
    func push(_ item: Item) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while items.count >= capacity && !cancelled { condition.wait() }
        if cancelled { return false }
        items.append(item)
        condition.broadcast()
        return true
    }

    func pop() -> Item {
        condition.lock()
        while items.isEmpty { condition.wait() }
        let item = items.removeFirst()
        condition.broadcast()
        condition.unlock()
        return item
    }

    /// No more items are wanted: drops those waiting and releases a producer blocked in `push`.
    func cancel() {
        condition.lock()
        cancelled = true
        items.removeAll()
        condition.broadcast()
        condition.unlock()
    }
}

/// The reader handed to the decoding thread, which alone uses it until it ends (`run` waits for that
/// before it returns): one owner at a time, which the compiler cannot see, hence unchecked.
private struct DecoderHandoff: @unchecked Sendable {
    let reader: VideoReader
}

/// Frames the decoding thread decoded, read only after `ended` is signalled.
/// Unchecked: `value` is written by the decoding thread alone and read after `ended`, which orders the two.
private final class DecodeCount: @unchecked Sendable {
    var value = 0
    let ended = DispatchSemaphore(value: 0)
}

extension ExtractionSettings {
    /// What a tracker (and a body tracker beside it) make alone: their settings, nothing after tracking.
    init(_ tracker: HandTracker, _ body: BodyTracker?) {
        self.init(hands: tracker.options, body: body?.options)
    }
}
