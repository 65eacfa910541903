import Foundation
import FuzzDriver
import ReviewRequest

/// One fuzz input: the body of a `PUT /api/annotations` to `handpose review`, decoded as the server
/// decodes it (`SaveRequest.decode`: JSON checked with its place, then decoded, then each segment's label
/// and times checked). What it accepts must hold only times in range and labels the shared rule allows.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let body = Array(UnsafeBufferPointer(start: bytes, count: count))
    if case .success(let request) = SaveRequest.decode(body) {
        for s in request.segments {
            for t in [s.start, s.end] { if let t, !(t.isFinite && t >= 0 && t <= 10_000_000) { fatalError("time \(t) accepted") } }
            if s.label.isEmpty || s.label.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                fatalError("label \(s.label.debugDescription) accepted")
            }
        }
    }
    return 0
}

@_cdecl("ReviewRequestFuzz_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv) { fuzzOneInput($0, $1) }
}
