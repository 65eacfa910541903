import Foundation

extension KeypointFile {
    /// The extraction settings that made a file, as stable documented fields (not the engine's option
    /// type). Every field is optional: a file that does not record one is read, and compares unequal
    /// to any asked value (its settings are unknown, not assumed). Values are strings where the engine
    /// has a choice, so a reader of this version accepts a choice a later version adds.
    public struct Settings: Codable, Sendable, Hashable {
        /// `full` or `lite`: which palm-detection and hand-landmark models.
        public var model: String?
        /// The most hands reported per frame.
        public var maxHands: Int?
        /// Palm detections scoring below this are dropped (0...1).
        public var minDetectionConfidence: Float?
        /// Hands whose landmark model's presence score is below this are dropped (0...1).
        public var minPresenceConfidence: Float?
        /// `video` (hands tracked from frame to frame) or `image` (every frame detected afresh).
        public var mode: String?
        /// The footage is mirrored (selfie view) and chirality was flipped back.
        public var mirrored: Bool?
        /// Landmarks were smoothed over time.
        public var smoothing: Bool?
        /// Which smoothing, when `smoothing` is on in video mode: `centred-quadratic-0.15s` (a local
        /// quadratic fit over 0.15 s either side, at least two frames, per track). Files of earlier
        /// versions, smoothed by a One-Euro filter, lack it, so a resumed `--smooth` run redoes them.
        public var smoother: String?
        /// `tasks` (MediaPipe Tasks' HandLandmarker) or `legacy` (`mp.solutions.hands`).
        public var rules: String?
        /// The revision of handpose's pipeline, raised when the same input, settings and models come to
        /// give other keypoints, so a resumed run redoes files an earlier revision made (absent: before 2).
        /// 2: MediaPipe Tasks' palm-region rotation and hand-count clip, presence strictly above its
        /// threshold (both modes), and YUV read with the colour space the clip declares.
        public var pipeline: Int?
        /// `--complete`: which sequence completion ran after tracking (video mode), e.g.
        /// `backward-1s+join-0.5s+fill-0.3s+vote`; absent when none did (MediaPipe's frame-by-frame output).
        public var completion: String?

        /// `extract --body`: which body pipeline ran beside the hands (`pose-full`: MediaPipe's pose
        /// landmarker, full model); absent when none did.
        public var body: String?
        /// With `body`: the most people reported per frame.
        public var maxBodies: Int?
        /// `extract --holistic`: MediaPipe Holistic ran (`mediapipe-0.10.14`: the legacy solution of that
        /// release, as pose-format's video_to_pose runs it), body, hands from the body, face; absent when not.
        public var holistic: String?

        /// The pipeline revision this build writes.
        public static let currentPipeline = 2

        public init(model: String? = nil, maxHands: Int? = nil, minDetectionConfidence: Float? = nil,
                    minPresenceConfidence: Float? = nil, mode: String? = nil, mirrored: Bool? = nil,
                    smoothing: Bool? = nil, smoother: String? = nil, rules: String? = nil, pipeline: Int? = nil, completion: String? = nil,
                    body: String? = nil, maxBodies: Int? = nil, holistic: String? = nil) {
            self.model = model; self.maxHands = maxHands
            self.minDetectionConfidence = minDetectionConfidence; self.minPresenceConfidence = minPresenceConfidence
            self.mode = mode; self.mirrored = mirrored; self.smoothing = smoothing; self.smoother = smoother
            self.rules = rules
            self.pipeline = pipeline
            self.completion = completion
            self.body = body; self.maxBodies = maxBodies
            self.holistic = holistic
        }

        /// A recorded setting, by the name keypoint files give it.
        public enum Field: String, CaseIterable, Codable, Sendable {
            case model, maxHands, minDetectionConfidence, minPresenceConfidence, mode, mirrored, smoothing, smoother, rules, pipeline,
                 completion, body, maxBodies, holistic
        }

        /// One field in which a file's settings differ from those asked for, each value as text (a missing
        /// value as "not recorded", or "none" for `completion`, `body` and `maxBodies`, where absent means none ran).
        public struct Difference: Codable, Sendable, Equatable, CustomStringConvertible {
            public var field: Field
            public var recorded: String
            public var asked: String

            public init(field: Field, recorded: String, asked: String) {
                self.field = field; self.recorded = recorded; self.asked = asked
            }

            /// `label recorded (asked asked)`, the field named by `label` (the tool names it by its flag).
            public func described(label: (Field) -> String) -> String { "\(label(field)) \(recorded) (asked \(asked))" }
            /// `field: recorded (asked asked)`, the field named as keypoint files name it.
            public var description: String { described { "\($0.rawValue):" } }
        }

        /// The fields in which these settings differ from `asked`, in the order of `Field`.
        public func differences(from asked: Settings) -> [Difference] {
            var out: [Difference] = []
            // `absent`: what a missing value means (unknown for most fields; for `completion`, none ran).
            func check<T: Equatable>(_ field: Field, _ a: T?, _ b: T?, absent: String = "not recorded") {
                func text(_ v: T?) -> String { v.map { "\($0)" } ?? absent }
                if a != b { out.append(Difference(field: field, recorded: text(a), asked: text(b))) }
            }
            for field in Field.allCases {
                switch field {
                case .model: check(field, model, asked.model)
                case .maxHands: check(field, maxHands, asked.maxHands)
                case .minDetectionConfidence: check(field, minDetectionConfidence, asked.minDetectionConfidence)
                case .minPresenceConfidence: check(field, minPresenceConfidence, asked.minPresenceConfidence)
                case .mode: check(field, mode, asked.mode)
                case .mirrored: check(field, mirrored, asked.mirrored)
                case .smoothing: check(field, smoothing, asked.smoothing)
                case .smoother: check(field, smoother, asked.smoother)
                case .rules: check(field, rules, asked.rules)
                case .pipeline: check(field, pipeline, asked.pipeline)
                case .completion: check(field, completion, asked.completion, absent: "none")
                case .body: check(field, body, asked.body, absent: "none")
                case .maxBodies: check(field, maxBodies, asked.maxBodies, absent: "none")
                case .holistic: check(field, holistic, asked.holistic, absent: "none")
                }
            }
            return out
        }
    }

    /// The rotated rectangle the landmark model looked at, in normalised image coordinates (MediaPipe's
    /// `NormalizedRect`): centre and size as fractions of the frame, rotation in radians, clockwise on
    /// screen.
    public struct Region: Codable, Sendable, Equatable {
        public var xCenter: Float
        public var yCenter: Float
        public var width: Float
        public var height: Float
        public var rotation: Float

        public init(xCenter: Float, yCenter: Float, width: Float, height: Float, rotation: Float) {
            self.xCenter = xCenter; self.yCenter = yCenter; self.width = width; self.height = height; self.rotation = rotation
        }
    }
}

extension KeypointFile.Hand {
    /// Landmark `j` in pixels of a `width` x `height` frame.
    public func pixel(_ j: Int, width: Int, height: Int) -> SIMD2<Double> {
        SIMD2(Double(landmarks[j][0]) * Double(width), Double(landmarks[j][1]) * Double(height))
    }
}
