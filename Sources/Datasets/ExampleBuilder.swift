import Annotations
import FileSystem
import Foundation
import Keypoints
import Support

/// Cuts labelled segments and images into training examples.
public enum ExampleBuilder {
    /// Windows of every segment. `keypoints` gives the keypoint file of a segment's clip; it is asked once
    /// per clip (by the segment's `videoPath`), and the clip's frames are put in time order once
    /// (`Windowing.Timeline`) for all its segments.
    public static func actions(_ segments: [Segment], classes: [String], settings: ExportSettings,
                               keypoints: (Segment) throws -> KeypointFile) throws -> [Example] {
        var out: [Example] = []
        var timelines: [PathKey: Windowing.Timeline] = [:]
        for s in segments {
            let timeline: Windowing.Timeline
            if let known = timelines[PathKey(s.videoPath)] { timeline = known } else {
                timeline = Windowing.Timeline(try keypoints(s))
                timelines[PathKey(s.videoPath)] = timeline
            }
            let start = s.start ?? 0, end = s.end ?? timeline.clipEnd
            let track = Windowing.resample(timeline, start: start, end: end, fps: settings.fps, hand: settings.hand, body: settings.body)
            let starts = Windowing.windowStarts(count: track.times.count, window: settings.window, stride: settings.effectiveStride,
                                                dropShort: settings.dropShort, padTail: settings.padTail)
            for (w, first) in starts.enumerated() {
                let range = first..<min(first + settings.window, track.times.count)
                var frames = Array(track.slots[range])
                let real = frames.count
                while frames.count < settings.window { frames.append(Array(repeating: nil, count: settings.hand.slots)) }
                var manifest = ExampleRecord(source: s.videoPath, label: s.label, hand: settings.hand.rawValue)
                manifest.annotation = s.source
                manifest.line = s.line ?? 0
                manifest.segment = [start, end]
                manifest.windowIndex = w
                manifest.window = [track.times[range.lowerBound], track.times[range.lowerBound] + Double(settings.window) / settings.fps]
                manifest.realFrames = real
                manifest.sourceFrameTimes = Array(Set(track.sourceTimes[range].flatMap { $0 })).sorted()
                // The clip's path as the annotation names it, not where the checkout happens to be: splits and
                // augmentation seeds hash it, and must give the same dataset in any folder, on any machine.
                var example = Example(label: classes.firstIndex(of: s.label) ?? -1, frames: frames, manifest: manifest, clip: s.videoPath)
                if settings.body != nil {
                    example.bodies = Array(track.bodies[range]) + [BodySample?](repeating: nil, count: settings.window - real)
                }
                out.append(example)
            }
        }
        return out
    }

    /// Pose examples: each image's chosen hand. Images without one are returned apart.
    /// `name` gives an image's path relative to the dataset's root, its identity for splits and seeds.
    public static func poses(_ samples: [PoseSample], classes: [String], settings: ExportSettings,
                             name: (PoseSample) -> String = { $0.image.path },
                             keypoints: (PoseSample) throws -> KeypointFile) throws -> (examples: [Example], noHand: [String]) {
        var out: [Example] = [], missing: [String] = []
        for p in samples {
            let file = try keypoints(p)
            let picked = file.frames.first.map { Windowing.pick($0.hands, settings.hand) } ?? []
            guard picked.contains(where: { $0 != nil }) else { missing.append(p.image.path); continue }
            let slots = picked.map { $0.map(Windowing.sample) }
            out.append(Example(label: classes.firstIndex(of: p.label) ?? -1, frames: [slots],
                               manifest: ExampleRecord(source: name(p), label: p.label, hand: settings.hand.rawValue),
                               clip: name(p), frameSize: SIMD2(file.video.width, file.video.height)))
        }
        return (out, missing)
    }

    /// Adds `copies` augmented copies of each example of the parts named in `augmentParts` (all when empty).
    /// Augmented copies of each example after it. A mirrored copy (`flip`) takes the label
    /// `flippedLabel` gives its label, if any (a left swipe mirrored is a right swipe): the class index and
    /// its name, both, so that `y` and the manifest record's `label` name the same class (the record keeps the
    /// original index as `label_before_flip`).
    /// `joints`: the body joints the examples carry (nil: none).
    public static func augment(_ examples: [Example], with list: [Augmentation], copies: Int, seed: UInt64,
                               flippedLabel: [Int: (index: Int, name: String)] = [:], joints: BodyJoints? = nil) -> [Example] {
        guard !list.isEmpty, copies > 0 else { return examples }
        var out: [Example] = []
        for e in examples {
            out.append(e)
            for k in 0..<copies {
                var rng = SplitMix64(seed: seed ^ StableHash.fnv1a("\(e.clip)|\(e.manifest.windowIndex ?? 0)|\(k)"))
                var copy = e
                let drawn = Augmentation.apply(list, to: &copy.frames, bodies: &copy.bodies, joints: joints, rng: &rng)
                copy.manifest.augmentation = drawn
                if list.contains(.flip), let swapped = flippedLabel[e.label] {
                    copy.label = swapped.index
                    copy.manifest.label = swapped.name
                    copy.manifest.labelBeforeFlip = e.label
                }
                copy.manifest.copy = k + 1
                out.append(copy)
            }
        }
        return out
    }
}
