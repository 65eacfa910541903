import Foundation

/// A frame of a keypoint file as the bytes `JSONEncoder` with sorted keys gives it, written directly.
///
/// `KeypointFileWriter` writes a frame at a time, and `JSONEncoder` (its boxes, containers and
/// dictionaries for every value) cost 0.15 ms a frame of plain extraction and, with the `.pose` file, 0.46
/// ms a Holistic frame on the Zen 5 machine (`bench extract --profile`, `bench holistic --profile`); written
/// here, 0.06 and 0.11 ms (`make bench`, 2026-11-28). The rules it
/// repeats are `JSONEncoder`'s: keys in order, absent optionals left out, a number as its `description`
/// with a trailing ".0" dropped, a non-finite number an `EncodingError`, strings escaped as it escapes them
/// (quote, backslash, slash, control characters). `FrameJSONTests` holds it to `JSONEncoder` byte for byte
/// on random frames, and to each type's field count, so a field added to a type cannot be left out here.
enum FrameJSON {
    /// The number of stored fields each type has, which `encode` writes; checked by the tests.
    static let fieldCounts = (frame: 5, hand: 11, body: 7, face: 4, region: 5)

    static func encode(_ frame: KeypointFile.Frame) throws -> [UInt8] {
        var out = Writer()
        out.reserve(frame)
        try out.object { o in
            if let bodies = frame.bodies { try o.key("bodies") { try $0.array(bodies) { try $0.body($1) } } }
            if let faces = frame.faces { try o.key("faces") { try $0.array(faces) { try $0.face($1) } } }
            try o.key("hands") { try $0.array(frame.hands) { try $0.hand($1) } }
            try o.key("i") { $0.integer(frame.i) }
            try o.key("t") { try $0.number(frame.t) }
        }
        return out.bytes
    }

    private struct Writer {
        var bytes: [UInt8] = []

        mutating func reserve(_ frame: KeypointFile.Frame) {
            let points = frame.hands.count * 42 + (frame.bodies?.count ?? 0) * 66 + (frame.faces ?? []).reduce(0) { $0 + $1.landmarks.count }
            bytes.reserveCapacity(256 + points * 36)
        }

        /// An object: `body` writes its members with `key`, in order.
        mutating func object(_ body: (inout Members) throws -> Void) throws {
            var members = Members(writer: self)
            self = Writer()
            members.writer.bytes.append(UInt8(ascii: "{"))
            try body(&members)
            members.writer.bytes.append(UInt8(ascii: "}"))
            self = members.writer
        }

        struct Members {
            var writer: Writer
            var first = true

            mutating func key(_ name: StaticString, _ value: (inout Writer) throws -> Void) throws {
                if !first { writer.bytes.append(UInt8(ascii: ",")) }
                first = false
                writer.bytes.append(UInt8(ascii: "\""))
                writer.bytes.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
                writer.bytes.append(UInt8(ascii: "\""))
                writer.bytes.append(UInt8(ascii: ":"))
                try value(&writer)
            }
        }

        mutating func array<T>(_ items: [T], _ each: (inout Writer, T) throws -> Void) throws {
            bytes.append(UInt8(ascii: "["))
            for (n, item) in items.enumerated() {
                if n > 0 { bytes.append(UInt8(ascii: ",")) }
                try each(&self, item)
            }
            bytes.append(UInt8(ascii: "]"))
        }

        mutating func numbers(_ values: [Float]) throws { try array(values) { try $0.number($1) } }
        mutating func rows(_ values: [[Float]]) throws { try array(values) { try $0.numbers($1) } }

        mutating func integer(_ value: Int) { bytes.append(contentsOf: value.description.utf8) }

        mutating func number<F: BinaryFloatingPoint & CustomStringConvertible>(_ value: F) throws {
            guard value.isFinite else {
                throw EncodingError.invalidValue(value, EncodingError.Context(codingPath: [], debugDescription: "Unable to encode \(F.self).\(value) directly in JSON."))
            }
            var text = value.description
            if text.hasSuffix(".0") { text.removeLast(2) }
            bytes.append(contentsOf: text.utf8)
        }

        mutating func boolean(_ value: Bool) { bytes.append(contentsOf: (value ? "true" : "false").utf8) }

        mutating func string(_ value: String) {
            bytes.append(UInt8(ascii: "\""))
            for byte in value.utf8 {
                switch byte {
                case UInt8(ascii: "\""): bytes.append(contentsOf: #"\""#.utf8)
                case UInt8(ascii: "\\"): bytes.append(contentsOf: #"\\"#.utf8)
                case UInt8(ascii: "/"): bytes.append(contentsOf: #"\/"#.utf8)
                case 0x08: bytes.append(contentsOf: #"\b"#.utf8)
                case 0x0C: bytes.append(contentsOf: #"\f"#.utf8)
                case 0x0A: bytes.append(contentsOf: #"\n"#.utf8)
                case 0x0D: bytes.append(contentsOf: #"\r"#.utf8)
                case 0x09: bytes.append(contentsOf: #"\t"#.utf8)
                case 0..<0x20:
                    let hex = Array("0123456789abcdef".utf8)
                    bytes.append(contentsOf: #"\u00"#.utf8)
                    bytes.append(hex[Int(byte >> 4)])
                    bytes.append(hex[Int(byte & 15)])
                default: bytes.append(byte)
                }
            }
            bytes.append(UInt8(ascii: "\""))
        }

        mutating func region(_ r: KeypointFile.Region) throws {
            try object { o in
                try o.key("height") { try $0.number(r.height) }
                try o.key("rotation") { try $0.number(r.rotation) }
                try o.key("width") { try $0.number(r.width) }
                try o.key("xCenter") { try $0.number(r.xCenter) }
                try o.key("yCenter") { try $0.number(r.yCenter) }
            }
        }

        mutating func hand(_ h: KeypointFile.Hand) throws {
            try object { o in
                if let arm = h.arm { try o.key("arm") { $0.string(arm) } }
                try o.key("chirality") { $0.string(h.chirality.rawValue) }
                try o.key("handedness") { try $0.number(h.handedness) }
                try o.key("landmarks") { try $0.rows(h.landmarks) }
                if let origin = h.origin { try o.key("origin") { $0.string(origin) } }
                if let person = h.person { try o.key("person") { $0.integer(person) } }
                if let presence = h.presence { try o.key("presence") { try $0.number(presence) } }
                if let region = h.region { try o.key("region") { try $0.region(region) } }
                if let track = h.track { try o.key("track") { $0.integer(track) } }
                if let unattached = h.unattached { try o.key("unattached") { $0.boolean(unattached) } }
                if let world = h.world { try o.key("world") { try $0.rows(world) } }
            }
        }

        mutating func body(_ b: KeypointFile.Body) throws {
            try object { o in
                try o.key("landmarks") { try $0.rows(b.landmarks) }
                try o.key("presence") { try $0.numbers(b.presence) }
                if let region = b.region { try o.key("region") { try $0.region(region) } }
                if let score = b.score { try o.key("score") { try $0.number(score) } }
                if let track = b.track { try o.key("track") { $0.integer(track) } }
                try o.key("visibility") { try $0.numbers(b.visibility) }
                if let world = b.world { try o.key("world") { try $0.rows(world) } }
            }
        }

        mutating func face(_ f: KeypointFile.Face) throws {
            try object { o in
                try o.key("landmarks") { try $0.rows(f.landmarks) }
                if let person = f.person { try o.key("person") { $0.integer(person) } }
                if let presence = f.presence { try o.key("presence") { try $0.number(presence) } }
                if let region = f.region { try o.key("region") { try $0.region(region) } }
            }
        }
    }
}
