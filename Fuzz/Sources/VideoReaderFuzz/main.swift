import Foundation
import FuzzDriver
import VideoIO

/// One fuzz input: the first byte picks the file name's extension (mp4, gif, jpg, png), the rest is the
/// file, written to memory-backed storage and decoded as `extract` decodes it, with a guard page after
/// every buffer handed to FFmpeg (FFmpeg is not instrumented; the guard page sees what ASan cannot).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard count > 1 else { return 0 }
    FFmpegImageBuffer.guardPages = true
    let ext = ["mp4", "gif", "jpg", "png"][Int(bytes[0] & 3)]
    let url = URL(fileURLWithPath: "\(scratch)/input.\(ext)")
    guard FileManager.default.createFile(atPath: url.path, contents: Data(bytes: bytes + 1, count: count - 1)) else { return 0 }
    guard let reader = try? VideoReader(url: url) else { return 0 }
    // Small inputs may declare huge frames; decoding them is FFmpeg's cost, not ours to fuzz.
    guard reader.info.width * reader.info.height <= 4096 * 4096 else { return 0 }
    var frames = 0
    while frames < 16, let frame = try? reader.nextFrame() {
        precondition(frame.pixels.count == frame.width * frame.height * 3)
        frames += 1
    }
    return 0
}

/// A per-process folder in /dev/shm (memory), so each input costs no disk write.
let scratch: String = {
    let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
    let path = "\(base)/handpose-fuzz-\(getpid())"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}()

@_cdecl("VideoReaderFuzz_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv) { fuzzOneInput($0, $1) }
}
