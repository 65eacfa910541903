import FileSystem
import Foundation

/// Whether a file holds all its container says it holds, found from its bytes without decoding: for
/// containers where a copy cut at a block boundary would otherwise read as a shorter clip, since FFmpeg's
/// demuxers end such a file as if it were whole and nothing lists a frame count to compare with.
///
/// - Matroska and WebM: the Segment element states its size in its header; a cut file ends inside it. A
///   Segment of unknown size (a live recording, a file written to a pipe) states none, but the elements in
///   it do: a file that ends inside one was cut (one cut between two elements cannot be told from a whole one).
/// - GIF: the stream ends in a trailer byte (0x3B, GIF89a section 27) after its last block; a cut file
///   ends inside a block or between blocks, without it.
///
/// - MPEG-TS (and M2TS, its 192-byte-packet form from camcorders and Blu-ray): a stream of fixed-size packets
///   with no index, so a copy cut at a packet boundary cannot be told from a shorter recording; but a cut
///   almost always falls inside a packet, and a file that ends part way through one was cut.
/// - FLV: every tag is followed by its own size, so a file whose last four bytes do not give the size of a
///   tag that ends there was cut inside one; and the onMetaData tag FFmpeg and OBS write states the file's
///   size (`filesize`, OBS's `fileSize`, when they could rewrite it at the end), which a copy cut between two
///   tags falls short of.
/// - ASF (WMV): the header's File Properties Object states the file's size (unless the file was written as a
///   broadcast, which says so in the same object).
///
/// Written by hand: neither FFmpeg nor a Debian library answers "does this file end where it says"
/// without decoding every frame (giflib's `DGifSlurp` decodes them all into memory).
enum DeclaredLength {
    /// Why the file at `path` ends before its container's declared end, or nil when it does not (or the
    /// container states no end). `container` is FFmpeg's demuxer name (`matroska,webm`, `gif`).
    static func shortfall(path: String, container: String) -> String? {
        guard ["matroska,webm", "gif", "mpegts", "flv", "asf"].contains(container) else { return nil }
        guard let handle = RegularFile.handle(path) else { return nil }
        defer { try? handle.close() }
        if ["mpegts", "flv", "asf"].contains(container) {
            guard let file = FileBytes(handle) else { return nil }
            return container == "mpegts" ? transportStreamShortfall(file) : container == "flv" ? flvShortfall(file) : asfShortfall(file)
        }
        var bytes = ByteStream(handle)
        return container == "gif" ? gifShortfall(&bytes) : matroskaShortfall(&bytes)
    }

    /// The packet sizes of a transport stream, each with where its sync byte (0x47) lies in a packet:
    /// 188 (ISO/IEC 13818-1), 192 (M2TS: a 4-byte time code first), 204 (16 bytes of Reed-Solomon parity after).
    static let transportPackets: [(size: Int, sync: Int)] = [(188, 0), (192, 4), (204, 0)]

    /// Finds the stream's packet size from its first packets (the first size whose sync bytes line up ten
    /// packets in a row from an offset within the first packet, as FFmpeg's demuxer does), then checks that
    /// the file ends where a packet ends. No verdict on a file too short for ten packets or with no such run.
    static func transportStreamShortfall(_ file: FileBytes) -> String? {
        let run = 10
        guard let bytes = file.read(0, 204 * (run + 1), exactly: false) else { return nil }
        for (size, sync) in transportPackets {
            guard let first = (0..<size).first(where: { s in
                (0..<run).allSatisfy { k in s + k * size < bytes.count && bytes[s + k * size] == 0x47 }
            }) else { continue }
            // The packets start `sync` bytes before their sync byte; a whole file ends at a packet's end.
            let start = Int64(first - sync)
            let over = (file.size - start) % Int64(size)
            guard over != 0 else { return nil }
            return "the file ends \(over) bytes into a \(size)-byte transport stream packet (one cut part way through a copy or download)"
        }
        return nil
    }

    /// The ASF Header Object's GUID, and its File Properties Object's (as the bytes lie in the file).
    static let asfHeader: [UInt8] = [0x30, 0x26, 0xB2, 0x75, 0x8E, 0x66, 0xCF, 0x11, 0xA6, 0xD9, 0x00, 0xAA, 0x00, 0x62, 0xCE, 0x6C]
    static let asfFileProperties: [UInt8] = [0xA1, 0xDC, 0xAB, 0x8C, 0x47, 0xA9, 0xCF, 0x11, 0x8E, 0xE4, 0x00, 0xC0, 0x0C, 0x20, 0x53, 0x65]

    /// Walks the Header Object's objects (each a GUID and a 64-bit little-endian size) to File Properties and
    /// compares its File Size with the file's, unless its Broadcast flag says the size is not known.
    static func asfShortfall(_ file: FileBytes) -> String? {
        guard let bytes = file.read(0, 1 << 20, exactly: false) else { return nil }
        let end = UInt64(file.size)
        func little(_ at: Int, _ count: Int) -> UInt64? {
            guard at >= 0, at + count <= bytes.count else { return nil }
            return bytes[at..<(at + count)].reversed().reduce(0) { $0 << 8 | UInt64($1) }
        }
        guard bytes.count >= 30, Array(bytes[0..<16]) == asfHeader, let headerSize = little(16, 8) else { return nil }
        var at = 30
        while at + 24 <= min(bytes.count, Int(clamping: headerSize)) {
            guard let size = little(at + 16, 8), size >= 24, size <= UInt64(bytes.count) else { return nil }
            if Array(bytes[at..<(at + 16)]) == asfFileProperties {
                guard let stated = little(at + 40, 8), let flags = little(at + 88, 4) else { return nil }
                if flags & 1 != 0 { return nil }   // Broadcast: File Size is not valid
                return stated > end ? "its ASF header states \(stated) bytes, \(stated - end) more than the file holds" : nil
            }
            at += Int(size)
        }
        return nil
    }

    /// Checks the last tag against the file's last four bytes (its size), then the size onMetaData states.
    static func flvShortfall(_ file: FileBytes) -> String? {
        let fileSize = file.size
        func number(_ b: ArraySlice<UInt8>) -> Int64 { b.reduce(0) { $0 << 8 | Int64($1) } }
        // The header: "FLV", a version, flags, then the offset of the first tag's PreviousTagSize0 (9).
        guard let header = file.read(0, 9), header[0] == 0x46, header[1] == 0x4C, header[2] == 0x56 else { return nil }
        let firstTag = number(header[5..<9]) + 4
        guard firstTag >= 13, firstTag <= fileSize else { return firstTag > fileSize ? "the file ends inside its FLV header" : nil }
        guard fileSize > firstTag else { return nil }   // a header and no tag: nothing to check
        // The last tag: the file's last four bytes are its size, the tag's 11-byte header and its data; some writers
        // count 10, or the data alone, which FFmpeg's demuxer accepts too: the tag then starts 1 or 11 bytes further
        // back. Whole if a tag whose data size fits one of those readings ends there (of any type: FFmpeg skips
        // types it does not know).
        let cut = "the file ends inside an FLV tag (its last four bytes are not the size of a tag ending there)"
        guard let last = file.read(fileSize - 4, 4) else { return cut }
        let tagSize = number(last[0..<4])
        let ends = [(11, 0), (10, 1), (0, 11)].contains { counted, back in
            let start = fileSize - 4 - tagSize - Int64(back)
            guard tagSize >= Int64(counted), start >= firstTag, let tag = file.read(start, 11) else { return false }
            return number(tag[1..<4]) == tagSize - Int64(counted)
        }
        guard ends else { return cut }
        // onMetaData's filesize, when the first tag is script data that states one.
        guard let first = file.read(firstTag, 11), first[0] & 0x1F == 18 else { return nil }
        let dataSize = Int(number(first[1..<4]))
        guard dataSize <= 1 << 20, let script = file.read(firstTag + 11, dataSize),
              let declared = metadataFileSize(script), declared.isFinite, declared > 0 else { return nil }
        guard declared <= 0x1p62 else { return nil }
        let stated = Int64(declared)
        return stated > fileSize ? "its FLV metadata states \(stated) bytes, \(stated - fileSize) more than the file holds" : nil
    }

    /// `filesize` from an onMetaData script tag's data (AMF0: the string "onMetaData", then an ECMA array or
    /// object of named values), or nil when it states none or holds a value this walk does not step over
    /// (a nested object or array: writers put `filesize` among the plain values before those).
    static func metadataFileSize(_ data: [UInt8]) -> Double? {
        var i = 0
        func take(_ n: Int) -> ArraySlice<UInt8>? {
            guard n >= 0, i + n <= data.count else { return nil }
            defer { i += n }
            return data[i..<(i + n)]
        }
        func length(_ n: Int) -> Int? { take(n).map { $0.reduce(0) { $0 << 8 | Int($1) } } }
        guard take(1) == [0x02], let nameLength = length(2), let name = take(nameLength),
              Array(name) == Array("onMetaData".utf8), let kind = take(1)?.first else { return nil }
        if kind == 0x08 { guard take(4) != nil else { return nil } } else if kind != 0x03 { return nil }
        while let keyLength = length(2), keyLength > 0, let key = take(keyLength), let marker = take(1)?.first {
            switch marker {
            case 0x00:
                guard let bytes = take(8) else { return nil }
                // `filesize` (FFmpeg), `fileSize` (OBS).
                if String(decoding: key, as: UTF8.self).lowercased() == "filesize" { return Double(bitPattern: UInt64(bytes.reduce(0) { $0 << 8 | UInt64($1) })) }
            case 0x01: guard take(1) != nil else { return nil }
            case 0x02: guard let n = length(2), take(n) != nil else { return nil }
            case 0x05, 0x06: break
            case 0x0B: guard take(10) != nil else { return nil }
            case 0x0C: guard let n = length(4), take(n) != nil else { return nil }
            default: return nil
            }
        }
        return nil
    }

    /// Walks the top-level EBML elements (the EBML header, then Segments, between them perhaps Void or
    /// CRC-32 elements) and compares each Segment's declared end with the file's. Anything else ends the
    /// walk without a verdict: bytes after the last Segment (padding a copy tool left, junk) are no cut.
    static func matroskaShortfall(_ bytes: inout ByteStream) -> String? {
        let header: UInt64 = 0x1A45_DFA3, segment: UInt64 = 0x1853_8067, void: UInt64 = 0xEC, crc: UInt64 = 0xBF
        for k in 0..<64 {
            guard let id = bytes.ebmlNumber(keepMarker: true), k > 0 || id == header,
                  [header, segment, void, crc].contains(id) else { return nil }
            guard let (size, known) = bytes.ebmlSize() else {
                return id == segment ? "the file ends inside its Matroska segment's header" : nil
            }
            guard known else { return id == segment ? streamedShortfall(&bytes) : nil }
            let (end, overflow) = bytes.offset.addingReportingOverflow(size)
            if overflow { return nil }
            if end > bytes.fileSize {
                return id == segment ? "its Matroska segment declares \(size) bytes, \(end - bytes.fileSize) more than the file holds" : nil
            }
            bytes.seek(to: end)
            if bytes.offset >= bytes.fileSize { return nil }
        }
        return nil
    }

    /// Matroska elements a streamed segment holds (its top level, and a Cluster's children), by ID.
    static let streamedElements: Set<UInt64> = [
        0x114D_9B74, 0x1549_A966, 0x1654_AE6B, 0x1F43_B675, 0x1C53_BB6B, 0x1941_A469, 0x1043_A770, 0x1254_C367,  // SeekHead ... Tags
        0xEC, 0xBF,                                                                                              // Void, CRC-32
        0xE7, 0xA7, 0xAB, 0xA3, 0xA0, 0xAF, 0x5854,                 // Timestamp, Position, PrevSize, SimpleBlock, BlockGroup, EncryptedBlock, SilentTracks
    ]

    /// A Segment of unknown size (written to a pipe: a live recording, `ffmpeg -f matroska -`) states no end,
    /// but each element inside it states its own, and a Cluster of unknown size holds blocks that do: a file
    /// that ends inside one was cut. A cut between two elements cannot be told from an end, and is not.
    static func streamedShortfall(_ bytes: inout ByteStream) -> String? {
        while bytes.offset < bytes.fileSize {
            let at = bytes.offset
            guard let id = bytes.ebmlNumber(keepMarker: true) else { return nil }
            guard streamedElements.contains(id) else { return nil }   // not Matroska's: junk after the stream
            guard let (size, known) = bytes.ebmlSize() else {
                return "the file ends inside a Matroska element's header at byte \(at) of its streamed segment"
            }
            guard known else { continue }   // an unknown-size Cluster: its blocks follow
            let (end, overflow) = bytes.offset.addingReportingOverflow(size)
            if overflow { return nil }
            if end > bytes.fileSize {
                return "the Matroska element at byte \(at) of its streamed segment declares \(size) bytes, \(end - bytes.fileSize) more than the file holds"
            }
            bytes.seek(to: end)
        }
        return nil
    }

    /// Walks a GIF's blocks (header, colour tables, extensions, images, each a chain of sub-blocks) to its trailer.
    static func gifShortfall(_ bytes: inout ByteStream) -> String? {
        let cut = "the GIF ends before its trailer (the byte that closes every GIF after its last frame)"
        guard bytes.skip(6 + 4), let screen = bytes.byte(), bytes.skip(2) else { return cut }
        if screen & 0x80 != 0, !bytes.skip(3 << (Int(screen & 7) + 1)) { return cut }
        while let block = bytes.byte() {
            switch block {
            case 0x3B:
                return nil
            case 0x21:
                guard bytes.byte() != nil, bytes.skipSubBlocks() else { return cut }
            case 0x2C:
                guard bytes.skip(8), let image = bytes.byte() else { return cut }
                if image & 0x80 != 0, !bytes.skip(3 << (Int(image & 7) + 1)) { return cut }
                guard bytes.byte() != nil, bytes.skipSubBlocks() else { return cut }
            default:
                // Not a block GIF defines: damage FFmpeg's decoder meets and reports, not a cut end.
                return nil
            }
        }
        return cut
    }

    /// A file's size and reads of ranges of it, for the checks that jump about (TS, FLV, ASF).
    struct FileBytes {
        let handle: FileHandle
        let size: Int64

        init?(_ handle: FileHandle) {
            guard let end = try? handle.seekToEnd(), end <= UInt64(Int64.max) else { return nil }
            self.handle = handle
            size = Int64(end)
        }

        /// `count` bytes from `offset`; nil when the file does not hold them all, or, not `exactly`, any.
        func read(_ offset: Int64, _ count: Int, exactly: Bool = true) -> [UInt8]? {
            guard offset >= 0, count >= 0, !exactly || offset + Int64(count) <= size,
                  (try? handle.seek(toOffset: UInt64(offset))) != nil, let data = try? handle.read(upToCount: count),
                  exactly ? data.count == count : true else { return nil }
            return [UInt8](data)
        }
    }

    /// A file read forwards through a buffer, with its size, for the walks above.
    struct ByteStream {
        let handle: FileHandle
        let fileSize: Int64
        private var buffer: [UInt8] = []
        private var index = 0
        /// The file offset of `buffer[0]`.
        private var bufferStart: Int64 = 0
        var offset: Int64 { bufferStart + Int64(index) }

        init(_ handle: FileHandle) {
            self.handle = handle
            fileSize = Int64((try? handle.seekToEnd()) ?? 0)
            try? handle.seek(toOffset: 0)
        }

        mutating func byte() -> UInt8? {
            if index == buffer.count {
                bufferStart += Int64(buffer.count)
                index = 0
                buffer = [UInt8]((try? handle.read(upToCount: 1 << 20)) ?? Data())
                if buffer.isEmpty { return nil }
            }
            defer { index += 1 }
            return buffer[index]
        }

        /// Moves `count` bytes on; false when the file ends first.
        mutating func skip(_ count: Int) -> Bool {
            let target = offset + Int64(count)
            guard target <= fileSize else { return false }
            seek(to: target)
            return true
        }

        mutating func seek(to target: Int64) {
            if target >= bufferStart && target <= bufferStart + Int64(buffer.count) {
                index = Int(target - bufferStart)
            } else {
                try? handle.seek(toOffset: UInt64(max(target, 0)))
                bufferStart = target
                buffer = []
                index = 0
            }
        }

        /// Skips a GIF chain of sub-blocks (a length byte, that many bytes, ..., a 0); false when cut.
        mutating func skipSubBlocks() -> Bool {
            while let length = byte() {
                if length == 0 { return true }
                guard skip(Int(length)) else { return false }
            }
            return false
        }

        /// An EBML variable-length number: its first byte's leading zeros give its length (1-8 bytes).
        mutating func ebmlNumber(keepMarker: Bool) -> UInt64? {
            guard let first = byte(), first != 0 else { return nil }
            let length = first.leadingZeroBitCount + 1
            var value = UInt64(keepMarker ? first : first & (0xFF >> length))
            for _ in 1..<length {
                guard let next = byte() else { return nil }
                value = value << 8 | UInt64(next)
            }
            return value
        }

        /// An element's size and whether it is known (all value bits set means "unknown").
        mutating func ebmlSize() -> (Int64, Bool)? {
            let at = offset
            guard let value = ebmlNumber(keepMarker: false) else { return nil }
            let length = Int(offset - at)
            let unknown = value == (UInt64(1) << (7 * length)) - 1
            guard !unknown, value <= UInt64(Int64.max) else { return (0, false) }
            return (Int64(value), true)
        }
    }
}
