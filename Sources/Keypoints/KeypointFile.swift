import FileSystem
import Foundation

/// A keypoint file (`handpose/keypoints@1`, `@2` when it holds bodies, `@3` when it holds faces): every decoded frame of one
/// clip or image and the hands (and, with `extract --body`, the bodies) found in it. Every field is an explicit type of this module, documented in
/// `Keypoints/keypoints.schema.json` and `Keypoints/README.md`; no internal type of the engine is
/// stored, so a new tracker option changes no existing field. Readers ignore fields they do not know
/// and accept the optional ones missing (MediaPipe reference files have no presence, region, tool,
/// settings or models). The version is bumped only when a field changes meaning.
public struct KeypointFile: Codable, Sendable {
    public static let schemaName = "handpose/keypoints@1"
    /// Version 2 adds bodies (`Frame.bodies`) and hands tied to them (`Hand.person`). Files without
    /// bodies are still written as version 1, byte for byte as before; readers take both.
    public static let bodySchemaName = "handpose/keypoints@2"
    /// Version 3 adds faces (`Frame.faces`, `extract --holistic`): files without faces keep their version.
    public static let faceSchemaName = "handpose/keypoints@3"
    /// The versions this reader takes.
    public static let schemaNames: Set<String> = [schemaName, bodySchemaName, faceSchemaName]

    public struct Source: Codable, Sendable {
        public var path: String
        /// The input's size in bytes when its keypoints were made: another file put in its place with an
        /// older time (`cp -p`, `rsync -a`) is told apart by it. Absent in older files.
        public var bytes: UInt64?
    }
    public struct Video: Codable, Sendable {
        public var width: Int
        public var height: Int
        public var frames: Int
        public var fps: Double?
        /// What decoded the pictures: `libjpeg-turbo` (JPEG stills, EXIF orientation applied) or `ffmpeg`;
        /// absent in files made before it was recorded.
        public var decoder: String?
    }
    public struct Tool: Codable, Sendable {
        public var name: String
        public var version: String
        /// The instruction set of the inference kernels that ran (`baseline`, `avx2`, `avx512`). Recorded, not
        /// compared when resuming: they agree on stills to about 0.0001 palm sizes, along tracked clips to a
        /// few thousandths on average.
        public var kernels: String?
        public init(name: String, version: String, kernels: String? = nil) {
            self.name = name; self.version = version; self.kernels = kernels
        }
        /// This tool, as it signs the files it writes.
        public static let handpose = Tool(name: "handpose", version: "0.1.0")
    }
    public struct Hand: Codable, Sendable {
        public var chirality: Chirality
        public var handedness: Float
        public var presence: Float?
        public var landmarks: [[Float]]
        public var world: [[Float]]?
        public var region: Region?
        /// The hand's identity across frames: kept while tracking carries the hand from one frame to the
        /// next, new (counting from 0 in each file) when palm detection finds a hand again.
        public var track: Int?
        /// Set on hands `--complete` added: `backward` (the landmark model, tracking back in time from
        /// the track's later frames) or `interpolated` (no model: in time between the track's hands
        /// either side of a short gap). Absent on hands found as MediaPipe finds them. Readers treat a
        /// value they do not know as not estimated by the model in this frame.
        public var origin: String?

        /// With `extract --body`: the position in the frame's `bodies` of the person this hand belongs to
        /// (`BodyAssociation`); absent when it is near no body's hand, and then `unattached` is true.
        public var person: Int?
        /// Which of that person's arms it is on: `left` or `right` (the person's own side).
        public var arm: String?
        /// With `extract --body`: true when the hand is near no body's hand (kept, not tied).
        public var unattached: Bool?

        /// `origin`'s values.
        public static let backward = "backward", interpolated = "interpolated", fallback = "fallback"

        /// The model did not see this hand in this frame: it was filled in between the frames around it.
        public var isInterpolated: Bool { origin == Self.interpolated }

        public init(chirality: Chirality, handedness: Float, presence: Float?, landmarks: [[Float]], world: [[Float]]?,
                    region: Region?, track: Int? = nil, origin: String? = nil) {
            self.chirality = chirality; self.handedness = handedness; self.presence = presence
            self.landmarks = landmarks; self.world = world; self.region = region; self.track = track
            self.origin = origin
        }
    }
    /// One person's body in a frame (`extract --body`): MediaPipe's 33 pose landmarks (`BodyJoint`).
    public struct Body: Codable, Sendable {
        /// 33 rows of x, y (normalised to the frame) and z (MediaPipe's depth, the scale of x).
        public var landmarks: [[Float]]
        /// Per landmark, the probability that it is visible, and that it lies in the frame.
        public var visibility: [Float]
        public var presence: [Float]
        /// 33 rows of x, y, z in metres, origin at the hips' midpoint.
        public var world: [[Float]]?
        /// The landmark model's pose presence score.
        public var score: Float?
        public var region: Region?
        /// The person's identity across frames: kept while tracking carries them, new when detection
        /// finds a person again.
        public var track: Int?

        public init(landmarks: [[Float]], visibility: [Float], presence: [Float], world: [[Float]]?, score: Float?,
                    region: Region?, track: Int?) {
            self.landmarks = landmarks; self.visibility = visibility; self.presence = presence; self.world = world
            self.score = score; self.region = region; self.track = track
        }
    }

    /// One face in a frame (`extract --holistic`): MediaPipe's face mesh, 468 points (478 with the irises).
    public struct Face: Codable, Sendable {
        /// Rows of x, y (normalised to the frame) and z (MediaPipe's depth, the scale of x).
        public var landmarks: [[Float]]
        /// The mesh model's face presence score.
        public var presence: Float?
        public var region: Region?
        /// The body (index into the frame's `bodies`) the face was found from.
        public var person: Int?

        public init(landmarks: [[Float]], presence: Float?, region: Region?, person: Int?) {
            self.landmarks = landmarks; self.presence = presence; self.region = region; self.person = person
        }
        /// The face mesh's sizes: without and with the refined irises (`--refine-face`).
        public static let meshPoints = 468, refinedPoints = 478
        public static let pointCounts: Set<Int> = [meshPoints, refinedPoints]
    }

    public struct Frame: Codable, Sendable {
        public var i: Int
        public var t: Double
        public var hands: [Hand]
        /// The bodies found (`extract --body`; empty when none was); absent when bodies were not looked for.
        public var bodies: [Body]?
        /// The faces found (`extract --holistic`; empty when none was); absent when faces were not looked for.
        public var faces: [Face]?

        public init(i: Int, t: Double, hands: [Hand], bodies: [Body]? = nil, faces: [Face]? = nil) {
            self.i = i; self.t = t; self.hands = hands; self.bodies = bodies; self.faces = faces
        }
    }

    public var schema: String = schemaName
    public var source: Source
    public var video: Video
    /// Joint names in landmark order (`Joint.names`); older files may leave them out.
    public var joints: [String]? = Joint.names
    public var tool: Tool?
    public var settings: Settings?
    /// SHA-256 of each model file that made the file, by file name.
    public var models: [String: String]?
    /// Set when decoding stopped early (a truncated or damaged clip): the frames before it are kept.
    public var incomplete: Incomplete?
    /// The files written beside this one, by format name (`pose`, `csv`, `npz`): each one's size, so a
    /// cut or replaced companion is found without reading it. Nil in older files and without companions.
    public var outputs: [String: Output]?
    public var frames: [Frame]

    /// A file written beside the keypoint file, as far as telling it whole needs.
    public struct Output: Codable, Sendable, Equatable {
        public var bytes: UInt64
        public init(bytes: UInt64) { self.bytes = bytes }
    }

    /// For a file of a damaged clip (`incomplete`): where its keypoints stop and why, in the words every
    /// command that reads keypoint files uses to say that what it made covers only the frames before.
    public var incompleteNote: String? {
        guard let damage = incomplete else { return nil }
        let stop = damage.lastGoodFrame.map { "after frame \($0)" } ?? "before its first frame"
        return "incomplete: the keypoints of \(source.path) stop \(stop), where its clip is damaged (\(damage.error))"
    }

    /// Why a file holds fewer frames than its clip: the decoder's error and the last frame read.
    public struct Incomplete: Codable, Sendable, Equatable {
        public var error: String
        /// Index of the last frame decoded (nil when none was).
        public var lastGoodFrame: Int?
        public init(error: String, lastGoodFrame: Int?) { self.error = error; self.lastGoodFrame = lastGoodFrame }
    }

    public init(source: String, width: Int, height: Int, fps: Double?, frames: [Frame], tool: Tool?,
                settings: Settings?, models: [String: String]?) {
        self.source = Source(path: source, bytes: nil)
        video = Video(width: width, height: height, frames: frames.count, fps: fps)
        self.frames = frames
        self.tool = tool
        self.settings = settings
        self.models = models
    }

    /// Reads and checks a keypoint file: every hand must have 21 finite landmarks (see `check`).
    public static func load(_ url: URL) throws -> KeypointFile {
        let data: Data
        do { data = try RegularFile.read(url.path) } catch let refusal as RegularFile.Refusal {
            throw KeypointError.unreadable(path: url.path, reason: refusal.reason)
        } catch {
            throw KeypointError.unreadable(path: url.path, reason: "\(describe(error))")
        }
        return try decode(data, path: url.path)
    }

    /// Parses and checks keypoint-file bytes; `path` names them in errors.
    public static func decode(_ data: Data, path: String) throws -> KeypointFile {
        let url = URL(fileURLWithPath: path)
        do {
            let file = try JSONDecoder().decode(KeypointFile.self, from: data)
            guard schemaNames.contains(file.schema) else {
                throw KeypointError.invalid(path: url.path, reason: "schema is '\(file.schema.prefix(40))', expected \(schemaName), \(bodySchemaName) or \(faceSchemaName)")
            }
            try file.check(path: url.path)
            return file
        } catch let e as KeypointError {
            throw e
        } catch let DecodingError.dataCorrupted(ctx) {
            // JSONDecoder says only "The given data was not valid JSON." for a missing bracket and for a
            // number no Double holds (1e400, valid JSON) alike; JSONSerialization, run on failure only, says which.
            var detail = ctx.debugDescription
            var outOfRange: String?
            if ctx.codingPath.isEmpty {
                do {
                    // Valid JSON that JSONDecoder refused with no place: a number an integer field cannot hold
                    // (1e30 as a size), which it also calls "not valid JSON".
                    let huge = Self.numbersPastInt(in: try JSONSerialization.jsonObject(with: data))
                    if !huge.isEmpty {
                        outOfRange = "a number out of range"
                        detail = huge.prefix(3).map { "\($0.value) at \($0.place)" }.joined(separator: "; ") + ", past what an integer field holds"
                    }
                } catch {
                    if let d = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String { detail = d }
                }
            }
            let what = outOfRange ?? (detail.contains("not representable") ? "a number out of range" : "not valid JSON")
            throw KeypointError.invalid(path: url.path, reason: "\(what): \(detail.hasSuffix(".") ? String(detail.dropLast()) : detail)" + (ctx.codingPath.isEmpty ? "" : " at \(Self.path(ctx.codingPath))"))
        } catch let DecodingError.keyNotFound(key, ctx) {
            throw KeypointError.invalid(path: url.path, reason: "missing '\(key.stringValue)' at \(Self.path(ctx.codingPath))")
        } catch let DecodingError.valueNotFound(_, ctx) {
            throw KeypointError.invalid(path: url.path, reason: "missing value at \(Self.path(ctx.codingPath))")
        } catch let DecodingError.typeMismatch(_, ctx) {
            throw KeypointError.invalid(path: url.path, reason: "wrong type at \(Self.path(ctx.codingPath)): \(ctx.debugDescription)")
        } catch {
            throw KeypointError.invalid(path: url.path, reason: "\(error)")
        }
    }

    /// The numbers in `object` (as JSONSerialization gives it) that no Int holds, with their places, keys
    /// in sorted order; at most `depth` levels down (a keypoint file nests six).
    static func numbersPastInt(in object: Any, at place: String = "", depth: Int = 32) -> [(place: String, value: String)] {
        guard depth > 0 else { return [] }
        switch object {
        case let d as [String: Any]:
            return d.keys.sorted().flatMap { numbersPastInt(in: d[$0]!, at: place + "." + $0, depth: depth - 1) }
        case let a as [Any]:
            return a.indices.flatMap { numbersPastInt(in: a[$0], at: place + "[\($0)]", depth: depth - 1) }
        case let n as NSNumber:
            let v = n.doubleValue
            return v.isFinite && abs(v) < 0x1p63 ? [] : [(place, InputRange.wholeText(v))]
        default:
            return []
        }
    }

    static func path(_ keys: [CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
    }

    /// Shapes and values every reader relies on: 21 landmarks of 3 finite numbers per hand (world
    /// landmarks likewise when present), handedness and presence in 0...1, frame times finite and
    /// increasing, frame indices increasing. Throws `KeypointError.invalidHand` or `.invalidFrame`.
    public func check(path: String) throws {
        guard InputRange.pixels.contains(Double(video.width)), InputRange.pixels.contains(Double(video.height)) else {
            throw KeypointError.invalid(path: path, reason: "video size \(video.width)x\(video.height) is not a frame size (1 to \(Int(InputRange.pixels.upperBound)) pixels a side)")
        }
        if let fps = video.fps, !(fps.isFinite && fps >= 0 && fps <= InputRange.frameRate.upperBound) {
            throw KeypointError.invalid(path: path, reason: "video.fps \(fps) is not a frame rate (0, unknown, to \(InputRange.frameRate.upperBound))")
        }
        guard video.frames == frames.count else {
            throw KeypointError.invalid(path: path, reason: "video.frames says \(video.frames) frames but the file holds \(frames.count): it was cut short or edited")
        }
        // Every clip and image has a frame; a file of none covers nothing (a clip that could not be decoded
        // has a failure record instead, and a damaged one the frames before the damage).
        guard !frames.isEmpty else {
            throw KeypointError.invalid(path: path, reason: "it holds no frames, so it covers none of its input's: extract it again")
        }
        // Where a damaged clip's keypoints stop is its last frame: what commands say of the file comes from it.
        if let damage = incomplete, damage.lastGoodFrame != frames.last?.i {
            throw KeypointError.invalid(path: path, reason: "incomplete.lastGoodFrame is \(damage.lastGoodFrame.map(String.init) ?? "null") but its last frame is \(frames.last!.i): it was edited")
        }
        /// Landmarks in their documented ranges (`InputRange`): finite is not plausible, 1e30 is no coordinate.
        func rows(_ rows: [[Float]], _ range: ClosedRange<Double>) -> Int? {
            rows.firstIndex { $0.count != 3 || !$0.allSatisfy { $0.isFinite && range.contains(Double($0)) } }
        }
        let image = InputRange.normalizedCoordinate, world = InputRange.worldCoordinate
        let expectImage = "3 numbers within \(image.lowerBound)...\(image.upperBound) (image-normalised)"
        let expectWorld = "3 numbers within \(world.lowerBound)...\(world.upperBound) (metres)"
        var previous: Frame?
        for (position, frame) in frames.enumerated() {
            // Times may be a little negative (a container's edit list can start a clip before 0).
            guard frame.t.isFinite, InputRange.seconds.contains(abs(frame.t)), InputRange.frames.contains(Double(frame.i)) else {
                throw KeypointError.invalidFrame(path: path, frame: position, reason: "index \(frame.i) or time \(frame.t) is not valid (a frame from 0, a time within ±\(Int(InputRange.seconds.upperBound)) s)")
            }
            if let p = previous, frame.i <= p.i || frame.t <= p.t {
                throw KeypointError.invalidFrame(path: path, frame: position,
                                                reason: "frame \(frame.i) at \(frame.t)s does not follow frame \(p.i) at \(p.t)s")
            }
            previous = frame
            for (h, hand) in frame.hands.enumerated() {
                func fail(_ reason: String) -> KeypointError { .invalidHand(path: path, frame: frame.i, hand: h, reason: reason) }
                guard hand.landmarks.count == Joint.count else { throw fail("\(hand.landmarks.count) landmarks, expected \(Joint.count)") }
                if let bad = rows(hand.landmarks, image) {
                    throw fail("landmark \(bad) is \(hand.landmarks[bad].prefix(4)), expected \(expectImage)")
                }
                if let world = hand.world {
                    guard world.count == Joint.count else { throw fail("\(world.count) world landmarks, expected \(Joint.count)") }
                    if let bad = rows(world, InputRange.worldCoordinate) {
                        throw fail("world landmark \(bad) is \(world[bad].prefix(4)), expected \(expectWorld)")
                    }
                }
                guard (0...1).contains(hand.handedness) else { throw fail("handedness \(hand.handedness) is outside 0...1") }
                if let p = hand.presence, !(0...1).contains(p) { throw fail("presence \(p) is outside 0...1") }
                if let person = hand.person, !(0..<(frame.bodies?.count ?? 0)).contains(person) {
                    throw fail("person \(person) is not one of the frame's \(frame.bodies?.count ?? 0) bodies")
                }
            }
            for (b, body) in (frame.bodies ?? []).enumerated() {
                func fail(_ reason: String) -> KeypointError { .invalidFrame(path: path, frame: position, reason: "body \(b): \(reason)") }
                guard body.landmarks.count == BodyJoint.count else { throw fail("\(body.landmarks.count) landmarks, expected \(BodyJoint.count)") }
                if let bad = rows(body.landmarks, image) {
                    throw fail("landmark \(bad) is \(body.landmarks[bad].prefix(4)), expected \(expectImage)")
                }
                if let world = body.world, world.count != BodyJoint.count || rows(world, InputRange.worldCoordinate) != nil {
                    throw fail("world landmarks are not \(BodyJoint.count) rows of \(expectWorld)")
                }
                guard body.visibility.count == BodyJoint.count, body.presence.count == BodyJoint.count,
                      (body.visibility + body.presence).allSatisfy({ (0...1).contains($0) }) else {
                    throw fail("visibility and presence must be \(BodyJoint.count) values in 0...1 each")
                }
            }
            for (f, face) in (frame.faces ?? []).enumerated() {
                func fail(_ reason: String) -> KeypointError { .invalidFrame(path: path, frame: position, reason: "face \(f): \(reason)") }
                guard Face.pointCounts.contains(face.landmarks.count) else {
                    throw fail("\(face.landmarks.count) landmarks, expected \(Face.pointCounts.sorted().map(String.init).joined(separator: " or "))")
                }
                if let bad = rows(face.landmarks, image) {
                    throw fail("landmark \(bad) is \(face.landmarks[bad].prefix(4)), expected \(expectImage)")
                }
                if let p = face.presence, !(0...1).contains(p) { throw fail("presence \(p) is outside 0...1") }
                if let person = face.person, !(0..<(frame.bodies?.count ?? 0)).contains(person) {
                    throw fail("person \(person) is not one of the frame's \(frame.bodies?.count ?? 0) bodies")
                }
            }
        }
    }

    /// Where `write(to:)` puts the bytes before renaming them to `url` (see `AtomicFile.temporaryURL`).
    public static func temporaryURL(for url: URL, pid: Int32 = getpid()) -> URL {
        AtomicFile.temporaryURL(for: url, pid: pid)
    }

    /// Writes the file atomically: `temporaryURL(for:)` first, then a rename (see `KeypointFileWriter`).
    public func write(to url: URL) throws {
        let writer = try KeypointFileWriter(url: url)
        for frame in frames { try writer.append(frame) }
        try writer.finish(self)
    }
}

/// Errors of reading and writing keypoint files; each names the file and, where it applies, the frame
/// and hand.
public enum KeypointError: Error, CustomStringConvertible, Equatable {
    case unreadable(path: String, reason: String)
    case invalid(path: String, reason: String)
    case unwritable(path: String, reason: String)
    /// A frame (its position in the file) that breaks the format's rules.
    case invalidFrame(path: String, frame: Int, reason: String)
    /// A hand (`hand`, from 0) of frame `frame` whose shapes or values break the format's rules.
    case invalidHand(path: String, frame: Int, hand: Int, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let p, let r): return "\(p): cannot be read (\(r))."
        case .invalid(let p, let r): return "\(p): \(r)."
        case .unwritable(let p, let r): return "\(p): cannot be written (\(r))."
        case .invalidFrame(let p, let f, let r): return "\(p): frame \(f): \(r)."
        case .invalidHand(let p, let f, let h, let r): return "\(p): frame \(f), hand \(h): \(r)."
        }
    }
}
