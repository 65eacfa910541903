import Foundation

/// Whether a file holds all its container says it holds, found from its bytes without decoding: for
/// containers where a copy cut at a block boundary would otherwise read as a shorter clip, since FFmpeg's
/// demuxers end such a file as if it were whole and nothing lists a frame count to compare with.
///
/// - Matroska and WebM: the Segment element states its size in its header; a cut file ends inside it.
///   (A segment of unknown size, as a live recording writes, states nothing and is not checked.)
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
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        var bytes = ByteStream(handle)
        return container == "gif" ? gifShortfall(&bytes) : matroskaShortfall(&bytes)
    }

    /// Walks the top-level EBML elements to each Segment and compares its declared end with the file's.
    static func matroskaShortfall(_ bytes: inout ByteStream) -> String? {
        // Top-level elements are the EBML header, Segments and (rarely) Void; a few are plenty.
        for _ in 0..<16 {
            guard let id = bytes.ebmlNumber(keepMarker: true) else { return nil }
            guard let (size, known) = bytes.ebmlSize() else {
                return "the file ends inside an element's header"
            }
            guard known else { return nil }
            let start = bytes.offset
            let (end, overflow) = start.addingReportingOverflow(size)
            if overflow { return nil }
            if end > bytes.fileSize {
                let what = id == 0x1853_8067 ? "Matroska segment" : "Matroska element"
                return "its \(what) declares \(size) bytes, \(end - bytes.fileSize) more than the file holds"
            }
            bytes.seek(to: end)
            if bytes.offset >= bytes.fileSize { return nil }
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
