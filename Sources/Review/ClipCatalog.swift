import Datasets
import Extraction
import Foundation
import KeypointStore
import Keypoints
import VideoIO

/// The clips under the root and what their keypoint files say: the list's figures (those `report`
/// computes) and each clip's hands per frame, as the page draws them. Keypoint files are read once and
/// read again only when they change on disk (`handpose extract` run beside the page).
public actor ClipCatalog {
    public let clips: ReviewFolder
    public let keypoints: KeypointFolder

    public init(clips: ReviewFolder, keypoints: URL) {
        self.clips = clips
        self.keypoints = KeypointFolder(keypoints)
    }

    /// One row of the list.
    public struct Clip: Codable, Sendable {
        public var path: String
        public var kind: String
        public var labels: [String]
        public var segments: Int
        public var keypoints: Bool
        public var frames: Int?
        public var fps: Double?
        public var duration: Double?
        public var framesWithHand: Int?
        public var detectionRate: Double?
        public var longestGap: Int?
        public var longestGapSeconds: Double?

        // Figures of a clip without keypoints written as null, as the page reads them.
        public func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(path, forKey: .path)
            try c.encode(kind, forKey: .kind)
            try c.encode(labels, forKey: .labels)
            try c.encode(segments, forKey: .segments)
            try c.encode(keypoints, forKey: .keypoints)
            try c.encode(frames, forKey: .frames)
            try c.encode(fps, forKey: .fps)
            try c.encode(duration, forKey: .duration)
            try c.encode(framesWithHand, forKey: .framesWithHand)
            try c.encode(detectionRate, forKey: .detectionRate)
            try c.encode(longestGap, forKey: .longestGap)
            try c.encode(longestGapSeconds, forKey: .longestGapSeconds)
        }
    }

    /// A clip's hands, frame by frame: landmarks normalised to the frame (x from the left, y from the
    /// top), frame times on the clip's own clock, as the video element's currentTime counts it.
    public struct Hands: Codable, Sendable {
        public struct Hand: Codable, Sendable {
            public var track: Int?
            public var chirality: String
            public var handedness: Float
            public var presence: Float?
            public var landmarks: [[Float]]
            /// The keypoint file's `origin`: `backward` or `interpolated` for hands `extract --complete`
            /// added (the page draws interpolated ones dashed); absent otherwise.
            public var origin: String?
        }
        /// A body (`extract --body`): its 33 landmarks' x, y and their visibility.
        public struct Body: Codable, Sendable {
            public var track: Int?
            public var landmarks: [[Float]]
            public var visibility: [Float]
        }
        public struct Frame: Codable, Sendable {
            public var i: Int
            public var t: Double
            public var hands: [Hand]
            /// Absent when the file's bodies were not looked for.
            public var bodies: [Body]?
        }
        public var clip: String
        public var width: Int
        public var height: Int
        public var fps: Double?
        public var bones: [[Int]]
        /// The body's bones (MediaPipe's POSE_CONNECTIONS); absent when the file has no bodies.
        public var bodyBones: [[Int]]?
        public var frames: [Frame]
    }

    /// Each clip's figures, with the size and modification time of the keypoint file they came from
    /// (the files themselves are not kept: a dataset's would not fit).
    private var figures: [String: (stamp: [Int], clip: Clip)] = [:]

    /// Every clip and image under the root, by path, with the annotation labels and segment counts given.
    /// Clips reached through a symbolic link that leads out of the root are not served, so not listed.
    public func list(labels: [String: [String]], segments: [String: Int]) throws -> [Clip] {
        let found = try InputFiles.collect([clips.url.path], recursive: true)
        return found.items.filter { (try? clips.file($0.relative)) != nil }.map { item in
            var c = figuresOf(item.relative) ?? Clip(path: item.relative, kind: "", labels: [], segments: 0, keypoints: false)
            c.kind = MediaKind.isStillImage(item.url) ? "image" : "video"
            c.labels = labels[item.relative] ?? []
            c.segments = segments[item.relative] ?? 0
            return c
        }
    }

    /// The list's figures of a clip from its keypoint file (`report`'s), read again when the file changed.
    func figuresOf(_ relative: String) -> Clip? {
        let url = keypoints.keypointURL(for: relative)
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path) else { return nil }
        let stamp = [(attributes[.size] as? Int) ?? -1, Int(((attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0) * 1e6)]
        if let known = figures[relative], known.stamp == stamp { return known.clip }
        guard let file = try? KeypointFile.load(url) else { return nil }
        let row = DatasetReport.clipRow(file, source: relative)
        let c = Clip(path: relative, kind: "", labels: [], segments: 0, keypoints: true, frames: row.frames, fps: file.video.fps,
                     duration: Self.duration(file), framesWithHand: row.framesWithHand, detectionRate: row.detectionRate,
                     longestGap: row.longestGap, longestGapSeconds: row.longestGapSeconds)
        figures[relative] = (stamp, c)
        return c
    }

    /// The hands of the clip at `relative` (which must name a file under the root), or nil when it
    /// has no keypoint file.
    public func hands(_ relative: String) throws -> Hands? {
        _ = try clips.file(relative)
        guard let file = try? KeypointFile.load(keypoints.keypointURL(for: relative)) else { return nil }
        return Hands(clip: relative, width: file.video.width, height: file.video.height, fps: file.video.fps,
                     bones: Joint.bones.map { [$0.0, $0.1] },
                     bodyBones: file.frames.contains { $0.bodies != nil } ? BodyJoint.bones.map { [$0.0, $0.1] } : nil,
                     frames: file.frames.map { f in
                         Hands.Frame(i: f.i, t: f.t, hands: f.hands.map { h in
                             Hands.Hand(track: h.track, chirality: h.chirality.rawValue, handedness: h.handedness, presence: h.presence,
                                        landmarks: h.landmarks.map { Array($0.prefix(2)) }, origin: h.origin)
                         }, bodies: f.bodies?.map { b in
                             Hands.Body(track: b.track, landmarks: b.landmarks.map { Array($0.prefix(2)) }, visibility: b.visibility)
                         })
                     })
    }

    /// Seconds the clip lasts: its last frame's time plus one frame.
    static func duration(_ file: KeypointFile) -> Double? {
        guard let last = file.frames.last else { return nil }
        return last.t + (file.video.fps.map { $0 > 0 ? 1 / $0 : 0 } ?? 0)
    }
}
