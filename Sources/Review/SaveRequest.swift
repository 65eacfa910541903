import Annotations
import FileSystem
import Foundation

/// What the page sends to save (`PUT /api/annotations`): the version it loaded and the whole list of
/// segments, with every check that needs no file on disk: JSON syntax with its place (`RequestJSON`),
/// numbers no Double holds, fields of the wrong type, times outside `InputRange.seconds`, labels against
/// the shared rule (`LabelText.problemAsWritten`), start before end. A pure function of the bytes, so it
/// is fuzzed on its own (Fuzz/Sources/ReviewRequestFuzz); `AnnotationDocument` then checks the clips.
public struct SaveRequest: Decodable, Sendable, Equatable {
    public struct Segment: Decodable, Sendable, Equatable {
        public var video: String
        public var label: String
        public var start: Double?
        public var end: Double?
    }
    public var version: String
    public var segments: [Segment]

    /// Why a body is not a save: not JSON or not the shape (400), or segments that break the rules (422,
    /// one sentence per problem, each naming the segment).
    public enum Refusal: Error, Equatable {
        case malformed(String)
        case invalid([String])
    }

    /// The save in `bytes`, or why not.
    public static func decode(_ bytes: [UInt8]) -> Result<SaveRequest, Refusal> {
        if let problem = RequestJSON.check(bytes) {
            switch problem {
            case .syntax(let what):
                return .failure(.malformed("the body is not JSON (\(what)); a save sends {\"version\": \"...\", \"segments\": [...]}"))
            case .hugeNumber(let path, let literal):
                // A time no Double holds is out of range like any other: refused as a segment.
                if path.count == 3, path[0] == "segments", ["start", "end"].contains(path[2]), let why = timeProblem(.infinity, written: literal) {
                    return .failure(.invalid(["\(RequestJSON.place(Array(path[0...1]))): \(path[2]) \(why)"]))
                }
                return .failure(.malformed("\(RequestJSON.place(path)) is the number \(literal), larger than any value a save holds; nothing was saved"))
            }
        }
        let request: SaveRequest
        do { request = try JSONDecoder().decode(SaveRequest.self, from: Data(bytes)) } catch {
            return .failure(.malformed("the body is not a save: \(RequestJSON.decodingMessage(error)); nothing was saved"))
        }
        let problems = request.problems()
        return problems.isEmpty ? .success(request) : .failure(.invalid(problems))
    }

    /// The rules each segment must keep, whatever file it goes to, one sentence per problem.
    func problems() -> [String] {
        var problems: [String] = []
        for (k, r) in segments.enumerated() {
            let at = "segment \(k + 1)"
            // On the label exactly as sent: white space a reader would trim is refused, not dropped, so what
            // is saved reads back as what the page shows.
            if let why = LabelText.problemAsWritten(r.label) { problems.append("\(at): \(why)") }
            for (name, t) in [("start", r.start), ("end", r.end)] {
                if let t, let why = Self.timeProblem(t) { problems.append("\(at): \(name) \(why)") }
            }
            if let s = r.start, let e = r.end, !(s < e) { problems.append("\(at): start \(s) is not before end \(e)") }
        }
        return problems
    }

    /// Nil when `t` is a time in `InputRange.seconds`; else why not (`written`: the number as sent).
    static func timeProblem(_ t: Double, written: String? = nil) -> String? {
        guard !(t.isFinite && InputRange.seconds.contains(t)) else { return nil }
        return "\(written ?? "\(t)") is out of range: a time is \(InputRange.wholeText(InputRange.seconds.lowerBound)) to " +
            "\(InputRange.wholeText(InputRange.seconds.upperBound)) seconds into the clip"
    }
}
