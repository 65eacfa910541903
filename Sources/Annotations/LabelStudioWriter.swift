import FileSystem
import Foundation

/// Writes segments as Label Studio tasks with predictions (pre-annotations a video project with
/// `<TimelineLabels name="videoLabels" toName="video">` and `<Video name="video" value="$video">` imports),
/// ranges in frames at `frameRate` (from 1, end included: [t0, t1) becomes frames round(t0 fps) + 1 to
/// round(t1 fps)), and the labeling config that declares that frame rate.
public enum LabelStudioWriter {
    /// Why segments cannot be written as tasks.
    public enum WriteError: Error, CustomStringConvertible {
        case outOfRange(String)
        public var description: String { switch self { case .outOfRange(let s): return s } }
    }

    /// One task per clip, its video named `/data/local-files/?d=PATH` (PATH under the annotation root,
    /// as Label Studio's local-files storage serves it), in the order the clips first appear.
    public static func tasks(_ segments: [Segment], frameRate: Double, modelVersion: String) throws -> Data {
        var order: [PathKey] = []
        var byClip: [PathKey: [Segment]] = [:]
        for s in segments {
            if byClip[PathKey(s.videoPath)] == nil { order.append(PathKey(s.videoPath)) }
            byClip[PathKey(s.videoPath), default: []].append(s)
        }
        var tasks: [[String: Any]] = []
        for clip in order {
            var results: [[String: Any]] = []
            for (k, s) in byClip[clip]!.enumerated() {
                guard let first = InputRange.int((s.start ?? 0) * frameRate, in: InputRange.frames).map({ $0 + 1 }),
                      let end = InputRange.int((s.end ?? 0) * frameRate, in: InputRange.frames) else {
                    throw WriteError.outOfRange("\(s.source)\(s.line.map { ":\($0)" } ?? ""): \(s.label) at \(s.start ?? 0)-\(s.end ?? 0) s is no frame range at \(frameRate) fps")
                }
                let last = max(first, end)
                results.append(["id": "r\(k + 1)", "type": "timelinelabels", "from_name": "videoLabels", "to_name": "video", "origin": "prediction",
                                "value": ["ranges": [["start": first, "end": last]], "timelinelabels": [s.label]] as [String: Any]])
            }
            // A query value: '&', '+', '=', '#' and '?' escaped too, or Label Studio splits the name there.
            let path = clip.path.addingPercentEncoding(withAllowedCharacters: Self.queryValue) ?? clip.path
            tasks.append(["data": ["video": "/data/local-files/?d=" + path], "predictions": [["model_version": modelVersion, "result": results] as [String: Any]]])
        }
        return try JSONSerialization.data(withJSONObject: tasks, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    }

    static let queryValue = CharacterSet.urlQueryAllowed.subtracting(CharacterSet(charactersIn: "&+=#?"))

    /// The labeling config for those tasks: the classes as labels and the frame rate declared.
    public static func labelConfig(classes: [String], frameRate: Double) -> String {
        var x = "<View>\n  <TimelineLabels name=\"videoLabels\" toName=\"video\">\n"
        for c in classes { x += "    <Label value=\"\(ElanWriter.escape(c))\"/>\n" }
        x += "  </TimelineLabels>\n  <Video name=\"video\" value=\"$video\" frameRate=\"\(frameRate)\" timelineHeight=\"120\"/>\n</View>\n"
        return x
    }
}
