import CTurboJPEG
import Foundation

/// JPEG stills decoded as MediaPipe's users decode them: `cv2.imread` (and Pillow) read JPEG through
/// libjpeg-turbo (accurate integer IDCT, smooth chroma upsampling), and `cv2.imread` turns the picture
/// upright by its EXIF orientation; FFmpeg's own mjpeg decoder with swscale gives slightly different pixels and ignores
/// the orientation. libjpeg-turbo's TurboJPEG API (Debian's libturbojpeg0) does the decoding; the EXIF
/// orientation tag is read by `StillOrientation`.
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
            let orientation = StillOrientation.jpeg(bytes) ?? 1
            let upright = VideoFrame(index: 0, time: 0, width: Int(w), height: Int(h), pixels: rgb).oriented(exif: orientation)
            return Decoded(frame: upright, orientation: orientation)
        }
    }
}
