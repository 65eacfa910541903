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
/// Written by hand: neither FFmpeg nor a Debian library answers "does this file end where it says"
/// without decoding every frame (giflib's `DGifSlurp` decodes them all into memory).
enum DeclaredLength {
    /// Why the file at `path` ends before its container's declared end, or nil when it does not (or the
    /// container states no end). `container` is FFmpeg's demuxer name (`matroska,webm`, `gif`).
    static func shortfall(path: String, container: String) -> String? {
        guard container == "matroska,webm" || container == "gif" else { return nil }
        guard let handle = RegularFile.handle(path) else { return nil }
        defer { try? handle.close() }
        var bytes = ByteStream(handle)
        return container == "gif" ? gifShortfall(&bytes) : matroskaShortfall(&bytes)
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
