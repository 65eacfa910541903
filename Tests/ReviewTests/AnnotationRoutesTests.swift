import Annotations
import Foundation
import HTTPTypes
import HummingbirdTesting
import Review
import XCTest

/// `GET` and `PUT /api/annotations`: the file's segments and version, saves that are whole or refused
/// (400 for a body that is not a save, 422 naming the segment and field, 409 when the file changed, 405
/// read-only), and the file gone or replaced said as such.
final class AnnotationRoutesTests: ReviewTestCase, @unchecked Sendable {
    let pinch = "{\"video\": \"actions/pinch_0.mp4\", \"label\": \"pinch\", \"start\": 0.5, \"end\": 2.0}"

    func testTheFileAndASave() async throws {
        let original = try Data(contentsOf: csv)
        try await serve { c in
            let state = try await c.request("/api/annotations").object()
            XCTAssertEqual(state["file"] as? String, self.csv.path)
            XCTAssertEqual(state["format"] as? String, "csv")
            XCTAssertEqual(state["editable"] as? Bool, true)
            XCTAssertNil(state["readOnlyReason"])
            let rows = try XCTUnwrap(state["segments"] as? [[String: Any]])
            XCTAssertEqual(rows.count, 2)
            XCTAssertEqual(rows[0]["video"] as? String, "actions/grab_0.mp4")
            XCTAssertEqual(rows[0]["clip"] as? String, "actions/grab_0.mp4")
            XCTAssertEqual(rows[0]["start"] as? Double, 0)
            XCTAssertEqual(rows[0]["end"] as? Double, 1.5)
            let version = try XCTUnwrap(state["version"] as? String)

            let saved = try await c.save("{\"video\": \"actions/grab_0.mp4\", \"label\": \"grab\", \"start\": 0.25, \"end\": 1.5}, \(self.pinch)", version: version)
            XCTAssertEqual(saved.status, .ok, saved.text)
            let reply = try saved.object()
            XCTAssertEqual(reply["backup"] as? String, self.csv.path + ".bak")
            XCTAssertNotEqual(reply["version"] as? String, version)
            XCTAssertNotNil(reply["diagnostics"] as? [Any])
            XCTAssertEqual(try String(contentsOf: self.csv, encoding: .utf8),
                           "video,label,start,end\nactions/grab_0.mp4,grab,0.25,1.5\nactions/pinch_0.mp4,pinch,0.5,2.0\n")
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: self.csv.path + ".bak")), original, "the previous version kept beside it")
            let r1 = try await c.version()
            XCTAssertEqual(r1, reply["version"] as? String)

            // A save naming the version the page loaded before: the file changed since, nothing written.
            let stale = try await c.save(self.pinch, version: version)
            XCTAssertEqual(stale.status, .conflict)
            XCTAssertEqual(stale.text, "{\"error\":\"The annotation file changed on disk since this page loaded it; nothing was saved.\",\"version\":\"\(reply["version"] as! String)\"}")
            XCTAssertEqual(try String(contentsOf: self.csv, encoding: .utf8),
                           "video,label,start,end\nactions/grab_0.mp4,grab,0.25,1.5\nactions/pinch_0.mp4,pinch,0.5,2.0\n")
        }
    }

    func testTwoSavesOfOneVersionAtOnce() async throws {
        try await serve { c in
            let version = try await c.version()
            let statuses = try await withThrowingTaskGroup(of: (Int, HTTPResponse.Status).self) { group in
                for k in 1...2 {
                    group.addTask {
                        (k, try await c.save("{\"video\": \"actions/grab_0.mp4\", \"label\": \"grab\", \"start\": 0.\(k), \"end\": 1.5}, \(self.pinch)", version: version).status)
                    }
                }
                return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
            }
            XCTAssertEqual(statuses.values.map(\.code).sorted(), [200, 409])
            let winner = try XCTUnwrap(statuses.first { $0.value == .ok }?.key)
            XCTAssertEqual(try String(contentsOf: self.csv, encoding: .utf8),
                           "video,label,start,end\nactions/grab_0.mp4,grab,0.\(winner),1.5\nactions/pinch_0.mp4,pinch,0.5,2.0\n")
        }
    }

    func testBodiesThatAreNoSaveAreSaidWhere() async throws {
        let original = try Data(contentsOf: csv)
        try await serve { c in
            let version = try await c.version()
            for (body, said) in [("", "the body is not JSON (line 1, column 1: expected a value, found the end of the body); a save sends {\"version\": \"...\", \"segments\": [...]}"),
                                 ("not json", "line 1, column 1"), ("[1, 2]", "the body is not a save"),
                                 ("{\"version\": \"\(version)\",\n \"segments\": [}", "line 2, column 15"),
                                 ("{\"version\": \"\(version)\", \"segments\": [{\"video\": 3, \"label\": \"x\"}]}", "segment 1's video must be text"),
                                 ("{\"version\": \"\(version)\", \"segments\": [{\"video\": \"a\", \"label\": \"x\", \"start\": \"soon\"}]}", "segment 1's start must be a number of seconds"),
                                 ("{\"version\": \"\(version)\"}", "has no \"segments\""),
                                 ("{\"version\": \"\(version)\", \"segments\": [], \"other\": 1e999}", "other is the number 1e999")] {
                let reply = try await c.request("/api/annotations", .put, body: body)
                XCTAssertEqual(reply.status, .badRequest, body)
                XCTAssertEqual(reply.headers[.contentType], "application/json")
                let text = try reply.error()
                XCTAssertTrue(text.contains(said), "\(body): \(text)")
                XCTAssertFalse(text.contains("The given data") || text.contains("CodingKeys") || text.contains("Expected to decode"), text)
            }
            XCTAssertEqual(try Data(contentsOf: self.csv), original)
        }
    }

    func testSegmentsThatCannotBeWrittenAreNamed() async throws {
        let original = try Data(contentsOf: csv)
        try await serve { c in
            for (segment, said) in [("{\"video\": \"actions/grab_0.mp4\", \"label\": \" \", \"start\": 0, \"end\": 1}", "segment 1: "),
                                    ("{\"video\": \"actions/grab_0.mp4\", \"label\": \"grab\", \"start\": 1, \"end\": 0.5}", "segment 1: start 1.0 is not before end 0.5"),
                                    ("{\"video\": \"../secret.mp4\", \"label\": \"grab\", \"start\": 0, \"end\": 1}", "segment 1"),
                                    ("{\"video\": \"actions/none.mp4\", \"label\": \"grab\", \"start\": 0, \"end\": 1}", "segment 1"),
                                    ("{\"video\": \"actions/grab_0.mp4\", \"label\": \"gr\\u0001ab\", \"start\": 0, \"end\": 1}", "segment 1: "),
                                    // 9.3e15 s once trapped converting milliseconds to Int64; 1e400 is valid JSON no Double holds.
                                    ("{\"video\": \"actions/grab_0.mp4\", \"label\": \"grab\", \"start\": 0, \"end\": 9.3e15}", "segment 1: end 9.3e+15 is out of range"),
                                    ("{\"video\": \"actions/grab_0.mp4\", \"label\": \"grab\", \"start\": 0, \"end\": 1e400}", "segment 1: end 1e400 is out of range"),
                                    ("{\"video\": \"actions/grab_0.mp4\", \"label\": \"grab\", \"start\": 0, \"end\": -1}", "segment 1: end -1.0 is out of range"),
                                    (" \(self.pinch), {\"video\": \"actions/grab_0.mp4\", \"label\": \"grab\", \"start\": 0.5, \"end\": null}", "")] {
                let reply = try await c.save(segment)
                XCTAssertEqual(reply.status, .unprocessableContent, "\(segment): \(reply.text)")
                XCTAssertEqual(reply.headers[.contentType], "application/json")
                XCTAssertTrue(try reply.error().hasPrefix("nothing was saved: "), reply.text)
                let findings = try reply.findings()
                XCTAssertFalse(findings.isEmpty, segment)
                XCTAssertTrue(findings.contains { $0.hasPrefix(said) }, "\(segment): \(findings)")
                let first = try XCTUnwrap((try reply.object()["diagnostics"] as? [[String: Any]])?.first)
                XCTAssertEqual(first["severity"] as? String, "error")
            }
            let both = try await c.save("{\"video\": \"actions/grab_0.mp4\", \"label\": \"grab\", \"start\": 1e16, \"end\": 1e17}")
            XCTAssertEqual(try both.findings().filter { $0.contains("out of range") }.count, 2, "both times named")
            XCTAssertTrue(both.text.hasPrefix("{\"diagnostics\":[{\"line\":null,\"message\":\"segment 1: start"), both.text)
            for (label, said) in [(" wave", "begins or ends with white space"), ("wave ", "begins or ends with white space"),
                                  ("wa\\u0000ve", "NUL"), ("wa\\nve", "line break"), ("", "empty")] {
                let reply = try await c.save("{\"video\": \"actions/grab_0.mp4\", \"label\": \"\(label)\", \"start\": 0, \"end\": 1}, \(self.pinch)")
                XCTAssertEqual(reply.status, .unprocessableContent, label)
                XCTAssertTrue(try reply.findings().contains { $0.hasPrefix("segment 1: ") && $0.contains(said) }, "\(label): \(reply.text)")
            }
            XCTAssertEqual(try Data(contentsOf: self.csv), original, "nothing written")
            let r2 = try await c.save("{\"video\": \"actions/grab_0.mp4\", \"label\": \"wave\", \"start\": 0, \"end\": 10000000}, \(self.pinch)")
            XCTAssertEqual(r2.status, .ok,
                           "the range's end is a time")
        }
    }

    func testSavesKeepTheFilesModeAndOwner() async throws {
        let owner: UInt32? = geteuid() == 0 ? 1234 : nil
        XCTAssertEqual(chmod(csv.path, 0o600), 0)
        if let owner { XCTAssertEqual(chown(csv.path, owner, owner), 0) }
        try await serve { c in
            let r3 = try await c.save("{\"video\": \"actions/grab_0.mp4\", \"label\": \"grab\", \"start\": 0.25, \"end\": 1.5}, \(self.pinch)")
            XCTAssertEqual(r3.status, .ok)
        }
        for path in [csv.path, csv.path + ".bak"] {
            var st = stat()
            XCTAssertEqual(stat(path, &st), 0)
            XCTAssertEqual(st.st_mode & 0o7777, 0o600, "\(path) is as private as the file was")
            if let owner {
                XCTAssertEqual(st.st_uid, owner, path)
                XCTAssertEqual(st.st_gid, owner, path)
            }
        }
    }

    /// A file made read-only (root too must not replace it), and one whose folder is read-only.
    func testAReadOnlyFileIsNotReplaced() async throws {
        let cases: [(make: () -> Int32, undo: () -> Int32, said: String)] = [
            ({ chmod(self.csv.path, 0o444) }, { chmod(self.csv.path, 0o644) }, "is read-only"),
            ({ chmod(self.root.path, 0o555) }, { chmod(self.root.path, 0o755) }, "its folder"),
        ]
        for (make, undo, said) in cases {
            XCTAssertEqual(make(), 0)
            defer { _ = undo() }
            var before = stat()
            stat(csv.path, &before)
            try await serve { c in
                let state = try await c.request("/api/annotations").object()
                XCTAssertEqual(state["editable"] as? Bool, false, said)
                XCTAssertTrue((state["readOnlyReason"] as? String ?? "").contains(said), "\(state)")
                let reply = try await c.save(self.pinch)
                XCTAssertEqual(reply.status, .methodNotAllowed)
                XCTAssertTrue(try reply.error().hasPrefix("nothing was saved: "), reply.text)
                XCTAssertTrue(try reply.error().contains(said), reply.text)
            }
            var after = stat()
            stat(csv.path, &after)
            XCTAssertEqual(try String(contentsOf: csv, encoding: .utf8), fixture, "not replaced")
            XCTAssertEqual(after.st_ino, before.st_ino, "the same file, not a new one")
        }
    }

    func testTheFileGoneOrReplacedIsSaid() async throws {
        let aside = dir.appendingPathComponent("annotations.csv.aside")
        let save = "{\"version\": \"x\", \"segments\": []}"
        try await serve { c in
            try FileManager.default.moveItem(at: self.csv, to: aside)
            for (path, method) in [("/api/annotations", HTTPRequest.Method.get), ("/api/clips", .get), ("/api/annotations", .put)] {
                let reply = try await c.request(path, method, body: method == .put ? save : nil)
                XCTAssertEqual(reply.status, .gone, "\(method) \(path)")
                XCTAssertTrue(try reply.error().contains(self.csv.path), reply.text)
            }
            XCTAssertEqual(mkfifo(self.csv.path, 0o644), 0)
            for (path, method) in [("/api/annotations", HTTPRequest.Method.get), ("/api/clips", .get), ("/api/annotations", .put)] {
                let reply = try await c.request(path, method, body: method == .put ? save : nil)
                XCTAssertEqual(reply.status, .unsupportedMediaType, "\(method) \(path)")
                let said = try reply.error()
                XCTAssertTrue(said.contains(self.csv.lastPathComponent) && said.contains("FIFO"), said)
            }
            try FileManager.default.removeItem(at: self.csv)
            try FileManager.default.moveItem(at: aside, to: self.csv)
            let r4 = try await c.request("/api/annotations")
            XCTAssertEqual(r4.status, .ok, "answers again once the file is back")
        }
    }

    func testWithoutAnAnnotationFile() async throws {
        try await serve(try server(withAnnotations: false)) { c in
            for method in [HTTPRequest.Method.get, .put] {
                let reply = try await c.request("/api/annotations", method, body: method == .put ? "{}" : nil)
                XCTAssertEqual(reply.status, .notFound, "\(method)")
                XCTAssertEqual(reply.text, "{\"error\":\"no annotation file: start review with --annotations FILE\"}")
            }
        }
    }

    func testABodyTooLargeAndOtherMethods() async throws {
        try await serve { c in
            let large = try await c.request("/api/annotations", .put, body: String(repeating: " ", count: (64 << 20) + 1))
            XCTAssertEqual(large.status, .contentTooLarge)
            XCTAssertEqual(large.text, "{\"error\":\"PUT /api/annotations: the body is larger than the 64 MiB a save may be\"}")
            let post = try await c.request("/api/annotations", .post)
            XCTAssertEqual(post.status, .notFound)
            XCTAssertTrue(try post.error().hasPrefix("POST /api/annotations: no such address; the page's addresses are /, /static/..."), post.text)
        }
    }

    /// An ELAN file: its tier rewritten in place by a save, the other tier and the header kept, the
    /// media's TIME_ORIGIN taken off the page's clip times; with a label map, shown and not saved.
    func testAnELANTierIsSavedInPlace() async throws {
        let eaf = root.appendingPathComponent("actions/grab_0.eaf")
        try """
        <?xml version="1.0" encoding="UTF-8"?>
        <ANNOTATION_DOCUMENT AUTHOR="" DATE="2026-01-01T00:00:00+00:00" FORMAT="3.0" VERSION="3.0">
            <HEADER MEDIA_FILE="" TIME_UNITS="milliseconds">
                <MEDIA_DESCRIPTOR MEDIA_URL="file:///elsewhere/grab_0.mp4" MIME_TYPE="video/mp4" RELATIVE_MEDIA_URL="./grab_0.mp4" TIME_ORIGIN="200"/>
                <PROPERTY NAME="lastUsedAnnotationId">2</PROPERTY>
            </HEADER>
            <TIME_ORDER>
                <TIME_SLOT TIME_SLOT_ID="ts1" TIME_VALUE="0"/>
                <TIME_SLOT TIME_SLOT_ID="ts2" TIME_VALUE="800"/>
                <TIME_SLOT TIME_SLOT_ID="ts3" TIME_VALUE="1000"/>
                <TIME_SLOT TIME_SLOT_ID="ts4" TIME_VALUE="1500"/>
            </TIME_ORDER>
            <TIER LINGUISTIC_TYPE_REF="gesture" TIER_ID="RH">
                <ANNOTATION>
                    <ALIGNABLE_ANNOTATION ANNOTATION_ID="a1" TIME_SLOT_REF1="ts1" TIME_SLOT_REF2="ts2">
                        <ANNOTATION_VALUE>grab</ANNOTATION_VALUE>
                    </ALIGNABLE_ANNOTATION>
                </ANNOTATION>
            </TIER>
            <TIER LINGUISTIC_TYPE_REF="gesture" TIER_ID="LH">
                <ANNOTATION>
                    <ALIGNABLE_ANNOTATION ANNOTATION_ID="a2" TIME_SLOT_REF1="ts3" TIME_SLOT_REF2="ts4">
                        <ANNOTATION_VALUE>rest</ANNOTATION_VALUE>
                    </ALIGNABLE_ANNOTATION>
                </ANNOTATION>
            </TIER>
            <LINGUISTIC_TYPE GRAPHIC_REFERENCES="false" LINGUISTIC_TYPE_ID="gesture" TIME_ALIGNABLE="true"/>
        </ANNOTATION_DOCUMENT>

        """.write(to: eaf, atomically: true, encoding: .utf8)
        var options = AnnotationOptions()
        options.tiers = ["RH"]
        try await serve(try server(annotations: eaf, options: options)) { c in
            let state = try await c.request("/api/annotations").object()
            XCTAssertEqual(state["format"] as? String, "eaf")
            XCTAssertEqual(state["editable"] as? Bool, true, "\(state)")
            let rows = try XCTUnwrap(state["segments"] as? [[String: Any]])
            XCTAssertEqual(rows.count, 1)
            XCTAssertEqual(rows[0]["clip"] as? String, "actions/grab_0.mp4")
            XCTAssertEqual(rows[0]["start"] as? Double, 0.2, "TIME_ORIGIN added")
            let video = try XCTUnwrap(rows[0]["video"] as? String)
            let saved = try await c.save("{\"video\": \"\(video)\", \"label\": \"grab\", \"start\": 0.5, \"end\": 1.25}," +
                                         " {\"video\": \"actions/grab_0.mp4\", \"label\": \"point\", \"start\": 1.5, \"end\": 1.9}")
            XCTAssertEqual(saved.status, .ok, saved.text)
            let text = try String(contentsOf: eaf, encoding: .utf8)
            XCTAssertTrue(text.contains("TIME_VALUE=\"300\"") && text.contains("TIME_VALUE=\"1050\""), "clip times less the origin:\n\(text)")
            XCTAssertTrue(text.contains("<ANNOTATION_VALUE>rest</ANNOTATION_VALUE>") && text.contains("TIER_ID=\"LH\""), "the other tier kept")
            XCTAssertTrue(text.contains("<PROPERTY NAME=\"lastUsedAnnotationId\">4</PROPERTY>"))
            let r5 = try await c.request("/api/annotations")
            let again = try XCTUnwrap(try r5.object()["segments"] as? [[String: Any]])
            XCTAssertEqual(again.map { [$0["label"] as! String, "\($0["start"]!)", "\($0["end"]!)"] }, [["grab", "0.5", "1.25"], ["point", "1.5", "1.9"]])
            // A segment of another clip does not go into this clip's ELAN file.
            let r6 = try await c.save("{\"video\": \"actions/pinch_0.mp4\", \"label\": \"pinch\", \"start\": 0, \"end\": 1}")
            XCTAssertEqual(r6.status, .unprocessableContent)
        }
        // With a label map the labels shown are not the file's: nothing may be saved.
        options.labelMap = ["grab": "take"]
        try await serve(try server(annotations: eaf, options: options)) { c in
            let mapped = try await c.request("/api/annotations").object()
            XCTAssertEqual(mapped["editable"] as? Bool, false)
            XCTAssertTrue((mapped["readOnlyReason"] as? String ?? "").contains("--label-map"))
            let r7 = try await c.save("", version: mapped["version"] as? String)
            XCTAssertEqual(r7.status, .methodNotAllowed)
        }
    }
}
