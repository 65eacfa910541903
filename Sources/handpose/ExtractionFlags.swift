import ArgumentParser
import BodyLandmarks
import Extraction
import Foundation
import HandLandmarks
import HolisticLandmarks
import Inference
import Keypoints
import Landmarking
import Support

/// The extraction settings, under the same names wherever keypoints are made (`extract`, and `export`
/// for clips without keypoints): one set of flags, one meaning.
struct ExtractionFlags: ParsableArguments {
    @Option(help: "Model complexity: full or lite.")
    var model: HandTrackerOptions.Complexity = .full

    @Option(help: "Most hands per frame.")
    var maxHands = 2

    @Option(help: "Palm detection score threshold.")
    var minDetectionConfidence: Float = 0.5

    @Option(help: "Hand presence threshold of the landmark model.")
    var minPresenceConfidence: Float = 0.5

    @Option(help: "video (track across frames) or image (detect every frame). Default: video for clips, image for still images.")
    var mode: HandTrackerOptions.Mode?

    @Flag(help: "Footage is mirrored (selfie view): flip handedness back.")
    var mirrored = false

    @Flag(help: "Smooth landmarks over time, per track (video mode): a centred quadratic fit over 0.15 s either side, no lag.")
    var smooth = false

    @Flag(help: ArgumentHelp("Complete each clip's hand sequences once it has been read (video mode): track every hand back from where palm detection first found it, rejoin a hand lost for up to 0.5 s into one track, fill gaps of up to 0.3 s by interpolation (marked: origin \"interpolated\"; 2 in export's mask), and give each track one chirality by vote.",
                             discussion: "Hands MediaPipe reports keep their landmarks and scores in the keypoint file (their chirality becomes the track's); the default (without --complete) is MediaPipe's frame-by-frame output. With --smooth, smoothing runs after completion and leaves interpolated hands out. Costs a second decoding pass and holds the clip's hands in memory until it ends."))
    var complete = false

    @Flag(help: ArgumentHelp("Follow MediaPipe's legacy Python solution (mp.solutions.hands) rather than MediaPipe Tasks: its rule for joining new palms to tracked hands, and a hand found twice in one frame reported twice.",
                             discussion: "For parity with outputs the legacy solution made, such as the corpus references."))
    var legacy = false

    @Flag(help: ArgumentHelp("Also find each person's body: MediaPipe's pose landmarker (33 landmarks with visibility and presence, and world landmarks), run by handpose's engine beside the hands, tracked and (with one person per frame) smoothed as MediaPipe Tasks does in video mode; each hand is tied to the person whose hand, as the pose model places it, is within one hand size of it.",
                             discussion: "Keypoint files gain `bodies` per frame and `person` per hand (format version 2); .pose files gain POSE_LANDMARKS, so pose-format's normalize() and estimate_active_hand() work; npz and CSV gain the body. Needs pose_detection.tflite and pose_landmark_full.tflite beside the hand models (make setup places them)."))
    var body = false

    @Option(help: "With --body: most people per frame (1 to 100).")
    var maxBodies = 1

    @Flag(help: ArgumentHelp("MediaPipe Holistic as pose-format's video_to_pose runs it (legacy mp.solutions.holistic of mediapipe 0.10.14, model complexity 1, smoothing on): one person's body, each hand found from the body's arm, and the face (468 points; 478 with --refine-face) found from the body's head, on handpose's engine.",
                             discussion: "With --format pose the files are video_to_pose's: POSE_LANDMARKS, FACE_LANDMARKS, LEFT_HAND_LANDMARKS, RIGHT_HAND_LANDMARKS, POSE_WORLD_LANDMARKS. Keypoint files gain `faces` per frame (format version 3). Each clip is tracked whole by one worker. Needs the Holistic models (make setup places them), and the hand models too with --hand-fallback. Not with --body, --smooth, --complete, --mirrored or --mode image."))
    var holistic = false

    @Flag(help: ArgumentHelp("With --holistic: a hand Holistic misses (its crops come from the pose's arms) is taken from handpose's own hand tracker, when that hand is on the arm's end.",
                             discussion: "Such hands are marked `origin: fallback` in keypoint files, CSV and npz (`fallback`); in .pose files their confidence is their presence score, at most 0.99, where Holistic's own hands have 1."))
    var handFallback = false

    @Flag(help: ArgumentHelp("With --holistic: the refined face, 478 points (the lips, eyes and irises from MediaPipe's face mesh with attention), as video_to_pose's --additional-config refine_face_landmarks=true.",
                             discussion: "The .pose header's FACE_LANDMARKS then has 478 points as pose-format writes it for that option; keypoint files and npz hold 478 points a face. Needs face_landmark_with_attention.tflite (make setup places it)."))
    var refineFace = false

    /// Each recorded setting named by the flag that sets it: the one table by which `status`, `export` and
    /// `extract` name a difference between a keypoint file's settings and those asked for. A new field is
    /// not compiled until it has its flag here.
    static func label(_ field: KeypointFile.Settings.Field) -> String {
        switch field {
        case .model: "--model"
        case .maxHands: "--max-hands"
        case .minDetectionConfidence: "--min-detection-confidence"
        case .minPresenceConfidence: "--min-presence-confidence"
        case .mode: "--mode"
        case .mirrored: "--mirrored"
        case .smoothing: "--smooth"
        case .smoother: "--smooth's method"
        case .rules: "--legacy (rules)"
        case .completion: "--complete"
        case .pipeline: "pipeline revision (an earlier handpose made it; extract it again):"
        case .body: "--body"
        case .maxBodies: "--max-bodies"
        case .holistic: "--holistic (with --hand-fallback, --refine-face)"
        }
    }

    /// Differences named by their flags, as `status` and `export` print them.
    static func describe(_ differences: [KeypointFile.Settings.Difference]) -> String {
        differences.map { $0.described(label: label) }.joined(separator: "; ")
    }

    // Unconditional: "--jobs -1" reaches validate() (which says what --jobs takes) instead of reading "-1" as a flag.
    @Option(parsing: .unconditional, help: ArgumentHelp("Files processed at once, each in a worker process (default: the cores this process may run on: its CPU affinity, as taskset, a cpuset or Slurm sets it, and a cgroup CPU quota).",
                               discussion: "The workers' engines share those cores: an equal share each, and a worker with no file left lends its cores to those still working, mid-file (the values are the same on any number of threads). The workers (and those of your other extract and export runs on the machine) share one copy of the packed weights, a file under $HANDPOSE_CACHE/weights (default $XDG_CACHE_HOME/handpose/weights, i.e. ~/.cache/handpose/weights, or /tmp/handpose-<uid>/weights when that is on a network file system), checked byte for byte before use; HANDPOSE_CACHE= (empty) gives each worker its own copy. The folder can be deleted while no handpose runs."))
    var jobs: Int = UsableCores.count

    @Option(help: ArgumentHelp("Folder with the .tflite models.",
                               discussion: "Default: $HANDPOSE_MODELS, then <binary>/../share/handpose/models, then $XDG_DATA_HOME/handpose/models, then ./Models."), completion: .directory)
    var models: String?

    func validate() throws {
        // Every hand tracked is a landmark run a frame: past a crowd's hands the run never ends (10^6 ran 0.3 frames/s).
        guard (1...200).contains(maxHands) else { throw ValidationError("--max-hands takes 1 to 200 hands a frame, not \(maxHands)") }
        guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1") }
        // The pose detector sees a frame at 224x224: a hundred people is past what it can tell apart, and a
        // .pose file holds a slot for each person in every frame.
        guard (1...100).contains(maxBodies) else { throw ValidationError("--max-bodies takes 1 to 100 people a frame, not \(maxBodies)") }
        if maxBodies != 1 && !body { throw ValidationError("--max-bodies counts the people --body finds: add --body") }
        if complete && mode == .image { throw ValidationError("--complete follows hands over time: it needs --mode video") }
        if handFallback && !holistic { throw ValidationError("--hand-fallback fills the hands --holistic misses: add --holistic") }
        if refineFace && !holistic { throw ValidationError("--refine-face refines the face --holistic finds: add --holistic") }
        if holistic {
            let others = [("--body", body), ("--smooth", smooth), ("--complete", complete), ("--mirrored", mirrored), ("--mode image", mode == .image), ("--legacy", legacy)]
            if let (flag, _) = others.first(where: { $0.1 }) {
                throw ValidationError("--holistic runs MediaPipe Holistic as video_to_pose does, with its own body, hands and smoothing: leave out \(flag)")
            }
            // The hand tracker's settings set only --hand-fallback's tracker; Holistic keeps video_to_pose's.
            let handFlags = [("--model", model != .full), ("--max-hands", maxHands != 2), ("--min-detection-confidence", minDetectionConfidence != 0.5),
                             ("--min-presence-confidence", minPresenceConfidence != 0.5)]
            if !handFallback, let (flag, _) = handFlags.first(where: { $0.1 }) {
                throw ValidationError("\(flag) sets the hand tracker, which --holistic runs only with --hand-fallback (Holistic keeps video_to_pose's settings): add --hand-fallback or leave out \(flag)")
            }
        }
        guard (0...1).contains(minDetectionConfidence), (0...1).contains(minPresenceConfidence) else {
            throw ValidationError("confidence thresholds lie between 0 and 1")
        }
    }

    /// The extraction settings for an input (`still`: an image).
    func settings(forStill still: Bool) -> ExtractionSettings {
        var hands = HandTrackerOptions()
        hands.model = model
        hands.maxHands = maxHands
        hands.minDetectionConfidence = minDetectionConfidence
        hands.minPresenceConfidence = minPresenceConfidence
        hands.mode = mode ?? (still ? .image : .video)
        hands.mirrored = mirrored
        hands.rules = legacy ? .legacy : .tasks
        var people: BodyTrackerOptions?
        if body {
            people = BodyTrackerOptions()
            people?.maxBodies = maxBodies
        }
        return ExtractionSettings(hands: hands, body: people, smoothing: smooth, completion: complete,
                                  holistic: holistic ? HolisticOptions(handFallback: handFallback, refineFace: refineFace) : nil)
    }

    /// The pipeline these flags describe; a missing model is a failure to run naming every place looked.
    func pipeline(overwrite: Bool) throws -> ExtractionPipeline {
        let flags = self
        do {
            let folder = try InstalledFiles(.models, explicit: models).folder(holding: modelFileNames)
            var pipeline = try ExtractionPipeline(modelsDirectory: folder, complexity: model, jobs: jobs,
                                                  overwrite: overwrite) { flags.settings(forStill: $0) }
            pipeline.sharing = SharedConstants.standard()
            return pipeline
        } catch {
            throw RuntimeFailure("\(error)")
        }
    }

    /// The model files that pick the folder (`ExtractionPipeline.modelFileNames`).
    var modelFileNames: [String] { ExtractionPipeline.modelFileNames(complexity: model, settings: settings(forStill: false)) }

    /// The identity (file name to SHA-256) of the models these flags ask for, read without planning them:
    /// what `extract` records (`ExtractionPipeline.modelIdentity`).
    func modelIdentity() throws -> [String: String] {
        let folder = try InstalledFiles(.models, explicit: models).folder(holding: modelFileNames)
        return try ExtractionPipeline.modelIdentity(directory: folder, complexity: model, settings: settings(forStill: false))
    }
}

extension HandTrackerOptions.Complexity: ExpressibleByArgument {}
extension HandTrackerOptions.Mode: ExpressibleByArgument {}
