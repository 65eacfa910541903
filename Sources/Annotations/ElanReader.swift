import FileSystem
import Foundation
#if canImport(FoundationXML)
import FoundationXML   // XMLParser on Linux (libxml2)
#endif

/// Reads ELAN's `.eaf` files (EAF 2.7 to 3.0, and the older files ELAN still opens) into segments:
/// one per annotation of the chosen tiers, labelled by its value, timed in the clip's own time.
/// The file is parsed as a stream (SAX); what is kept is one small record per time slot and per
/// annotation. Times follow ELAN (ELAN 6.9's source, read for this): slots hold integer milliseconds;
/// a slot without a value (unaligned) is placed evenly between the nearest aligned slots of its own
/// tier, in time-order position, with ELAN's integer division; a `REF_ANNOTATION` takes its parent's
/// times, split evenly among the annotations of one chain (`PREVIOUS_ANNOTATION`) on a tier of
/// Symbolic_Subdivision; the media's `TIME_ORIGIN` (ms) is added, since annotation time t is media time
/// t + origin.
struct ElanReader {
    let file: String
    let options: AnnotationOptions
    let media: MediaLocator
    var log: DiagnosticLog

    struct Tier { var id: String; var type: String; var parent: String?; var line: Int; var annotations = 0 }
    /// One annotation in 24 bytes, so that a million of them and their segments take less memory than a
    /// CSV's million rows (whose segment list grows by doubling).
    struct Annotation {
        /// N of an id `aN` (what ELAN writes), or -1 - k for the k-th other id (`Collector.otherIDs`).
        var id: Int32
        var tier: Int32
        /// Time-slot indices (alignable), or -1 (a REF_ANNOTATION: its parent is in `Collector.refs`).
        var slot1: Int32, slot2: Int32
        /// The value, as an index into `Collector.values` (values repeat: glosses, classes).
        var value: Int32
        var line: Int32
    }
    /// The annotations in chunks of 65,536 (1.5 MB), each mapped from the system on its own: growing
    /// never copies them all, and a chunk already turned into segments is given back to the system
    /// (`free(chunk:)`) while the rest are. (Chunks from malloc would stay resident once freed: the
    /// allocator keeps freed blocks inside its heap, where the segment list, one large block, cannot
    /// reuse them.)
    final class AnnotationStore {
        static let shift = 16, mask = (1 << shift) - 1
        static let chunkBytes = (mask + 1) * MemoryLayout<Annotation>.stride
        private var chunks: [UnsafeMutablePointer<Annotation>?] = []
        private(set) var count = 0
        var indices: Range<Int> { 0..<count }
        var chunkIndices: Range<Int> { chunks.indices }
        func indices(ofChunk k: Int) -> Range<Int> { (k << Self.shift)..<min(count, (k + 1) << Self.shift) }
        subscript(i: Int) -> Annotation { chunks[i >> Self.shift]![i & Self.mask] }
        func append(_ a: Annotation) {
            if count & Self.mask == 0 {
                let memory = mmap(nil, Self.chunkBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                guard let memory, memory != MAP_FAILED else { fatalError("out of memory reading an ELAN file") }
                chunks.append(memory.bindMemory(to: Annotation.self, capacity: Self.mask + 1))
            }
            (chunks[chunks.count - 1]! + (count & Self.mask)).initialize(to: a)
            count += 1
        }
        /// Gives chunk k back to the system: its annotations must not be read again.
        func free(chunk k: Int) {
            guard let p = chunks[k] else { return }
            munmap(p, Self.chunkBytes)
            chunks[k] = nil
        }
        deinit { for k in chunks.indices { free(chunk: k) } }
    }
    /// A MEDIA_DESCRIPTOR; `origin` nil when its TIME_ORIGIN is refused (an error on its line already says so).
    struct MediaDescriptor { var url: String; var relative: String?; var mime: String; var origin: Int64?; var line: Int }

    /// Reads the file into `segments` (nothing when it cannot be read as ELAN; the log says why).
    mutating func read() -> [Segment] {
        guard let collector = parse() else { return [] }
        return segments(collector)
    }

    /// The tier a save may rewrite in place (`ElanTierEdit`) and the media's time origin in ms, or why
    /// the file cannot be saved from its segments: the tiers read must be one tier of its own, with no
    /// parent tier (its times would come from there) and no tier depending on it.
    mutating func editTarget() -> Result<ElanTierEdit.Target, ElanTierEdit.Refusal> {
        func failure(_ why: String? = nil) -> Result<ElanTierEdit.Target, ElanTierEdit.Refusal> {
            .failure(ElanTierEdit.Refusal(why ?? log.kept.last.map { $0.message } ?? "not a readable ELAN file"))
        }
        guard let c = parse(), let chosen = chooseTiers(c), let (clip, origin) = locateMedia(c) else { return failure() }
        guard chosen.count == 1 else { return failure("\(chosen.count) tiers are read, and a save rewrites one: name one with --tier") }
        let t = c.tiers[chosen[0]]
        if let p = t.parent { return failure("tier \(Diagnostic.quote(t.id)) depends on tier \(Diagnostic.quote(p)), which gives its times") }
        let dependents = c.tiers.filter { $0.parent == t.id }.map { Diagnostic.quote($0.id) }
        if !dependents.isEmpty {
            return failure("tier\(dependents.count == 1 ? "" : "s") \(dependents.joined(separator: ", ")) depend\(dependents.count == 1 ? "s" : "") on tier \(Diagnostic.quote(t.id)): rewriting it would break them")
        }
        return .success(ElanTierEdit.Target(tier: t.id, origin: origin, clip: clip.file))
    }

    /// The file's records, or nil (reported) when it is not ELAN. The parser and its buffers are gone
    /// when this returns, before the segments are built.
    private mutating func parse() -> Collector? {
        if let problem = RegularFile.problem(file) {
            log.add(.error, .unreadableFile, file: file, problem, hint: "annotation files are regular files")
            return nil
        }
        // One open, and the parser reads only through the pre-check (`PrecheckedXMLInput`): a file checked on
        // one open and parsed from another could be swapped in between and reach FoundationXML unchecked (a
        // processing instruction then crashed it).
        let descriptor: Int32
        do { descriptor = try RegularFile.open(file) } catch {
            log.add(.error, .unreadableFile, file: file, (error as? RegularFile.Refusal)?.reason ?? "cannot be read",
                    hint: "check the path and its permissions")
            return nil
        }
        let input = PrecheckedXMLInput(handle: FileHandle(fileDescriptor: descriptor, closeOnDealloc: true))
        let parser = XMLParser(stream: input)
        let collector = Collector()
        parser.delegate = collector
        parser.shouldResolveExternalEntities = false
        let parsed = parser.parse()
        // What the pre-check found stopped the parser before it was handed those bytes: that is the reason.
        if let problem = input.problem {
            report(problem)
            return nil
        }
        if let error = input.readError {
            log.add(.error, .unreadableFile, file: file, "cannot be read (\(error.localizedDescription))", hint: "check the file and its disk")
            return nil
        }
        if !parsed || collector.notELAN || collector.refusal != nil || !collector.rootClosed {
            let line = parser.lineNumber, column = parser.columnNumber
            let why: String
            if collector.notELAN { why = "the root element is not ANNOTATION_DOCUMENT" }
            else if let refusal = collector.refusal { why = refusal }
            else if !parsed { why = Self.describe(parser.parserError) }
            else {
                // libxml2's stream parser does not always say that the input ended inside an element: a file
                // cut short by an interrupted copy would read as a shorter file. The collector knows.
                why = "the file ends inside <\(collector.open.last ?? "ANNOTATION_DOCUMENT")> (\(collector.open.count) element\(collector.open.count == 1 ? "" : "s") never closed): it was cut short, by an interrupted copy or sync?"
            }
            log.add(.error, .elanStructure, file: file, line: max(1, line), column: column > 0 ? column : nil,
                    "not a readable ELAN file: \(why)", hint: "open and save it in ELAN, or check the XML near this line")
            return nil
        }
        for (line, message) in collector.problems { log.add(.error, .elanStructure, file: file, line: line, message) }
        return collector
    }

    /// What in a file stops it from being read safely, found as the file streams to the parser, each chunk
    /// before the parser is handed it: the line and character where it stops being UTF-8, or a declared
    /// encoding other than UTF-8 (or ASCII). FoundationXML traps on names that are not UTF-8, which
    /// libxml2 hands it before it reports the encoding error (found by the AnnotationFilesFuzz fuzzer).
    /// Also finds a processing instruction after the XML declaration: FoundationXML crashes on one without
    /// data (`<?pi?>`, found by the same fuzzer), and ELAN writes none.
    /// A DOCTYPE declaring an entity is refused too: FoundationXML on Linux reads its references as
    /// empty text, so a value built from one would be lost, and ELAN declares none.
    enum Precheck: Equatable {
        case notUTF8(line: Int, column: Int), declaredEncoding(String), processingInstruction(line: Int), entity(line: Int)

        /// Where the problem is: its line, and column when known (nil for a declared encoding, line 1).
        var place: (line: Int, column: Int?) {
            switch self {
            case let .notUTF8(line, column): return (line, column)
            case .declaredEncoding: return (1, nil)
            case let .processingInstruction(line), let .entity(line): return (line, nil)
            }
        }

        /// The problem in words, for XML files other than ELAN's (ELAN's reader says more, with hints).
        var reason: String {
            switch self {
            case .notUTF8: return "this byte is not UTF-8"
            case let .declaredEncoding(name): return "it declares the encoding \(Diagnostic.quote(name)), not UTF-8"
            case .processingInstruction: return "it holds a processing instruction ('<?' after the XML declaration)"
            case .entity: return "its DOCTYPE declares an entity (<!ENTITY)"
            }
        }
    }
    /// The pre-check of bytes held whole (a labeling config): nil when they may be parsed.
    static func precheck(_ bytes: [UInt8]) -> Precheck? {
        var checker = Prechecker()
        _ = checker.check(bytes, atEnd: true)
        return checker.problem
    }

    /// The pre-check carried from chunk to chunk over the bytes as they are read, so that it runs on the
    /// very bytes the parser is then handed (`PrecheckedXMLInput`), never on another open of the file.
    struct Prechecker {
        private var carry: [UInt8] = [], line = 1, column = 1, first = true, offset = 0, previous: UInt8 = 0, window: UInt64 = 0
        /// What was found; once set, nothing more is checked or handed on.
        private(set) var problem: Precheck?

        /// Checks the file's next bytes (`atEnd` with its last, possibly none) and returns those now checked,
        /// to hand to the parser: a UTF-8 sequence cut by the chunk's end waits for the next chunk. Nil once
        /// a problem is found, and then none of this chunk is handed on.
        mutating func check(_ chunk: [UInt8], atEnd: Bool) -> [UInt8]? {
            guard problem == nil else { return nil }
            let bytes = carry + chunk
            // A byte-order mark goes to the parser, which reads it, but is not text to check.
            var from = 0
            if first {
                first = false
                let head = String(decoding: bytes.prefix(200), as: UTF8.self).lowercased()
                if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { from = 3 }
                // Another declared encoding is not read (ELAN writes UTF-8; FoundationXML is safe on nothing
                // else). ASCII is UTF-8's subset: its bytes are checked as UTF-8 like the rest.
                if let declared = head.range(of: #"encoding\s*=\s*["']([^"']*)["']"#, options: .regularExpression).map({ String(head[$0]) }) {
                    let name = declared.split(whereSeparator: { $0 == "\"" || $0 == "'" }).dropFirst().first.map(String.init) ?? ""
                    if !["utf-8", "utf8", "us-ascii", "ascii"].contains(name) { problem = .declaredEncoding(name); return nil }
                }
                // The file may open with the XML declaration, and with no other processing instruction.
                let text = bytes[from...]
                if text.starts(with: Array("<?".utf8)) && !(text.starts(with: Array("<?xml".utf8)) && text.count > 5 && [0x20, 0x09, 0x0A, 0x0D].contains(text[from + 5])) {
                    problem = .processingInstruction(line: 1)
                    return nil
                }
            }
            // A sequence cut by the chunk's end waits for the next chunk.
            var end = bytes.count
            if !atEnd, let lead = bytes.suffix(3).lastIndex(where: { $0 & 0xC0 != 0x80 }), bytes[lead] >= 0xC0 { end = max(lead, from) }
            let valid = from + CSVRecordReader.firstInvalidUTF8(Array(bytes[from..<end]))
            for b in bytes[from..<valid] {
                // '<?' anywhere but at the file's start (the XML declaration).
                if previous == UInt8(ascii: "<") && b == UInt8(ascii: "?") && offset > 1 { problem = .processingInstruction(line: line); return nil }
                window = (window << 8) | UInt64(b)
                if window == ElanReader.entityMark { problem = .entity(line: line); return nil }
                if b == 0x0A { line += 1; column = 1 } else if b & 0xC0 != 0x80 { column += 1 }
                previous = b
                offset += 1
            }
            if valid < end { problem = .notUTF8(line: line, column: column); return nil }
            carry = Array(bytes[end...])
            if atEnd && !carry.isEmpty { problem = .notUTF8(line: line, column: column); return nil }
            return Array(bytes[..<end])
        }
    }

    /// Reports what the pre-check found, with ELAN's hints.
    private mutating func report(_ problem: Precheck) {
        switch problem {
        case let .notUTF8(line, column):
            log.add(.error, .encoding, file: file, line: line, column: column,
                    "not UTF-8 text, which ELAN writes: this byte is not UTF-8 (was the file re-saved in another encoding?)",
                    hint: "open it in ELAN and save it, or convert it to UTF-8 (iconv -f LATIN1 -t UTF-8)")
        case let .declaredEncoding(name):
            log.add(.error, .encoding, file: file, line: 1,
                    "the file declares the encoding \(Diagnostic.quote(name)); handpose reads ELAN files in UTF-8, as ELAN writes them",
                    hint: "convert it: iconv -f \(name.uppercased()) -t UTF-8, then change the declaration to encoding=\"UTF-8\"")
        case let .processingInstruction(line):
            log.add(.error, .elanStructure, file: file, line: line,
                    "not a readable ELAN file: it holds a processing instruction ('<?' after the XML declaration), which ELAN never writes",
                    hint: "remove it, or open and save the file in ELAN")
        case let .entity(line):
            log.add(.error, .elanStructure, file: file, line: line,
                    "not a readable ELAN file: its DOCTYPE declares an entity (<!ENTITY), which ELAN files never use (write the text itself)",
                    hint: "remove the DOCTYPE, or open and save the file in ELAN")
        }
    }

    /// "<!ENTITY" as the last eight bytes read, big-endian.
    static let entityMark: UInt64 = Array("<!ENTITY".utf8).reduce(0) { ($0 << 8) | UInt64($1) }

    /// An XML parser's error in words, for a user who has never read libxml2's codes.
    static func describe(_ error: Error?) -> String {
        guard let error else { return "malformed XML" }
        let code = XMLParser.ErrorCode(rawValue: (error as NSError).code)
        switch code {
        case .emptyDocumentError?: return "the file is empty"
        case .prematureDocumentEndError?: return "the file ends early: it was cut short, by an interrupted copy or sync?"
        case .invalidCharacterError?, .invalidCharacterRefError?, .invalidCharacterInEntityError?:
            return "a character that is not valid in the file's encoding (ELAN writes UTF-8; was it re-saved in another encoding?)"
        case .tagNameMismatchError?: return "an element is closed by a tag of another name"
        case .notWellBalancedError?, .gtRequiredError?: return "a tag is left open or broken"
        case .undeclaredEntityError?, .entityReferenceWithoutNameError?, .entityReferenceMissingSemiError?:
            return "an '&' that is not a character reference (write &amp; for '&')"
        default: return "malformed XML (libxml2 error \((error as NSError).code))"
        }
    }

    /// Tiers chosen, times resolved, labels mapped, media found. The annotations are read in file order
    /// (a tier's annotations are one run of it, tiers in the order `chooseTiers` gives them), and each
    /// chunk of them is freed once turned into segments when no annotation's times depend on another's.
    private mutating func segments(_ c: Collector) -> [Segment] {
        guard let chosen = chooseTiers(c) else { return [] }
        guard let (clip, origin) = locateMedia(c) else { return [] }
        var out: [Segment] = []
        out.reserveCapacity(chosen.reduce(0) { $0 + c.tiers[$1].annotations })
        // Labels by value index, mapped once (nil: dropped by --label-map or empty).
        // Value -1 (no ANNOTATION_VALUE element) reads as the empty value: an error naming the annotation.
        c.values.append("")
        let missing = Int32(c.values.count - 1)
        let labels: [String?] = c.values.map { v in
            let t = v.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !t.isEmpty else { return nil }
            return options.labelMap[t] ?? t
        }
        // The shared label rule (LabelText), checked once per distinct value.
        let labelProblems: [String?] = labels.map { $0.flatMap { $0.isEmpty ? nil : LabelText.problem($0) } }
        var isChosen = [Bool](repeating: false, count: c.tiers.count)
        for t in chosen { isChosen[t] = true }
        var tierIndex = -1, first = 0, group = "", shared = ""
        for chunk in c.annotations.chunkIndices {
            for i in c.annotations.indices(ofChunk: chunk) {
                var a = c.annotations[i]
                guard isChosen[Int(a.tier)] else { continue }
                if Int(a.tier) != tierIndex {
                    if tierIndex >= 0 { reportOverlaps(out[first...], shared: shared) }
                    tierIndex = Int(a.tier)
                    first = out.count
                    group = "tier \(Diagnostic.quote(c.tiers[tierIndex].id))"
                    shared = group + ", annotation"
                }
                if a.value < 0 { a.value = missing }
                if !c.badSlots.isEmpty && (c.badSlots.contains(a.slot1) || c.badSlots.contains(a.slot2)) { continue }
                let id = c.id(a), place = "\(group), annotation \(id)"
                guard let (t1, t2) = resolve(i, c) else { continue }
                guard let label = labels[Int(a.value)] else {
                    log.add(.error, .emptyLabel, file: file, line: Int(a.line), "\(place): empty value",
                            hint: "an empty value is not a class: give it a value in ELAN, or delete it")
                    continue
                }
                guard !label.isEmpty else { continue }   // dropped by --label-map
                if let problem = labelProblems[Int(a.value)] {
                    log.add(.error, .badLabel, file: file, line: Int(a.line), "\(place): \(problem)", hint: "labels are one line of text without control characters")
                    continue
                }
                if t2 <= t1 {
                    log.add(.error, .startNotBeforeEnd, file: file, line: Int(a.line),
                            "\(place): \(t2 == t1 ? "zero length" : "ends before it starts") (\(t1) ms to \(t2) ms)", hint: "fix its time slots in ELAN")
                    continue
                }
                if t1 + origin < 0 || t2 + origin > Collector.maxMilliseconds {
                    log.add(.error, .badTime, file: file, line: Int(a.line),
                            "\(place): \(t1) ms to \(t2) ms with the media's TIME_ORIGIN \(origin) ms lies outside the clip (media time \(t1 + origin) ms to \(t2 + origin) ms)",
                            hint: "check TIME_ORIGIN in the file's MEDIA_DESCRIPTOR")
                    continue
                }
                var s = Segment(videoFile: clip.file, videoPath: clip.relative, label: label, start: Double(t1 + origin) / 1000,
                                end: Double(t2 + origin) / 1000, source: file, line: Int(a.line))
                s.contextGroup = shared
                s.contextItem = id
                out.append(s)
            }
            if !c.dependent { c.annotations.free(chunk: chunk) }
        }
        if tierIndex >= 0 { reportOverlaps(out[first...], shared: shared) }
        return out
    }

    /// Two annotations of one tier over the same time: the tier is one label at a time. (Checked on the
    /// tier's segments, in 4 bytes an annotation: a million of them hold no second list of times.)
    private mutating func reportOverlaps(_ tier: ArraySlice<Segment>, shared: String) {
        var order = [Int32](Int32(tier.startIndex)..<Int32(tier.endIndex))
        order.sort { (tier[Int($0)].start!, tier[Int($0)].end!) < (tier[Int($1)].start!, tier[Int($1)].end!) }
        var reach: Int32?
        for k in order {
            let s = tier[Int(k)]
            if let r = reach, s.start! < tier[Int(r)].end! {
                log.add(.warning, .overlap, file: file, line: s.line,
                        "\(shared) \(s.contextItem ?? "") overlaps annotation \(tier[Int(r)].contextItem ?? "") (\(Self.ms(s.start!)) ms before \(Self.ms(tier[Int(r)].end!)) ms)",
                        hint: "one tier holds one label at a time; put simultaneous labels on separate tiers (one per hand)")
            }
            if reach == nil || s.end! > tier[Int(reach!)].end! { reach = k }
        }
    }

    /// Seconds of a segment back to the file's milliseconds (with the media's origin), for messages.
    static func ms(_ seconds: Double) -> String { InputRange.milliseconds(seconds).map { "\($0)" } ?? "\(seconds * 1000)" }

    /// The tiers `--tier` names (globs), or the only tier holding annotations; otherwise an error
    /// listing every tier with its annotation count and linguistic type.
    private mutating func chooseTiers(_ c: Collector) -> [Int]? {
        let listing = c.tiers.map { t in
            "\(Diagnostic.quote(t.id)) (\(t.annotations) annotations, type \(Diagnostic.quote(t.type))" + (t.parent.map { ", parent \(Diagnostic.quote($0))" } ?? "") + ")"
        }.joined(separator: "; ")
        if !options.tiers.isEmpty {
            let chosen = c.tiers.indices.filter { i in options.tiers.contains { fnmatch($0, c.tiers[i].id, 0) == 0 } }
            for pattern in options.tiers where !c.tiers.contains(where: { fnmatch(pattern, $0.id, 0) == 0 }) {
                log.add(.error, .tierChoice, file: file, "--tier \(Diagnostic.quote(pattern)) names no tier", hint: "the tiers: \(listing)")
            }
            return options.tiers.allSatisfy({ p in c.tiers.contains { fnmatch(p, $0.id, 0) == 0 } }) ? chosen : nil
        }
        let candidates = c.tiers.indices.filter { c.tiers[$0].annotations > 0 }
        if candidates.count == 1 { return candidates }
        // The layout ElanWriter gives overlapping segments (`labels`, then `labels-2`, `labels-3`, ...: ELAN
        // holds one annotation at a time on a tier) is one set of labels, read together: what convert
        // writes reads back without --tier.
        if candidates.count > 1, candidates.allSatisfy({ ElanWriter.isLabelTier(c.tiers[$0].id) }),
           candidates.contains(where: { c.tiers[$0].id == ElanWriter.labelTier }) {
            return candidates
        }
        if candidates.isEmpty {
            log.add(.error, .noRows, file: file, "no annotations: every tier is empty" + (c.tiers.isEmpty ? " (the file has no tiers)" : ""))
            return nil
        }
        log.add(.error, .tierChoice, file: file, "\(candidates.count) tiers hold annotations; say which hold the labels with --tier NAME (a glob; repeatable)",
                hint: "the tiers: \(listing)")
        return nil
    }

    /// The clip: RELATIVE_MEDIA_URL (from the .eaf's folder), then MEDIA_URL, then the one file of
    /// that name under the media root; a video descriptor before an audio one. With its TIME_ORIGIN.
    private mutating func locateMedia(_ c: Collector) -> (MediaLocator.Found, Int64)? {
        guard let d = c.media.first(where: { $0.mime.hasPrefix("video") }) ?? c.media.first else {
            log.add(.error, .noSuchFile, file: file, line: 1, "the file names no media (no MEDIA_DESCRIPTOR in its HEADER)",
                    hint: "link the clip in ELAN (Edit > Linked Files) and save")
            return nil
        }
        // A refused TIME_ORIGIN is an error on its own line; no time of this file can be placed on the clip.
        guard let origin = d.origin else { return nil }
        let folder = URL(fileURLWithPath: file).deletingLastPathComponent().path
        switch media.locate(written: [d.relative, d.url].compactMap { $0 }, relativeTo: folder) {
        case .found(let f): return (f, origin)
        case .failure(let kind, let message, let hint):
            log.add(.error, kind, file: file, line: d.line, message, hint: hint)
            return nil
        }
    }

    /// An annotation's (begin, end) in ms on the annotation timeline, nil where it cannot be placed
    /// (reported).
    private mutating func resolve(_ i: Int, _ c: Collector) -> (Int64, Int64)? {
        if let t = Self.times(of: i, c, depth: 0) { return t }
        let a = c.annotations[i]
        let place = "tier \(Diagnostic.quote(c.tiers[Int(a.tier)].id)), annotation \(c.id(a))"
        if a.slot1 >= 0 {
            let slot = Self.placement(tier: Int(a.tier), c).time(a.slot1) == nil ? a.slot1 : a.slot2
            log.add(.error, .unaligned, file: file, line: Int(a.line),
                    "\(place): time slot \(c.slotName(slot)) has no time, and no aligned slot on both sides of it on its tier to place it between",
                    hint: "align the annotation in ELAN (give its boundaries a time) and save")
        } else {
            log.add(.error, .unaligned, file: file, line: Int(a.line),
                    "\(place): its parent annotation \(c.refs[i]?.parent ?? "(none)") has no time, or is not in the file")
        }
        return nil
    }

    /// An annotation's (begin, end): its slots placed on its tier, or for a REF_ANNOTATION its parent's
    /// times, split evenly among the annotations of its chain (those of its tier with the same parent).
    static func times(of i: Int, _ c: Collector, depth: Int) -> (Int64, Int64)? {
        let a = c.annotations[i]
        if a.slot1 >= 0 {
            // Aligned slots keep their written times (placement moves only unaligned ones): no tier
            // placement is built for a file whose slots are all aligned.
            let b = c.slotTime[Int(a.slot1)], e = c.slotTime[Int(a.slot2)]
            if b >= 0 && e >= 0 { return (b, e) }
            let placed = placement(tier: Int(a.tier), c)
            guard let b = placed.time(a.slot1), let e = placed.time(a.slot2) else { return nil }
            return (b, e)
        }
        if let known = c.timesMemo[i] { return known }
        var result: (Int64, Int64)?
        if let ref = c.refs[i], depth < 64, let parent = c.annotationIndex[ref.parent], let (b, e) = times(of: parent, c, depth: depth + 1) {
            // Every chain ordered once, and each member's place in it kept: a tier of m annotations referring to
            // one parent was ordered once for each of them, m^2 to m^3 steps (a file of 20,000 took hours).
            if c.chainPlaces == nil {
                var chains: [String: [Int]] = [:]
                for (k, r) in c.refs { chains["\(c.annotations[k].tier)/\(r.parent)", default: []].append(k) }
                var places: [Int: (index: Int, count: Int)] = [:]
                for members in chains.values {
                    let chain = ordered(members.sorted(), c)
                    for (k, m) in chain.enumerated() { places[m] = (k, chain.count) }
                }
                c.chainPlaces = places
            }
            let place = c.chainPlaces![i] ?? (0, 1)
            let n = Int64(place.count), k = Int64(place.index)
            result = n == 1 ? (b, e) : (b + k * (e - b) / n, b + (k + 1) * (e - b) / n)
        }
        c.timesMemo[i] = result
        return result
    }

    /// A tier's slots in time order with their times (aligned, or placed), looked up by bisection.
    struct Placement {
        var slots: [Int32] = []
        var times: [Int64] = []
        func time(_ slot: Int32) -> Int64? {
            var lo = 0, hi = slots.count
            while lo < hi { let mid = (lo + hi) / 2; if slots[mid] < slot { lo = mid + 1 } else { hi = mid } }
            return lo < slots.count && slots[lo] == slot && times[lo] >= 0 ? times[lo] : nil
        }
    }

    /// The times of a tier's own slots: aligned ones as written, unaligned ones evenly between the
    /// nearest aligned slots of the same tier in time-order position (ELAN's integer division);
    /// slots with no aligned slot on one side are left out.
    static func placement(tier: Int, _ c: Collector) -> Placement {
        if let known = c.placements[tier] { return known }
        // Every tier's slots gathered in one pass over the annotations, not one pass a tier (a file of many
        // tiers, each with an unaligned slot, cost tiers x annotations).
        if c.tierSlots == nil {
            var all: [Int32: [Int32]] = [:]
            for i in c.annotations.indices {
                let a = c.annotations[i]
                if a.slot1 >= 0 { all[a.tier, default: []] += [a.slot1, a.slot2] }
            }
            c.tierSlots = all
        }
        var slots = c.tierSlots![Int32(tier)] ?? []
        slots.sort()
        var order: [Int32] = []
        order.reserveCapacity(slots.count)
        for s in slots where order.last != s { order.append(s) }
        var times = order.map { c.slotTime[Int($0)] }
        var previous: Int?
        var pending: [Int] = []
        for k in order.indices {
            let t = times[k]
            if t < 0 { pending.append(k); continue }
            if let p = previous, !pending.isEmpty {
                let step = (t - times[p]) / Int64(k - p)
                for (j, u) in pending.enumerated() { times[u] = times[p] + Int64(j + 1) * step }
            }
            pending = []
            previous = k
        }
        let placed = Placement(slots: order, times: times)
        c.placements[tier] = placed
        return placed
    }

    /// The annotations of one chain in `PREVIOUS_ANNOTATION` order (file order where there is none).
    static func ordered(_ members: [Int], _ c: Collector) -> [Int] {
        let byPrevious = Dictionary(members.compactMap { i in c.refs[i]?.previous.map { ($0, i) } }, uniquingKeysWith: { a, _ in a })
        guard var current = members.first(where: { c.refs[$0]?.previous == nil }) else { return members }
        var out = [current], seen: Set = [current]
        while let next = byPrevious[c.id(c.annotations[current])], seen.insert(next).inserted { out.append(next); current = next }
        return out.count == members.count ? out : members
    }

    /// The SAX side: elements in, compact records out.
    final class Collector: NSObject, XMLParserDelegate {
        var notELAN = false
        var media: [MediaDescriptor] = []
        /// Time slots: `ts<N>` ids (what ELAN writes) by number, others by name; each slot's time (-1: unaligned).
        var slotByNumber: [Int32] = []
        var slotByName: [String: Int32] = [:]
        var slotTime: [Int64] = []
        /// Ids that are not `a<N>`, which `Annotation.id` indexes from -1 down.
        var otherIDs: [String] = []
        var tiers: [Tier] = []
        let annotations = AnnotationStore()
        /// Set when some annotation's times depend on others' (a REF_ANNOTATION, or an unaligned slot
        /// placed among its tier's slots): then every annotation is kept until all are resolved.
        var dependent = false
        /// Annotation values, which `Annotation.value` indexes: each distinct value once while fewer than
        /// `internLimit` are known (glosses and classes repeat), then one per annotation, so that a file of
        /// a million different values does not also hold a million-entry dictionary.
        var values: [String] = []
        private var valueIndex: [String: Int32] = [:]
        static let internLimit = 4096
        /// REF_ANNOTATIONs' parent and previous annotation, by annotation index.
        var refs: [Int: (parent: String, previous: String?)] = [:]
        var problems: [(Int, String)] = []
        /// Each tier's slot times, once worked out (`ElanReader.placement`).
        var placements: [Int: Placement] = [:]
        /// REF annotations' times worked out (`ElanReader.times`).
        var timesMemo: [Int: (Int64, Int64)?] = [:]
        /// Each tier's slots (two an aligned annotation), gathered on first need by `placement`.
        var tierSlots: [Int32: [Int32]]?
        /// Each REF annotation's place in its chain (its tier's annotations with the same parent) and the chain's
        /// length, made on first need by `times`.
        var chainPlaces: [Int: (index: Int, count: Int)]?
        /// Annotations by id, built when a REF_ANNOTATION needs its parent.
        lazy var annotationIndex: [String: Int] = {
            var index: [String: Int] = [:]
            for k in annotations.indices { index[id(annotations[k])] = k }
            return index
        }()

        /// The slot an id names.
        func slot(_ id: String) -> Int32? {
            if let n = Self.number(id), n < slotByNumber.count, slotByNumber[n] >= 0 { return slotByNumber[n] }
            return slotByName[id]
        }
        /// A slot's id, for messages (the table from slots to numbers is made at the first message).
        func slotName(_ slot: Int32) -> String {
            let n = slotNumbers[Int(slot)]
            return n >= 0 ? "ts\(n)" : slotNames[slot] ?? "#\(slot)"
        }
        /// The slots kept by name, from slot to name (made at the first message: a scan a message was square time).
        private lazy var slotNames: [Int32: String] = Dictionary(slotByName.map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
        private lazy var slotNumbers: [Int32] = {
            var numbers = [Int32](repeating: -1, count: slotTime.count)
            for (n, slot) in slotByNumber.enumerated() where slot >= 0 { numbers[Int(slot)] = Int32(n) }
            return numbers
        }()
        /// An annotation's id as written.
        func id(_ a: Annotation) -> String { a.id >= 0 ? "a\(a.id)" : otherIDs[Int(-1 - a.id)] }
        /// N of an id `<prefix>N` (N without leading zeros, below 2^31), else nil.
        static func number(_ id: String, prefix: String = "ts") -> Int? {
            let u = id.utf8, p = prefix.utf8.count
            guard u.count > p, u.count < p + 10, id.hasPrefix(prefix) else { return nil }
            let digits = u.dropFirst(p)
            guard digits.first != UInt8(ascii: "0") || digits.count == 1, digits.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
            return Int(id.dropFirst(p)).flatMap { $0 < Int(Int32.max) ? $0 : nil }
        }
        /// The compact form of an annotation id (`Annotation.id`).
        private func compactID(_ id: String) -> Int32 {
            if let n = Self.number(id, prefix: "a") { return Int32(n) }
            otherIDs.append(id)
            return Int32(-otherIDs.count)
        }
        private var current: Annotation?
        private var currentRef: (parent: String, previous: String?)?
        private var text = ""
        private var inValue = false
        private var tier = -1
        private var seenRoot = false
        /// Slots whose TIME_VALUE was refused (reported): kept as unaligned so that the annotations naming
        /// them are not also reported as naming no slot, but no time is made up for those annotations.
        var badSlots: Set<Int32> = []
        /// Elements opened and not yet closed, outermost first; empty again once the root is closed.
        private(set) var open: [String] = []
        private(set) var rootClosed = false
        /// Why the file is refused though its XML is well formed (a declared entity).
        private(set) var refusal: String?
        /// The largest time in milliseconds a slot or origin may hold (`InputRange.seconds`).
        static let maxMilliseconds = Int64(InputRange.seconds.upperBound) * 1000

        func parser(_ parser: XMLParser, foundInternalEntityDeclarationWithName name: String, value: String?) {
            // ELAN writes no entities; a value built from them would be read as empty by this parser.
            refusal = "it declares the entity \(Diagnostic.quote(name)) in its DOCTYPE; ELAN files use none (write the text itself)"
            parser.abortParsing()
        }


        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes a: [String: String] = [:]) {
            open.append(name)
            let line = parser.lineNumber
            if !seenRoot {
                seenRoot = true
                if name != "ANNOTATION_DOCUMENT" { notELAN = true; parser.abortParsing() }
                return
            }
            switch name {
            case "MEDIA_DESCRIPTOR":
                var origin: Int64? = 0
                if let o = a["TIME_ORIGIN"] {
                    if let ms = Int64(o.trimmingCharacters(in: .whitespaces)), (-Self.maxMilliseconds...Self.maxMilliseconds).contains(ms) {
                        origin = ms
                    } else {
                        // The descriptor is kept, so the file is not also said to name no media.
                        problems.append((line, "TIME_ORIGIN \(Diagnostic.quote(o)) is not a whole number of milliseconds within ±\(Self.maxMilliseconds)"))
                        origin = nil
                    }
                }
                media.append(MediaDescriptor(url: a["MEDIA_URL"] ?? "", relative: a["RELATIVE_MEDIA_URL"], mime: a["MIME_TYPE"] ?? "",
                                             origin: origin, line: line))
            case "TIME_SLOT":
                guard let id = a["TIME_SLOT_ID"] else { problems.append((line, "a TIME_SLOT without TIME_SLOT_ID")); return }
                var t: Int64 = -1
                if let v = a["TIME_VALUE"] {
                    // A bad value is reported here and its slot kept (as unaligned), so the annotations naming
                    // it are not also reported as naming a slot that does not exist.
                    if let ms = Int64(v.trimmingCharacters(in: .whitespaces)), (0...Self.maxMilliseconds).contains(ms) {
                        t = ms
                    } else {
                        problems.append((line, "time slot \(id): TIME_VALUE \(Diagnostic.quote(v)) is not a whole number of milliseconds from 0 to \(Self.maxMilliseconds)"))
                        badSlots.insert(Int32(slotTime.count))
                    }
                }
                let index = Int32(slotTime.count)
                // By number in a table while the numbers stay near the count of slots (as ELAN writes them); a
                // number far past it (ts49999999 alone would make a table of 200 MB) by name.
                if let n = Self.number(id), n < 50_000_000, n <= 2 * slotTime.count + 65_536 {
                    if n >= slotByNumber.count { slotByNumber += [Int32](repeating: -1, count: max(n + 1 - slotByNumber.count, slotByNumber.count)) }
                    slotByNumber[n] = index
                } else {
                    slotByName[id] = index
                }
                slotTime.append(t)
            case "TIER":
                tiers.append(Tier(id: a["TIER_ID"] ?? "", type: a["LINGUISTIC_TYPE_REF"] ?? "", parent: a["PARENT_REF"], line: line))
                tier = tiers.count - 1
            case "ALIGNABLE_ANNOTATION":
                let id = a["ANNOTATION_ID"] ?? ""
                guard let s1 = a["TIME_SLOT_REF1"].flatMap(slot), let s2 = a["TIME_SLOT_REF2"].flatMap(slot) else {
                    problems.append((line, "tier \(Diagnostic.quote(tiers.last?.id ?? "")), annotation \(id): a time slot it names is not in TIME_ORDER"))
                    return
                }
                current = Annotation(id: compactID(id), tier: Int32(tier), slot1: s1, slot2: s2, value: -1, line: Int32(clamping: line))
                currentRef = nil
            case "REF_ANNOTATION":
                current = Annotation(id: compactID(a["ANNOTATION_ID"] ?? ""), tier: Int32(tier), slot1: -1, slot2: -1, value: -1, line: Int32(clamping: line))
                currentRef = (a["ANNOTATION_REF"] ?? "", a["PREVIOUS_ANNOTATION"])
            case "ANNOTATION_VALUE":
                inValue = true
                text = ""
            default: break
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { if inValue { text += string } }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            if !open.isEmpty { open.removeLast() }
            if open.isEmpty && name == "ANNOTATION_DOCUMENT" { rootClosed = true }
            switch name {
            case "ANNOTATION_VALUE":
                inValue = false
                if let known = valueIndex[text] { current?.value = known } else {
                    let k = Int32(values.count)
                    values.append(text)
                    if valueIndex.count < Self.internLimit { valueIndex[text] = k }
                    current?.value = k
                }
            case "ALIGNABLE_ANNOTATION", "REF_ANNOTATION":
                // Its own tier, the one open when it began (a malformed file can open a TIER inside it):
                // an annotation outside any tier is dropped (found by AnnotationFilesFuzz).
                guard let a = current else { return }
                guard a.tier >= 0, Int(a.tier) < tiers.count else {
                    problems.append((Int(a.line), "annotation \(id(a)) lies outside any TIER"))
                    current = nil
                    return
                }
                if let r = currentRef { refs[annotations.count] = r; dependent = true }
                if a.slot1 >= 0 && (slotTime[Int(a.slot1)] < 0 || slotTime[Int(a.slot2)] < 0) { dependent = true }
                annotations.append(a)
                tiers[Int(a.tier)].annotations += 1
                current = nil
            case "TIER": tier = -1
            default: break
            }
        }
    }
}

/// An ELAN file's bytes for XMLParser, each chunk pre-checked (`ElanReader.Prechecker`) before the parser
/// is handed any of it, all from one open of the file: the bytes parsed are the bytes checked. The pre-check
/// used to open the file by name a second time, and passed a file it could not open, so a file swapped in
/// between reached FoundationXML unchecked (a processing instruction crashed it, the audit of 2026-11-29).
/// A problem found, or a read that fails, ends the stream with an error (-1): the parser stops there.
final class PrecheckedXMLInput: InputStream {
    private let handle: FileHandle
    private var checker = ElanReader.Prechecker()
    /// Checked bytes not yet handed on, from `position`.
    private var ready: [UInt8] = []
    private var position = 0
    private var atEnd = false
    /// What a read of the file failed with, if one did.
    private(set) var readError: Error?
    /// What the pre-check found, if anything: the parser was handed none of the chunk it was found in.
    var problem: ElanReader.Precheck? { checker.problem }

    /// Reads the file open at `handle`, which closes with it.
    init(handle: FileHandle) {
        self.handle = handle
        // InputStream's own stream (of no bytes) is never read: every read is answered here.
        super.init(data: Data())
    }

    override func open() {}
    override func close() {}
    override var streamError: Error? { readError }
    override var hasBytesAvailable: Bool { position < ready.count || !(atEnd || problem != nil || readError != nil) }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        while position == ready.count {
            guard problem == nil, readError == nil else { return -1 }
            if atEnd { return 0 }
            let chunk: [UInt8]
            do { chunk = try handle.read(upToCount: AnnotationFileReader.chunkSize).map { [UInt8]($0) } ?? [] } catch {
                readError = error
                return -1
            }
            atEnd = chunk.isEmpty
            guard let checked = checker.check(chunk, atEnd: atEnd) else { return -1 }
            ready = checked
            position = 0
        }
        let n = min(len, ready.count - position)
        ready.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress! + position, count: n) }
        position += n
        return n
    }
}
