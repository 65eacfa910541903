import Foundation
import FuzzDriver
import Keypoints

/// One fuzz input: the bytes of a keypoint file, read as `export`, `compare` and `render` read one.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    if let file = try? KeypointFile.decode(Data(bytes: bytes, count: count), path: "fuzz.hands.json") {
        // What readers do next with a file the reader accepted must not trap either.
        for frame in file.frames {
            for hand in frame.hands { for j in 0..<21 { _ = hand.pixel(j, width: file.video.width, height: file.video.height) } }
        }
    }
    return 0
}

@_cdecl("KeypointsFuzz_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv) { fuzzOneInput($0, $1) }
}
