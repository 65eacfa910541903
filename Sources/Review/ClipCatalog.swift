import FileSystem
import Foundation
import KeypointStore
import Keypoints
import VideoIO

/// The clips under the root and what their keypoint files say: the list's figures (those `report`
/// computes) and each clip's hands per frame, as the page draws them. Keypoint files are read once and
/// read again only when they change on disk (`handpose extract` run beside the page). A keypoint file
/// is reached as a clip is, through `ReviewFolder`: a symbolic link out of the keypoint folder, or a FIFO
/// in it, is refused, never read.
public actor ClipCatalog {
    public let clips: ReviewFolder
    public let keypoints: KeypointFolder
    let keypointFolder: ReviewFolder

    public init(clips: ReviewFolder, keypoints: URL) {
        self.clips = clips
        self.keypoints = KeypointFolder(keypoints)
        keypointFolder = ReviewFolder(keypoints)
    }

    /// A keypoint file that is there but cannot be read as one (not JSON, wrong schema, a value out of range).
    public struct Unreadable: Error, CustomStringConvertible {
        public var description: String
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
        /// A face (`extract --holistic`): its mesh's points' x, y.
        public struct Face: Codable, Sendable {
            public var landmarks: [[Float]]
        }
        public struct Frame: Codable, Sendable {
            public var i: Int
            public var t: Double
            public var hands: [Hand]
            /// Absent when the file's bodies were not looked for.
            public var bodies: [Body]?
            /// Absent when the file's faces were not looked for.
            public var faces: [Face]?
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

    /// What says a keypoint file is the one read before: its size, modification time and inode, as
    /// the file system gives them (compared, never converted).
    struct Stamp: Equatable {
        var size: off_t, modified: timespec, inode: ino_t
        static func == (a: Stamp, b: Stamp) -> Bool {
            a.size == b.size && a.modified.tv_sec == b.modified.tv_sec && a.modified.tv_nsec == b.modified.tv_nsec && a.inode == b.inode
        }
    }

    /// Each clip's figures, with the stamp of the keypoint file they came from (the files themselves
    /// are not kept: a dataset's would not fit).
    private var figures: [String: (stamp: Stamp, clip: Clip)] = [:]

    /// The keypoint file of the clip at `relative`, inside the keypoint folder; nil when it has none.
    /// Throws `ReviewFolder.Refusal` for one that leads out of the folder or is no regular file.
    func keypointFile(for relative: String) throws -> URL? {
        guard let inside = keypointFolder.relative(keypoints.keypointURL(for: relative).path) else { return nil }
        do { return try keypointFolder.file(inside) } catch ReviewFolder.Refusal.missing { return nil }
    }

    /// The keypoint file at `url` read (through `RegularFile`, so never waiting on a FIFO put there since).
    func load(_ url: URL) throws -> KeypointFile {
        do { return try KeypointFile.decode(try RegularFile.read(url.path), path: url.path) } catch {
            throw Unreadable(description: "\(error)")
        }
    }

    /// Every clip and image under the root, by path, with the annotation labels and segment counts given.
    /// Clips reached through a symbolic link that leads out of the root are not served, so not listed.
    public func list(labels: [PathKey: [String]], segments: [PathKey: Int]) throws -> [Clip] {
        let found = try InputFiles.collect([clips.url.path], recursive: true)
        return found.items.filter { (try? clips.file($0.relative)) != nil }.map { item in
            var c = figuresOf(item.relative) ?? Clip(path: item.relative, kind: "", labels: [], segments: 0, keypoints: false)
            c.kind = MediaKind.isStillImage(item.url) ? "image" : "video"
            c.labels = labels[PathKey(item.relative)] ?? []
            c.segments = segments[PathKey(item.relative)] ?? 0
            return c
        }
    }

    /// The list's figures of a clip from its keypoint file (`report`'s), read again when the file changed.
    func figuresOf(_ relative: String) -> Clip? {
        // A keypoint file out of the folder or no regular file is not read: the clip is listed without keypoints.
        guard let url = try? keypointFile(for: relative) else { return nil }
        var st = stat()
        guard stat(url.path, &st) == 0 else { return nil }
        let stamp = Stamp(size: st.st_size, modified: st.st_mtim, inode: st.st_ino)
        if let known = figures[relative], known.stamp == stamp { return known.clip }
        guard let file = try? load(url) else { return nil }
        let row = ClipFigures(file, source: relative)
        let c = Clip(path: relative, kind: "", labels: [], segments: 0, keypoints: true, frames: row.frames, fps: file.video.fps,
                     duration: Self.duration(file), framesWithHand: row.framesWithHand, detectionRate: row.detectionRate,
                     longestGap: row.longestGap, longestGapSeconds: row.longestGapSeconds)
        figures[relative] = (stamp, c)
        return c
    }

    /// The hands of the clip at `relative` (which must name a file under the root), or nil when it
    /// has no keypoint file. Throws `ReviewFolder.Refusal` (a path refused) or `Unreadable`.
    public func hands(_ relative: String) throws -> Hands? {
        _ = try clips.file(relative)
        guard let url = try keypointFile(for: relative) else { return nil }
        let file = try load(url)
        return Hands(clip: relative, width: file.video.width, height: file.video.height, fps: file.video.fps,
                     bones: Joint.bones.map { [$0.0, $0.1] },
                     bodyBones: file.frames.contains { $0.bodies != nil } ? BodyJoint.bones.map { [$0.0, $0.1] } : nil,
                     frames: file.frames.map { f in
                         Hands.Frame(i: f.i, t: f.t, hands: f.hands.map { h in
                             Hands.Hand(track: h.track, chirality: h.chirality.rawValue, handedness: h.handedness, presence: h.presence,
                                        landmarks: h.landmarks.map { Array($0.prefix(2)) }, origin: h.origin)
                         }, bodies: f.bodies?.map { b in
                             Hands.Body(track: b.track, landmarks: b.landmarks.map { Array($0.prefix(2)) }, visibility: b.visibility)
                         }, faces: f.faces?.map { face in
                             Hands.Face(landmarks: face.landmarks.map { Array($0.prefix(2)) })
                         })
                     })
    }

    /// Seconds the clip lasts: its last frame's time plus one frame.
    static func duration(_ file: KeypointFile) -> Double? {
        guard let last = file.frames.last else { return nil }
        return last.t + (file.video.fps.map { $0 > 0 ? 1 / $0 : 0 } ?? 0)
    }
}
