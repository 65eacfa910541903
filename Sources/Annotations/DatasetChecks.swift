import Foundation

/// Checks of the data set as a whole: duplicates, overlapping labels, label spellings, class balance.
/// Segments are handled by index and clips and labels by number, so a million rows cost a few
/// arrays of integers rather than copies of the segments.
extension Validator {
    func datasetChecks(_ set: inout AnnotationSet, clipOf: [Int32]) {
        let segments = set.segments
        let classes = set.classes
        var labelNumber: [String: Int32] = [:]
        for (i, c) in classes.enumerated() { labelNumber[c] = Int32(i) }
        let labelOf = segments.map { labelNumber[$0.label]! }
        let where_ = segments.first?.source ?? set.poses.first?.image.path ?? ""

        let starts = segments.map { $0.start ?? -1 }, ends = segments.map { $0.end ?? -1 }, lines = segments.map { $0.line ?? 0 }

        // Duplicate rows: equal rows sort side by side, the first of each run is the original. A sort
        // of indices costs 8 bytes a row where a dictionary of rows cost 60 to 100.
        var byRow = Array(segments.indices)
        byRow.sort { a, b in
            (clipOf[a], labelOf[a], starts[a], ends[a], a) < (clipOf[b], labelOf[b], starts[b], ends[b], b)
        }
        var originalOf = [Int32](repeating: -1, count: segments.count)
        for (k, i) in byRow.enumerated().dropFirst() {
            let p = byRow[k - 1]
            if (clipOf[p], labelOf[p], starts[p], ends[p]) == (clipOf[i], labelOf[i], starts[i], ends[i]) {
                originalOf[i] = originalOf[p] >= 0 ? originalOf[p] : Int32(p)
            }
        }
        byRow = []
        // Reported in file order, so the diagnostics kept are the first ones.
        for (i, original) in originalOf.enumerated() where original >= 0 {
            let s = segments[i]
            set.log.add(.warning, .duplicate, file: s.source, line: s.line, "duplicate of line \(lines[Int(original)])",
                        hint: "remove one; duplicates weigh an example twice")
        }
        originalOf = []

        // Overlapping segments of one clip with different labels: by clip, then start time. Each segment is
        // reported once, with the earlier segment of another label that reaches furthest past its start; for
        // that, the two furthest-reaching earlier segments of different labels are enough (the furthest, and
        // the furthest of another label than its). One warning per segment and label it overlapped was
        // O(segments x labels) steps and warnings: 16,000 rows of distinct labels over one span made 128
        // million and never finished.
        var timed = segments.indices.filter { segments[$0].start != nil && segments[$0].end != nil }
        timed.sort { a, b in (clipOf[a], starts[a], lines[a]) < (clipOf[b], starts[b], lines[b]) }
        var furthest: Int?, furthestOther: Int?
        var clip: Int32 = -1
        for i in timed {
            if clipOf[i] != clip { clip = clipOf[i]; furthest = nil; furthestOther = nil }
            var overlapped: Int?
            if let f = furthest { overlapped = labelOf[f] != labelOf[i] ? f : furthestOther }
            if let j = overlapped, ends[j] > starts[i] {
                let a = segments[j], b = segments[i]
                set.log.add(.warning, .overlap, file: b.source, line: b.line,
                            "overlaps line \(lines[j]) (\(format(starts[i]))-\(format(min(ends[j], ends[i]))) of \(Diagnostic.quote(a.videoPath))) " +
                                "with a different label (\(Diagnostic.quote(b.label)) vs \(Diagnostic.quote(a.label)))",
                            hint: "frames in the overlap would train both classes")
            }
            // Of equal ends the earlier segment stays, as it did.
            if let f = furthest, ends[f] >= ends[i] {
                if labelOf[f] != labelOf[i], furthestOther.map({ ends[$0] < ends[i] }) ?? true { furthestOther = i }
            } else {
                if let f = furthest, labelOf[f] != labelOf[i] { furthestOther = f }
                furthest = i
            }
        }

        // Labels that differ only by case or spaces.
        var byFolded: [String: [String]] = [:]
        for l in classes { byFolded[l.lowercased().filter { !$0.isWhitespace }, default: []].append(l) }
        for (_, variants) in byFolded.sorted(by: { $0.key < $1.key }) where variants.count > 1 {
            set.log.add(.warning, .labelSpelling, file: where_,
                        "labels \(variants.prefix(10).map(Diagnostic.quote).joined(separator: ", ")) differ only by case or spaces",
                        hint: "they are separate classes; use one spelling")
        }

        // Class balance and the Background class.
        var counts = [Int](repeating: 0, count: classes.count)
        for l in labelOf { counts[Int(l)] += 1 }
        for p in set.poses { counts[Int(labelNumber[p.label]!)] += 1 }
        if let most = counts.max(), counts.count > 1 {
            for (c, n) in zip(classes, counts) where Double(n) < imbalanceRatio * Double(most) {
                set.log.add(.warning, .imbalance, file: where_,
                            "class \(Diagnostic.quote(c)) has \(n) examples, far fewer than the largest class (\(most))",
                            hint: "add examples or expect it to be under-learned")
            }
        }
        if !classes.isEmpty && !classes.contains(where: { $0.lowercased() == "background" }) {
            set.log.add(.warning, .noBackground, file: where_, "no 'Background' class",
                        hint: "Apple recommends a Background class of hands doing none of the actions")
        }
    }
}
