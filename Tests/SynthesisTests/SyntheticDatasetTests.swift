import Annotations
import Foundation
@testable import Synthesis
import XCTest

/// `synth`'s annotation files are written by `AnnotationWriter`, so any label or path reads back.
final class SyntheticDatasetTests: XCTestCase {
    var dir: URL!
    override func setUp() {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("synth-annotations-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }
    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    func testAnnotationsAreQuotedAndReadBack() throws {
        let entries = [
            SyntheticDataset.Entry(video: "actions/wave_0.mp4", label: "wave", start: 0, end: 2),
            SyntheticDataset.Entry(video: "actions/thumbs, up \"big\".mp4", label: "thumbs, up", start: 0.5, end: 1.25),
        ]
        try SyntheticDataset.writeAnnotations(entries, to: dir)
        let csv = try String(contentsOf: dir.appendingPathComponent("annotations.csv"), encoding: .utf8)
        // Ordinary names keep the bytes Samples/annotations.csv has always had.
        XCTAssertTrue(csv.hasPrefix("video,label,start,end\nactions/wave_0.mp4,wave,0.0,2.0\n"), csv)
        XCTAssertTrue(csv.contains("\"actions/thumbs, up \"\"big\"\".mp4\",\"thumbs, up\",0.5,1.25\n"), csv)
        for name in ["annotations.csv", "annotations.json"] {
            let set = AnnotationSource.load(annotationFile: dir.appendingPathComponent(name))
            XCTAssertEqual(set.segments.map(\.videoPath), entries.map(\.video), name)
            XCTAssertEqual(set.segments.map(\.label), entries.map(\.label), name)
            XCTAssertEqual(set.segments.map(\.start), entries.map(\.start), name)
            XCTAssertEqual(set.segments.map(\.end), entries.map(\.end), name)
        }
    }
}
