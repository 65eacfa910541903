import Foundation
import HandLandmarks

/// A keypoint file (`handpose/keypoints@1`): every decoded frame of one clip or image and the hands
/// found in it. MediaPipe reference files in `../shared/corpus/reference` share the layout; our own
/// add presence, region, settings, model hashes and the tool version.
public struct KeypointFile: Codable, Sendable {
    public static let schemaName = "handpose/keypoints@1"

    public struct Source: Codable, Sendable { public var path: String }
    public struct Video: Codable, Sendable {
        public var width: Int
        public var height: Int
        public var frames: Int
        public var fps: Double?
    }
    public struct Tool: Codable, Sendable {
        public var name: String
        public var version: String
        public init(name: String, version: String) { self.name = name; self.version = version }
    }
    public struct Hand: Codable, Sendable {
        public var chirality: Chirality
        public var handedness: Float
        public var presence: Float?
        public var landmarks: [[Float]]
        public var world: [[Float]]?
        public var region: RegionOfInterest?

        public init(chirality: Chirality, handedness: Float, presence: Float?, landmarks: [[Float]], world: [[Float]]?, region: RegionOfInterest?) {
            self.chirality = chirality; self.handedness = handedness; self.presence = presence
            self.landmarks = landmarks; self.world = world; self.region = region
        }
    }
    public struct Frame: Codable, Sendable {
        public var i: Int
        public var t: Double
        public var hands: [Hand]

        public init(i: Int, t: Double, hands: [Hand]) { self.i = i; self.t = t; self.hands = hands }
    }

    public var schema: String = schemaName
    public var source: Source
    public var video: Video
    public var joints: [String] = Joint.names
    public var tool: Tool?
    public var settings: HandTrackerOptions?
    public var models: [String: String]?
    public var frames: [Frame]

    public init(source: String, width: Int, height: Int, fps: Double?, frames: [Frame], tool: Tool?,
                settings: HandTrackerOptions?, models: [String: String]?) {
        self.source = Source(path: source)
        video = Video(width: width, height: height, frames: frames.count, fps: fps)
        self.frames = frames
        self.tool = tool
        self.settings = settings
        self.models = models
    }

    public static func load(_ url: URL) throws -> KeypointFile {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw DatasetError.unreadable(path: url.path, reason: error.localizedDescription)
        }
        do {
            let file = try JSONDecoder().decode(KeypointFile.self, from: data)
            guard file.schema == schemaName else {
                throw DatasetError.invalid(path: url.path, reason: "schema is '\(file.schema)', expected \(schemaName)")
            }
            return file
        } catch let e as DatasetError {
            throw e
        } catch let DecodingError.dataCorrupted(ctx) {
            throw DatasetError.invalid(path: url.path, reason: "not valid JSON: \(ctx.debugDescription)")
        } catch let DecodingError.keyNotFound(key, ctx) {
            throw DatasetError.invalid(path: url.path, reason: "missing '\(key.stringValue)' at \(Self.path(ctx.codingPath))")
        } catch let DecodingError.typeMismatch(_, ctx) {
            throw DatasetError.invalid(path: url.path, reason: "wrong type at \(Self.path(ctx.codingPath)): \(ctx.debugDescription)")
        } catch {
            throw DatasetError.invalid(path: url.path, reason: "\(error)")
        }
    }

    static func path(_ keys: [CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
    }

    /// Writes the file atomically: a temporary name beside it, then a rename.
    public func write(to url: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try encoder.encode(self).write(to: url, options: .atomic)
        } catch {
            throw DatasetError.unwritable(path: url.path, reason: error.localizedDescription)
        }
    }
}

extension KeypointFile.Hand {
    public init(_ h: HandObservation) {
        func rounded(_ p: Point3) -> [Float] { [p.x, p.y, p.z].map { ($0 * 1e6).rounded() / 1e6 } }
        self.init(chirality: h.chirality, handedness: (h.handedness * 1e5).rounded() / 1e5,
                  presence: (h.presence * 1e5).rounded() / 1e5,
                  landmarks: h.landmarks.map(rounded), world: h.world.map(rounded), region: h.region)
    }

    /// Landmark `j` in pixels of a `width` x `height` frame.
    public func pixel(_ j: Int, width: Int, height: Int) -> SIMD2<Double> {
        SIMD2(Double(landmarks[j][0]) * Double(width), Double(landmarks[j][1]) * Double(height))
    }
}

/// Errors of the Datasets module; each names the file and, where it applies, the frame.
public enum DatasetError: Error, CustomStringConvertible, Equatable {
    case unreadable(path: String, reason: String)
    case invalid(path: String, reason: String)
    case unwritable(path: String, reason: String)
    case mismatch(path: String, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let p, let r): return "\(p): cannot be read (\(r))."
        case .invalid(let p, let r): return "\(p): \(r)."
        case .unwritable(let p, let r): return "\(p): cannot be written (\(r))."
        case .mismatch(let p, let r): return "\(p): \(r)."
        }
    }
}
