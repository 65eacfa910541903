import FileSystem
import Foundation
#if canImport(FoundationXML)
import FoundationXML   // XMLParser on Linux (libxml2)
#endif

/// Reads Label Studio's JSON export of a video project labelled with `<TimelineLabels>` (and the
/// task files with predictions that `annotations convert` writes for it): one segment per label of
/// each `timelinelabels` range. Layout as Label Studio's source writes it (label-studio's editor,
/// `TimelineRegion` and `VideoCanvas`; its ML backend's converter): a root array of tasks, each with
/// `data` (the video's path under the key the `<Video value="$key">` names) and `annotations` (and
/// `predictions`), whose `result` items hold `value.ranges` of `{start, end}` frames, counted from
/// 1 with the end frame included, so a range is the seconds [(start - 1) / fps, end / fps).
/// The export does not record the frame rate: it is the `frameRate` of the project's `<Video>` tag
/// (`--label-config`, the project's Labeling Interface code; `$key` reads it from the task), or
/// `--frame-rate`; without either, tasks are refused, never read at Label Studio's default of 24.
/// Of a task's annotations the latest one not cancelled is read (one annotator's); a task without
/// annotations is read from its latest prediction, with a warning (drafts, not reviewed labels).
struct LabelStudioReader {
    let file: String
    let options: AnnotationOptions
    let media: MediaLocator
    var log: DiagnosticLog

    /// A `<Video>` tag of the labeling config: the task key of its video and its frame rate (a number,
    /// or `$key` of the task's data).
    struct VideoTag { var name: String; var valueKey: String?; var frameRate: String? }

    mutating func read() -> [Segment] {
        if let problem = RegularFile.problem(file) {
            log.add(.error, .unreadableFile, file: file, problem, hint: "annotation files are regular files")
            return []
        }
        guard let handle = RegularFile.handle(file) else {
            log.add(.error, .unreadableFile, file: file, "cannot be read", hint: "check the path and its permissions")
            return []
        }
        defer { try? handle.close() }
        var tags: [VideoTag] = []
        if let config = options.labelConfig {
            // Read once, and the bytes checked are the bytes parsed: a pre-check on another open of the path
            // could be passed by a file swapped in between.
            let configBytes: Data
            switch Self.readConfig(config.path) {
            case .success(let d): configBytes = d
            case .failure(let refusal):
                log.add(.error, .frameRateUnknown, file: config.path, "cannot read this labeling config: \(refusal.reason)",
                        hint: "save the config from Label Studio's labeling interface")
                return []
            }
            // The same pre-check as ELAN files: FoundationXML traps on some of what it finds.
            if let problem = ElanReader.precheck([UInt8](configBytes)) {
                log.add(.error, .frameRateUnknown, file: config.path, line: problem.place.line, column: problem.place.column,
                        "cannot read this labeling config: \(problem.reason)", hint: "save the config from Label Studio's labeling interface")
                return []
            }
            guard let parsed = Self.videoTags(configBytes) else {
                log.add(.error, .frameRateUnknown, file: config.path, "cannot read this labeling config (XML with <Video .../> tags)")
                return []
            }
            tags = parsed
        }
        // Read as a stream, one task at a time (JSONSerialization on a whole export of a million labels
        // holds gigabytes): the root array is checked as it is read, and only each task is parsed whole.
        var readError: Error?
        func chunk() -> [UInt8]? {
            do {
                guard let data = try handle.read(upToCount: AnnotationFileReader.chunkSize), !data.isEmpty else { return nil }
                return [UInt8](data)
            } catch { readError = error; return nil }
        }
        var head = chunk() ?? []
        while head.count < 4, let more = chunk() { head += more }
        guard let skip = AnnotationFileReader.encodingPrelude(head, file: file, log: &log) else { return [] }
        var first: [UInt8]? = Array(head.dropFirst(skip))
        var reader = JSONEntryReader(chunks: {
            if let f = first { first = nil; return f }
            return chunk()
        })
        var out: [Segment] = []
        var tasks = 0
        let problem = reader.readElements { line, json in
            tasks += 1
            guard let task = (try? JSONSerialization.jsonObject(with: Data(json))) as? [String: Any] else {
                log.add(.error, .jsonShape, file: file, line: line, "task \(tasks) is not an object")
                return
            }
            read(task: task, position: tasks, line: line, tags: tags, into: &out)
        }
        if let readError {
            log.add(.error, .unreadableFile, file: file, "cannot be read (\(readError.localizedDescription))")
            return []
        }
        switch problem {
        case let .syntax(line, column, expected)?:
            log.add(.error, .jsonSyntax, file: file, line: line, column: column, "not valid JSON: expected \(expected)",
                    hint: "check for a missing comma, bracket or quote near here")
            return []
        case let .notUTF8(line, column)?:
            log.add(.error, .encoding, file: file, line: line, column: column, "not valid UTF-8 text", hint: "re-save it as UTF-8")
            return []
        case .rootNotArray?:
            log.add(.error, .jsonShape, file: file, line: 1, "a Label Studio export is an array of tasks")
            return []
        case nil:
            break
        }
        if tasks == 0 { log.add(.error, .noRows, file: file, line: 1, "no tasks: the export is an empty array") }
        return out
    }

    /// One task's segments (the task at `position` in the export, starting on `line`).
    private mutating func read(task: [String: Any], position: Int, line: Int, tags: [VideoTag], into out: inout [Segment]) {
        let taskName = "task \(position)" + ((task["id"]).map { " (id \($0))" } ?? "")
        let data = task["data"] as? [String: Any] ?? [:]
        // The result to read: the latest annotation not cancelled, else the latest prediction.
        let annotations = objects(task, "annotations", of: taskName, line: line).filter { ($0["was_cancelled"] as? Bool) != true }
        let predictions = objects(task, "predictions", of: taskName, line: line)
        let chosen: (results: [[String: Any]], what: String)
        if let a = annotations.max(by: { Self.stamp($0) < Self.stamp($1) }) {
            let what = "annotation \(a["id"].map { "\($0)" } ?? "?")"
            chosen = (objects(a, "result", of: "\(taskName), \(what)", line: line), what)
        } else if let p = predictions.max(by: { Self.stamp($0) < Self.stamp($1) }) {
            let what = "prediction \(p["id"].map { "\($0)" } ?? (p["model_version"].map { "\($0)" } ?? "?"))"
            chosen = (objects(p, "result", of: "\(taskName), \(what)", line: line), what)
            log.add(.warning, .predictionsOnly, file: file, line: line, "\(taskName): no annotation, so its prediction is read (a draft, not reviewed)")
        } else {
            log.add(.warning, .noRows, file: file, line: line, "\(taskName): no annotation and no prediction; left out")
            return
        }
        let timeline = chosen.results.filter { ($0["type"] as? String) == "timelinelabels" }
        if timeline.isEmpty {
            log.add(.warning, .noRows, file: file, line: line, "\(taskName), \(chosen.what): no timelinelabels result; left out",
                    hint: "handpose reads video projects labelled with <TimelineLabels>")
            return
        }
        // The video: the key of the <Video> the results point at, else the task's one string value.
        let toName = timeline.first?["to_name"] as? String
        let tag = tags.first { $0.name == toName } ?? (tags.count == 1 ? tags[0] : nil)
        let key = tag?.valueKey ?? (data["video"] != nil ? "video" : data.first { $0.value is String }?.key)
        guard let key, let written = data[key] as? String else {
            log.add(.error, .emptyVideo, file: file, line: line, "\(taskName): no video path in its data" + (tag?.valueKey.map { " (key \(Diagnostic.quote($0)))" } ?? ""))
            return
        }
        guard let fps = frameRate(tag, data: data, task: taskName, line: line) else { return }
        let clip: MediaLocator.Found
        switch media.locate(written: Self.candidates(written, upload: task["file_upload"] as? String), relativeTo: media.mediaRoot) {
        case .found(let f): clip = f
        case .failure(let kind, let message, let hint):
            log.add(.error, kind, file: file, line: line, "\(taskName): \(message)", hint: hint)
            return
        }
        for (k, r) in timeline.enumerated() {
            let place = "\(taskName), \(chosen.what), result \(r["id"].map { "\($0)" } ?? "\(k + 1)")"
            guard let value = r["value"] as? [String: Any] else {
                log.add(.error, .jsonShape, file: file, line: line, "\(place): no \"value\" object")
                continue
            }
            // Every label and range is read or named: one item of the wrong type drops no other, and none silently.
            var labels: [String] = []
            switch value["timelinelabels"] {
            case nil: break
            case let list as [Any]:
                for (n, item) in list.enumerated() {
                    if let label = item as? String { labels.append(label) } else {
                        log.add(.error, .jsonShape, file: file, line: line, "\(place): timelinelabels item \(n + 1) is not a string")
                    }
                }
            default:
                log.add(.error, .jsonShape, file: file, line: line, "\(place): \"timelinelabels\" is not an array")
            }
            if value["ranges"] == nil { log.add(.error, .badTime, file: file, line: line, "\(place): no ranges") }
            let ranges = objects(value, "ranges", of: place, line: line)
            if labels.isEmpty { log.add(.error, .emptyLabel, file: file, line: line, "\(place): no label") }
            for range in ranges {
                guard let s = Self.number(range["start"]), let e = Self.number(range["end"]) else {
                    // true reads as 1 through JSONSerialization: a frame number it is not.
                    let bool = [range["start"], range["end"]].contains { ($0 as? NSNumber).map(Self.isBool) == true }
                    log.add(.error, .badTime, file: file, line: line,
                            "\(place): " + (bool ? "a range whose start or end is true or false, not a frame number" : "a range without start or end frame"))
                    continue
                }
                guard InputRange.frames.contains(s), InputRange.frames.contains(e), s == s.rounded(), e == e.rounded() else {
                    log.add(.error, .badTime, file: file, line: line,
                            "\(place): frames \(InputRange.wholeText(s)) to \(InputRange.wholeText(e)) are not frame numbers (whole, from 1 to \(InputRange.wholeText(InputRange.frames.upperBound)))")
                    continue
                }
                guard s >= 1, e >= s else {
                    log.add(.error, .startNotBeforeEnd, file: file, line: line, "\(place): frames \(Int(s)) to \(Int(e)) (frames count from 1; the end is included)")
                    continue
                }
                guard InputRange.seconds.contains(e / fps) else {
                    log.add(.error, .badTime, file: file, line: line,
                            "\(place): frame \(Int(e)) at \(fps) fps is \(e / fps) s into the clip, beyond any clip (more than \(Int(InputRange.seconds.upperBound)) s)")
                    continue
                }
                for raw in labels {
                    let text = raw.trimmingCharacters(in: .whitespaces)
                    guard !text.isEmpty else { log.add(.error, .emptyLabel, file: file, line: line, "\(place): empty label"); continue }
                    let label = options.labelMap[text] ?? text
                    if label.isEmpty { continue }
                    // The rule on the class that results, after --label-map, as the ELAN reader applies it.
                    if let problem = LabelText.problem(label) {
                        log.add(.error, .badLabel, file: file, line: line, "\(place): \(problem)", hint: "labels are one line of text without control characters")
                        continue
                    }
                    var segment = Segment(videoFile: clip.file, videoPath: clip.relative, label: label, start: (s - 1) / fps, end: e / fps,
                                          source: file, line: line)
                    segment.contextGroup = place + ","
                    segment.contextItem = "frames \(Int(s))-\(Int(e)) at \(fps) fps"
                    out.append(segment)
                }
            }
        }
    }

    /// The frame rate of the task's video: the <Video> tag's frameRate (a number, or $key read from the
    /// task's data), else --frame-rate; nil (reported) when neither says.
    private mutating func frameRate(_ tag: VideoTag?, data: [String: Any], task: String, line: Int) -> Double? {
        guard let declared = tag?.frameRate else {
            if let fps = options.frameRate { return fps }
            log.add(.error, .frameRateUnknown, file: file, line: line,
                    "\(task): the frame rate its ranges are counted in is unknown: Label Studio's export does not record it" +
                        (options.labelConfig == nil ? "" : ", and the labeling config's <Video> has no frameRate (Label Studio then assumes 24)"),
                    hint: "give --label-config with the project's labeling config (Settings > Labeling Interface > Code), or --frame-rate N")
            return nil
        }
        var value: Double?
        if declared.hasPrefix("$") {
            let v = data[String(declared.dropFirst())]
            value = Self.number(v) ?? (v as? String).flatMap(Double.init)
        } else {
            value = Double(declared)
        }
        guard var fps = value, fps.isFinite, fps > 0, InputRange.frameRate.contains(fps < 1 ? 1 / fps : fps) else {
            log.add(.error, .frameRateUnknown, file: file, line: line, "\(task): frameRate \(Diagnostic.quote(declared)) gives no frame rate",
                    hint: "give --frame-rate N")
            return nil
        }
        // As Label Studio's Video tag reads it (web/libs/editor/src/tags/object/Video/Video.js): a value
        // under 1 is a frame's duration.
        if fps < 1 { fps = 1 / fps }
        return fps
    }

    /// The objects of the array at `key` of `container` (none when the key is absent). A value that is no
    /// array, and each element that is no object, is an error naming `owner` and the element: reading them
    /// as nothing dropped every range of a result for one stray element.
    private mutating func objects(_ container: [String: Any], _ key: String, of owner: String, line: Int) -> [[String: Any]] {
        guard let value = container[key] else { return [] }
        guard let list = value as? [Any] else {
            log.add(.error, .jsonShape, file: file, line: line, "\(owner): \(Diagnostic.quote(key)) is not an array")
            return []
        }
        var out: [[String: Any]] = []
        for (n, element) in list.enumerated() {
            if let object = element as? [String: Any] { out.append(object) } else {
                log.add(.error, .jsonShape, file: file, line: line, "\(owner): \(key) item \(n + 1) is not an object")
            }
        }
        return out
    }

    /// A JSON number as a Double; nil for anything else, true and false included.
    static func number(_ value: Any?) -> Double? {
        guard let n = value as? NSNumber, !isBool(n) else { return nil }
        return n.doubleValue
    }

    /// Whether a number from JSONSerialization was written `true` or `false`: they come as NSNumbers that
    /// read as 1 and 0 (`as? NSNumber` takes them), told apart by their type code "c", a one-byte integer,
    /// which JSONSerialization makes of no number (integers are 64-bit, others Double or Decimal).
    static func isBool(_ n: NSNumber) -> Bool {
        UInt8(bitPattern: n.objCType.pointee) == UInt8(ascii: "c")
    }

    /// Paths to try for a task's video: as written; an upload's original name (Label Studio prefixes
    /// 8 hexadecimal digits and '-'); a local-files path (`/data/local-files/?d=PATH`).
    static func candidates(_ written: String, upload: String?) -> [String] {
        var out: [String] = []
        if let q = written.range(of: "?d=") {
            out.append(String(written[q.upperBound...]).removingPercentEncoding ?? String(written[q.upperBound...]))
        }
        for name in [written, upload].compactMap({ $0 }) {
            let last = (name as NSString).lastPathComponent
            if last.count > 9, last.prefix(8).allSatisfy(\.isHexDigit), last.dropFirst(8).first == "-", name.contains("upload") || name == upload {
                out.append(String(last.dropFirst(9)))
            }
        }
        if !written.hasPrefix("/data/") { out.append(written) }
        return out
    }

    /// When an annotation or prediction was last changed, for picking the latest.
    static func stamp(_ item: [String: Any]) -> String {
        (item["updated_at"] as? String) ?? (item["created_at"] as? String) ?? "\(item["id"] ?? "")"
    }

    /// A labeling config is a few kilobytes of XML; a file this large is none, and is not read whole.
    static let maxConfigBytes = 16 << 20

    /// The bytes of the labeling config at `path`, from one open (a regular file only, never waited on),
    /// or why not.
    static func readConfig(_ path: String) -> Result<Data, RegularFile.Refusal> {
        let descriptor: Int32
        do { descriptor = try RegularFile.open(path) } catch let refusal as RegularFile.Refusal {
            return .failure(refusal)
        } catch {
            return .failure(RegularFile.Refusal(path: path, reason: "cannot be opened"))
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        do {
            let data = try handle.read(upToCount: maxConfigBytes + 1) ?? Data()
            guard data.count <= maxConfigBytes else {
                return .failure(RegularFile.Refusal(path: path, reason: "larger than \(maxConfigBytes >> 20) MB, which no labeling config is"))
            }
            return .success(data)
        } catch {
            return .failure(RegularFile.Refusal(path: path, reason: "cannot be read (\(error.localizedDescription))"))
        }
    }

    /// The `<Video>` tags of a labeling config's bytes; nil when they are not a config that can be read.
    static func videoTags(_ data: Data) -> [VideoTag]? {
        // Checked here too, whatever the caller did: FoundationXML traps on what the pre-check refuses.
        guard ElanReader.precheck([UInt8](data)) == nil else { return nil }
        let parser = XMLParser(data: data)
        parser.shouldResolveExternalEntities = false
        final class Tags: NSObject, XMLParserDelegate {
            var found: [VideoTag] = []
            /// Elements open; a config cut short ends with some still open (see ElanReader.parse).
            var depth = 0, closedRoot = false
            func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
                depth -= 1
                if depth == 0 { closedRoot = true }
            }
            func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes a: [String: String] = [:]) {
                depth += 1
                guard name.lowercased() == "video" else { return }
                let lower = Dictionary(a.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { x, _ in x })
                let value = lower["value"].map { $0.hasPrefix("$") ? String($0.dropFirst()) : $0 }
                found.append(VideoTag(name: lower["name"] ?? "", valueKey: value, frameRate: lower["framerate"]))
            }
        }
        let tags = Tags()
        parser.delegate = tags
        guard parser.parse(), tags.closedRoot else { return nil }
        return tags.found
    }
}
