import Foundation

/// A still image's EXIF orientation (1-8: 1 upright, 2-4 flips, 5-8 a quarter turn with or without a flip),
/// read from its bytes for every still format that carries one: JPEG (an APP1 `Exif` segment before the first
/// scan), PNG (an `eXIf` chunk), WebP (a RIFF `EXIF` chunk) and TIFF (the Orientation tag of its first IFD). A
/// picture is turned upright by it before anything sees it, as viewers and `cv2.imread` do; FFmpeg 5.1's
/// decoders do not read it.
///
/// Written by hand: libjpeg-turbo 2.1 reads no EXIF, FFmpeg 5.1 exposes none of these, and libexif (Debian)
/// reads only JPEG's; the walk is a few lines over each format's chunk or segment structure.
public enum StillOrientation {
    /// The orientation `data` states, or nil when it states none (or not one of 1-8).
    public static func read(_ data: Data) -> Int? {
        data.withUnsafeBytes { raw in
            let b = raw.bindMemory(to: UInt8.self)
            if b.count > 3, b[0] == 0xFF, b[1] == 0xD8 { return jpeg(b) }
            if b.count > 8, Array(b[0..<8]) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] { return png(b) }
            if b.count > 12, Array(b[0..<4]) == Array("RIFF".utf8), Array(b[8..<12]) == Array("WEBP".utf8) { return webp(b) }
            if b.count > 8, (b[0], b[1]) == (0x49, 0x49) || (b[0], b[1]) == (0x4D, 0x4D) { return tiff(b, from: 0, to: b.count) }
            return nil
        }
    }

    /// A JPEG's orientation, from the APP1 `Exif` segment before the first scan. Any number of 0xFF fill bytes
    /// may come before a marker (ITU T.81, B.1.1.2).
    static func jpeg(_ b: UnsafeBufferPointer<UInt8>) -> Int? {
        var p = 2
        while p + 1 < b.count, b[p] == 0xFF {
            while p + 1 < b.count, b[p + 1] == 0xFF { p += 1 }
            guard p + 4 <= b.count else { return nil }
            let marker = b[p + 1]
            if marker == 0xDA || marker == 0xD9 { return nil }   // start of scan, end of image
            let length = Int(b[p + 2]) << 8 | Int(b[p + 3])
            guard length >= 2, p + 2 + length <= b.count else { return nil }
            let start = p + 4, end = p + 2 + length
            if marker == 0xE1, end - start >= 14, Array(b[start..<start + 6]) == [0x45, 0x78, 0x69, 0x66, 0, 0] {
                return tiff(b, from: start + 6, to: end)
            }
            p = end
        }
        return nil
    }

    /// PNG: chunks of a 4-byte big-endian length, a 4-byte type, the data and a CRC; `eXIf` holds a TIFF
    /// structure (PNG third edition, 11.3.6.1).
    static func png(_ b: UnsafeBufferPointer<UInt8>) -> Int? {
        var p = 8
        while p + 12 <= b.count {
            let length = Int(b[p]) << 24 | Int(b[p + 1]) << 16 | Int(b[p + 2]) << 8 | Int(b[p + 3])
            let type = Array(b[(p + 4)..<(p + 8)])
            guard length <= b.count - p - 12 else { return nil }
            if type == Array("eXIf".utf8) { return tiff(b, from: p + 8, to: p + 8 + length) }
            if type == Array("IEND".utf8) { return nil }
            p += 12 + length
        }
        return nil
    }

    /// WebP: RIFF chunks of a 4-byte type, a 4-byte little-endian size and the data, padded to even; `EXIF`
    /// holds a TIFF structure (some writers put JPEG's `Exif\0\0` before it).
    static func webp(_ b: UnsafeBufferPointer<UInt8>) -> Int? {
        var p = 12
        while p + 8 <= b.count {
            let type = Array(b[p..<(p + 4)])
            let size = Int(b[p + 4]) | Int(b[p + 5]) << 8 | Int(b[p + 6]) << 16 | Int(b[p + 7]) << 24
            guard size <= b.count - p - 8 else { return nil }
            if type == Array("EXIF".utf8) {
                var start = p + 8
                if size >= 6, Array(b[start..<(start + 6)]) == [0x45, 0x78, 0x69, 0x66, 0, 0] { start += 6 }
                return tiff(b, from: start, to: p + 8 + size)
            }
            p += 8 + size + (size & 1)
        }
        return nil
    }

    /// Tag 0x0112 (Orientation, a SHORT) of IFD0 of the TIFF structure in `b[from..<to]`.
    static func tiff(_ b: UnsafeBufferPointer<UInt8>, from t: Int, to end: Int) -> Int? {
        guard t >= 0, end <= b.count, end - t >= 8 else { return nil }
        let little: Bool
        switch (b[t], b[t + 1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        func u16(_ o: Int) -> Int? {
            guard o >= t, o + 2 <= end else { return nil }
            return little ? Int(b[o]) | Int(b[o + 1]) << 8 : Int(b[o]) << 8 | Int(b[o + 1])
        }
        func u32(_ o: Int) -> Int? {
            guard let lo = u16(little ? o : o + 2), let hi = u16(little ? o + 2 : o) else { return nil }
            return hi << 16 | lo
        }
        guard u16(t + 2) == 42, let ifd = u32(t + 4), ifd <= end - t, let count = u16(t + ifd) else { return nil }
        for i in 0..<count {
            let entry = t + ifd + 2 + 12 * i
            guard let tag = u16(entry) else { return nil }
            if tag == 0x0112, let type = u16(entry + 2), type == 3, let value = u16(entry + 8), (1...8).contains(value) {
                return value
            }
        }
        return nil
    }
}
