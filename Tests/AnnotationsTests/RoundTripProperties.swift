import Foundation
import PropertyBased
import Testing
import Annotations

/// Property: any set of segments written back as CSV or JSON parses to the same segments.
struct RoundTripProperties {
    static let names = Gen.letterOrNumber.string(of: 1...12)
    /// Labels may hold commas, quotes and inner spaces; outer spaces are trimmed by design, so none are generated.
    static let labels = Gen.element(of: ["wave", "pinch, soft", "say \"hi\"", "Background", "a b", "x"])
    static let times = Gen.int(in: 0...36_000)

    func parse(_ text: Data, _ name: String) throws -> [Segment] {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent(name)
        try text.write(to: url)
        let set = AnnotationSource.load(annotationFile: url)
        #expect(set.errors.isEmpty, "\(set.errors)")
        return set.segments
    }

    @Test func csvAndJSONRoundTrip() async throws {
        await propertyCheck(count: 60, input: Self.names, Self.labels, Self.times, Self.times) { name, label, a, b in
            let start = Double(min(a, b)) / 10, end = Double(max(a, b)) / 10 + 0.5
            let segments = [
                Segment(video: URL(fileURLWithPath: "/x/\(name).mp4"), videoPath: "\(name).mp4", label: label!, start: start, end: end, source: "", line: 2),
                Segment(video: URL(fileURLWithPath: "/x/b.mp4"), videoPath: "b.mp4", label: "Background", start: 0, end: end, source: "", line: 3),
            ]
            for (data, file) in [(Data(AnnotationWriter.csv(segments).utf8), "a.csv"), (try! AnnotationWriter.json(segments), "a.json")] {
                let parsed = try! parse(data, file)
                #expect(parsed.map(\.videoPath) == segments.map(\.videoPath), "\(file)")
                #expect(parsed.map(\.label) == segments.map(\.label), "\(file)")
                #expect(parsed.map(\.start) == segments.map(\.start), "\(file)")
                #expect(parsed.map(\.end) == segments.map(\.end), "\(file)")
            }
        }
    }
}
