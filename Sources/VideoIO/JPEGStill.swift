import CTurboJPEG
import Foundation

/// JPEG stills decoded as MediaPipe's users decode them: `cv2.imread` (and Pillow) read JPEG through
/// libjpeg-turbo (accurate integer IDCT, smooth chroma upsampling), and `cv2.imread` turns the picture
/// upright by its EXIF orientation; FFmpeg's own mjpeg decoder with swscale gives slightly different pixels and ignores
/// the orientation. libjpeg-turbo's TurboJPEG API (Debian's libturbojpeg0) does the decoding; the EXIF
/// orientation tag is read here (a few lines of TIFF header walking that libjpeg-turbo 2.1 lacks).
enum JPEGStill {
    /// The decoded picture, upright, and the EXIF orientation that was applied (1 when none).
    struct Decoded {
        var frame: VideoFrame
        var orientation: Int
    }

    /// Whether `data` starts like a JPEG file.
    static func isJPEG(_ data: Data) -> Bool { data.count > 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF }

    /// Decodes `data` with libjpeg-turbo; nil when it cannot (CMYK, damaged beyond what libjpeg-turbo
    /// recovers from): the caller falls back to FFmpeg, which reports its own error.
    static func decode(_ data: Data) -> Decoded? {
        guard isJPEG(data), let handle = tjInitDecompress() else { return nil }
        defer { tjDestroy(handle) }
        return data.withUnsafeBytes { raw -> Decoded? in
            let bytes = raw.bindMemory(to: UInt8.self)
            var w: Int32 = 0, h: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
            guard tjDecompressHeader3(handle, bytes.baseAddress, UInt(bytes.count), &w, &h, &subsampling, &colorspace) == 0,
                  w > 0, h > 0, colorspace != Int32(TJCS_CMYK.rawValue), colorspace != Int32(TJCS_YCCK.rawValue) else { return nil }
            // A header can claim 65535 x 65535 in a few bytes: pictures past FFmpeg's own limit (2^28 pixels)
            // go to FFmpeg, which refuses them, rather than allocating gigabytes here.
            guard Int(w) * Int(h) <= 1 << 28 else { return nil }
            var rgb = [UInt8](repeating: 0, count: Int(w) * Int(h) * 3)
            let rc = rgb.withUnsafeMutableBufferPointer {
                tjDecompress2(handle, bytes.baseAddress, UInt(bytes.count), $0.baseAddress, w, w * 3, h, Int32(TJPF_RGB.rawValue), 0)
            }
            // A warning (a truncated scan, say) still gives the picture, as OpenCV keeps it; an error does not.
            if rc != 0 && tjGetErrorCode(handle) != Int32(TJERR_WARNING.rawValue) { return nil }
            let orientation = exifOrientation(bytes)
            let upright = VideoFrame(index: 0, time: 0, width: Int(w), height: Int(h), pixels: rgb).oriented(exif: orientation)
            return Decoded(frame: upright, orientation: orientation)
        }
    }

    /// The EXIF orientation (1...8) in the APP1 segment before the first scan, or 1.
    static func exifOrientation(_ b: UnsafeBufferPointer<UInt8>) -> Int {
        var p = 2
        while p + 4 <= b.count, b[p] == 0xFF {
            let marker = b[p + 1]
            if marker == 0xDA || marker == 0xD9 { break }   // start of scan, end of image
            let length = Int(b[p + 2]) << 8 | Int(b[p + 3])
            guard length >= 2, p + 2 + length <= b.count else { break }
            let start = p + 4, end = p + 2 + length
            if marker == 0xE1, end - start >= 14, Array(b[start..<start + 6]) == [0x45, 0x78, 0x69, 0x66, 0, 0] {
                return tiffOrientation(b, from: start + 6, to: end) ?? 1
            }
            p = end
        }
        return 1
    }

    /// Tag 0x0112 of IFD0 of the TIFF structure in `b[from..<to]`.
    static func tiffOrientation(_ b: UnsafeBufferPointer<UInt8>, from t: Int, to end: Int) -> Int? {
        guard end - t >= 8 else { return nil }
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
        guard u16(t + 2) == 42, let ifd = u32(t + 4), let count = u16(t + ifd) else { return nil }
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
