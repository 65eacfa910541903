import Foundation

/// An ELAN file with one tier's annotations replaced and everything else kept as it was written:
/// other tiers, linguistic types, vocabularies, the header and its properties, formatting. What `review`
/// saves an ELAN file with, where writing the file anew from its segments would drop all of that.
/// The tier's new annotations get new time slots, placed in TIME_ORDER by their times, and new ids after
/// the highest in the file (the header's `lastUsedAnnotationId` raised to match, as ELAN keeps it); the
/// slots only its old annotations used are removed. Works on the text (ELAN writes one element per
/// line, attribute values escaped), checked by reading the result back (`ElanTierEditTests`).
public enum ElanTierEdit {
    public struct Refusal: Error, CustomStringConvertible, Equatable {
        public var description: String
        init(_ d: String) { description = d }
    }

    /// Where a save goes: the tier to rewrite, the media's time origin (ms; annotation time t is clip time
    /// t + origin) and the clip the file links (its absolute path).
    public struct Target: Equatable, Sendable {
        public var tier: String
        public var origin: Int64
        public var clip: String
    }

    /// An annotation to write: its value and its times in milliseconds on the annotation timeline.
    public struct Annotation: Equatable, Sendable {
        public var value: String
        public var start: Int64
        public var end: Int64
        public init(value: String, start: Int64, end: Int64) { self.value = value; self.start = start; self.end = end }
    }

    /// `text` (an .eaf document) with the annotations of the tier `tier` replaced by `annotations`.
    public static func replacing(tier: String, in text: String, with annotations: [Annotation]) throws -> String {
        let doc = text as NSString
        // Written as ELAN writes it, or not edited: the attributes this edit reads in double quotes, and
        // time slots as empty elements.
        if text.range(of: #"\b(TIER_ID|TIME_SLOT_ID|TIME_VALUE|TIME_SLOT_REF[12]|ANNOTATION_ID)\s*=\s*'"#, options: .regularExpression) != nil {
            throw Refusal("the file quotes its ids with ' rather than \", as ELAN writes them; open and save it in ELAN first")
        }
        if text.range(of: #"<TIME_SLOT\b[^>]*[^/]>"#, options: .regularExpression) != nil {
            throw Refusal("the file writes a time slot as an element with content, not as ELAN writes it; open and save it in ELAN first")
        }
        func all(_ pattern: String, in range: NSRange? = nil) -> [NSTextCheckingResult] {
            let re = try! NSRegularExpression(pattern: pattern, options: [])
            return re.matches(in: text, range: range ?? NSRange(location: 0, length: doc.length))
        }
        func group(_ m: NSTextCheckingResult, _ k: Int) -> String? {
            m.range(at: k).location == NSNotFound ? nil : doc.substring(with: m.range(at: k))
        }

        // The tier: its start tag, self-closing or followed by its content and the next </TIER>.
        guard let tag = all(#"<TIER\b[^>]*>"#).first(where: { m in
            all(#"\bTIER_ID\s*=\s*"([^"]*)""#, in: m.range).first.map { unescape(group($0, 1) ?? "") == tier } ?? false
        }) else { throw Refusal("the file has no tier \(Diagnostic.quote(tier))") }
        let selfClosing = doc.substring(with: tag.range).hasSuffix("/>")
        let innerStart = tag.range.location + tag.range.length
        var inner = NSRange(location: innerStart, length: 0)
        if !selfClosing {
            let close = doc.range(of: "</TIER>", range: NSRange(location: innerStart, length: doc.length - innerStart))
            guard close.location != NSNotFound else { throw Refusal("tier \(Diagnostic.quote(tier)) is not closed") }
            inner.length = close.location - innerStart
        }
        let oldContent = doc.substring(with: inner)
        if oldContent.contains("<REF_ANNOTATION") { throw Refusal("tier \(Diagnostic.quote(tier)) holds reference annotations, whose times come from another tier") }
        // Annotations carrying more than an id, two slots and a value (a vocabulary entry, an external
        // reference, a language) would lose it when rewritten.
        for m in all(#"<(ALIGNABLE_ANNOTATION|ANNOTATION_VALUE|ANNOTATION)\b([^>]*)>"#, in: inner) {
            let names = all(#"([A-Za-z_:][-\w.:]*)\s*="#, in: m.range(at: 2)).compactMap { group($0, 1) }
            if let extra = names.first(where: { !["ANNOTATION_ID", "TIME_SLOT_REF1", "TIME_SLOT_REF2"].contains($0) }) {
                throw Refusal("annotations of tier \(Diagnostic.quote(tier)) carry \(extra), which a rewrite would drop; edit this tier in ELAN")
            }
        }

        // Slots: those the tier's old annotations use, those anything else uses.
        let refPattern = #"\bTIME_SLOT_REF[12]\s*=\s*"([^"]*)""#
        let oldRefs = Set(all(refPattern, in: inner).compactMap { group($0, 1) })
        let before = NSRange(location: 0, length: inner.location), after = NSRange(location: inner.location + inner.length, length: doc.length - inner.location - inner.length)
        let usedElsewhere = Set((all(refPattern, in: before) + all(refPattern, in: after)).compactMap { group($0, 1) })

        // TIME_ORDER and its slots.
        guard let order = all(#"<TIME_ORDER\s*/>|<TIME_ORDER\s*>([\s\S]*?)</TIME_ORDER>"#).first else { throw Refusal("the file has no TIME_ORDER") }
        struct Slot { var element: String; var id: String; var time: Int64? }
        var slots: [Slot] = []
        var highestSlot = 0
        for m in all(#"<TIME_SLOT\b[^>]*?/>"#, in: order.range) {
            let element = doc.substring(with: m.range)
            guard let id = all(#"\bTIME_SLOT_ID\s*=\s*"([^"]*)""#, in: m.range).first.flatMap({ group($0, 1) }) else {
                throw Refusal("a time slot without TIME_SLOT_ID: \(Diagnostic.elided(element))")
            }
            let time = all(#"\bTIME_VALUE\s*=\s*"(\d+)""#, in: m.range).first.flatMap { group($0, 1) }.flatMap { Int64($0) }
            if let n = ElanReader.Collector.number(id) { highestSlot = max(highestSlot, n) }
            if oldRefs.contains(id) && !usedElsewhere.contains(id) { continue }
            slots.append(Slot(element: element, id: id, time: time))
        }
        let lineStart = { (location: Int) -> String in
            // The white space before `location` on its line, to indent new elements as their neighbours.
            var k = location
            while k > 0, let c = Unicode.Scalar(doc.character(at: k - 1)), c == " " || c == "\t" { k -= 1 }
            return doc.substring(with: NSRange(location: k, length: location - k))
        }
        let orderIndent = lineStart(order.range.location)
        let slotIndent = all(#"<TIME_SLOT\b"#, in: order.range).first.map { lineStart($0.range.location) } ?? orderIndent + "    "

        // New ids after the highest in the file (and the header's lastUsedAnnotationId).
        var highestID = all(#"\bANNOTATION_ID\s*=\s*"a(\d+)""#).compactMap { group($0, 1).flatMap { Int($0) } }.max() ?? 0
        let lastUsed = all(#"(<PROPERTY\s+NAME\s*=\s*"lastUsedAnnotationId"\s*>)\s*(\d+)\s*(</PROPERTY>)"#).first
        if let lastUsed, let n = group(lastUsed, 2).flatMap({ Int($0) }) { highestID = max(highestID, n) }

        // New ids count up from the highest: ids so large that they cannot (an edited or hostile file) are refused.
        guard highestID <= Int.max - annotations.count, highestSlot <= Int.max - 2 * annotations.count else {
            throw Refusal("the file's annotation or time slot ids are too large to number new ones after (a\(highestID), ts\(highestSlot))")
        }
        let sorted = annotations.sorted { ($0.start, $0.end) < ($1.start, $1.end) }
        var newSlots: [Slot] = []
        var written: [(id: String, ref1: String, ref2: String, value: String)] = []
        for a in sorted {
            guard a.start >= 0, a.end > a.start else { throw Refusal("an annotation from \(a.start) ms to \(a.end) ms: ELAN needs a start at or after 0 and before the end") }
            let s1 = "ts\(highestSlot + 1)", s2 = "ts\(highestSlot + 2)"
            highestSlot += 2
            newSlots.append(Slot(element: "<TIME_SLOT TIME_SLOT_ID=\"\(s1)\" TIME_VALUE=\"\(a.start)\"/>", id: s1, time: a.start))
            newSlots.append(Slot(element: "<TIME_SLOT TIME_SLOT_ID=\"\(s2)\" TIME_VALUE=\"\(a.end)\"/>", id: s2, time: a.end))
            highestID += 1
            written.append(("a\(highestID)", s1, s2, a.value))
        }
        // The new slots merged in time order before the first kept slot that is later (unaligned slots
        // stay where they are, beside their neighbours).
        newSlots.sort { ($0.time!, $0.id.count, $0.id) < ($1.time!, $1.id.count, $1.id) }
        var merged: [Slot] = []
        var pending = newSlots[...]
        for s in slots {
            if let t = s.time { while let n = pending.first, n.time! < t { merged.append(n); pending = pending.dropFirst() } }
            merged.append(s)
        }
        merged += pending
        let orderText = merged.isEmpty ? "<TIME_ORDER/>"
            : "<TIME_ORDER>\n" + merged.map { slotIndent + $0.element }.joined(separator: "\n") + "\n" + orderIndent + "</TIME_ORDER>"

        let tierIndent = lineStart(tag.range.location)
        let a1 = slotIndent.count > orderIndent.count ? tierIndent + String(slotIndent.dropFirst(orderIndent.count)) : tierIndent + "    "
        let step = String(a1.dropFirst(tierIndent.count))
        let body = written.map { w in
            "\(a1)<ANNOTATION>\n\(a1)\(step)<ALIGNABLE_ANNOTATION ANNOTATION_ID=\"\(w.id)\" TIME_SLOT_REF1=\"\(w.ref1)\" TIME_SLOT_REF2=\"\(w.ref2)\">\n" +
                "\(a1)\(step)\(step)<ANNOTATION_VALUE>\(ElanWriter.escape(w.value))</ANNOTATION_VALUE>\n\(a1)\(step)</ALIGNABLE_ANNOTATION>\n\(a1)</ANNOTATION>"
        }.joined(separator: "\n")
        let tierContent = written.isEmpty ? "" : "\n" + body + "\n" + tierIndent

        // Replaced from the end of the document back, so the earlier ranges stay where they are.
        var edits: [(NSRange, String)] = []
        if selfClosing {
            let t = doc.substring(with: tag.range)
            edits.append((tag.range, written.isEmpty ? t : String(t.dropLast(2)).trimmingCharacters(in: .whitespaces) + ">" + tierContent + "</TIER>"))
        } else {
            edits.append((inner, tierContent))
        }
        edits.append((order.range, orderText))
        if let lastUsed { edits.append((lastUsed.range(at: 2), String(highestID))) }
        let out = NSMutableString(string: text)
        for (range, replacement) in edits.sorted(by: { $0.0.location > $1.0.location }) { out.replaceCharacters(in: range, with: replacement) }
        return out as String
    }

    static func unescape(_ s: String) -> String {
        s.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
    }
}
