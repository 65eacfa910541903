import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Image memory handed to FFmpeg as a destination or source (swscale, encoders).
///
/// FFmpeg's SIMD code reads and writes whole vectors: swscale's output loops store 8 to 64 bytes at a
/// time and may run past the last pixel of a row and past the last row. FFmpeg documents the rules it
/// relies on: line sizes are multiples of the CPU's widest vector (`av_cpu_max_align()`, at most 64,
/// as `av_frame_get_buffer` and `av_image_alloc` lay them out) and buffers carry padding after the
/// end (`AV_INPUT_BUFFER_PADDING_SIZE`, 64 bytes). A packed `width * 3` array has neither: 200x200
/// and 683x384 JPEGs wrote past it and corrupted the heap. So every such buffer is one of these.
///
/// Rows are also wide enough for FFmpeg's pixel loops: swscale's unscaled YUV-to-RGB converters
/// work on 8 pixels at a time and, when the rounded-up row does not fit the line size, leave the last
/// `width % 8` pixels of every row unwritten (a 340-pixel clip kept 4 columns of whatever the memory
/// held, and its keypoints changed from run to run). `av_frame_get_buffer` widens the row until the
/// line size is aligned for the same reason; `init(width:bytesPerPixel:rows:)` rounds the width up to
/// 16 pixels before aligning.
///
/// With `guardPages` on, the padded end of the buffer sits exactly against an inaccessible page, so a
/// write (or read) past the padding faults at once instead of corrupting memory: AddressSanitizer cannot
/// see inside FFmpeg, which is not instrumented. Tests and `HANDPOSE_GUARD_PAGES=1` turn it on.
public final class FFmpegImageBuffer {
    /// FFmpeg's widest alignment (`av_cpu_max_align()` is 64 with AVX-512).
    public static let alignment = 64
    /// `AV_INPUT_BUFFER_PADDING_SIZE`: bytes FFmpeg may touch past a buffer's end.
    public static let padding = 64
    /// Place a guard page right after every new buffer's padding.
    /// Unsafe: set once at start (from the environment, or by a test before it decodes), read after.
    nonisolated(unsafe) public static var guardPages = ProcessInfo.processInfo.environment["HANDPOSE_GUARD_PAGES"] == "1"

    /// Bytes per row: the row's bytes rounded up to `alignment`.
    public let lineSize: Int
    public let rows: Int
    /// The first row.
    public let base: UnsafeMutablePointer<UInt8>
    private let mapping: (start: UnsafeMutableRawPointer, length: Int)?

    /// A buffer for `rows` rows of `width` pixels of `bytesPerPixel` bytes, rows widened for FFmpeg's
    /// pixel loops (see above).
    public convenience init(width: Int, bytesPerPixel: Int, rows: Int) {
        self.init(rowBytes: Self.rowBytes(width: width, bytesPerPixel: bytesPerPixel), rows: rows)
    }

    /// The bytes a row of `width` pixels gets: the width rounded up to 16 pixels.
    public static func rowBytes(width: Int, bytesPerPixel: Int) -> Int {
        (width + 15) / 16 * 16 * bytesPerPixel
    }

    /// A buffer for `rows` rows of `rowBytes` bytes each.
    public init(rowBytes: Int, rows: Int) {
        precondition(rowBytes > 0 && rows > 0, "image buffers have at least one byte and one row")
        lineSize = (rowBytes + Self.alignment - 1) / Self.alignment * Self.alignment
        self.rows = rows
        let size = lineSize * rows + Self.padding   // a multiple of 64, so the end stays aligned too
        if Self.guardPages {
            let page = Int(sysconf(Int32(_SC_PAGESIZE)))
            let dataPages = (size + page - 1) / page
            let length = (dataPages + 1) * page
            guard let start = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
                  start != MAP_FAILED else { fatalError("mmap of \(length) bytes failed") }
            let guardPage = start + dataPages * page
            precondition(mprotect(guardPage, page, PROT_NONE) == 0, "mprotect failed")
            mapping = (start, length)
            base = (guardPage - size).assumingMemoryBound(to: UInt8.self)
        } else {
            mapping = nil
            base = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: Self.alignment)
                .assumingMemoryBound(to: UInt8.self)
        }
    }

    deinit {
        if let mapping { munmap(mapping.start, mapping.length) } else { base.deallocate() }
    }

    /// Row `y`.
    public func row(_ y: Int) -> UnsafeMutablePointer<UInt8> { base + y * lineSize }
}
