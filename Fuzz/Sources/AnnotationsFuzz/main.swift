import Annotations
import Foundation
import FuzzDriver

/// One fuzz input: the first byte picks CSV or JSON, the rest is the file's bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard count > 0 else { return 0 }
    let data = Data(bytes: bytes + 1, count: count - 1)
    _ = AnnotationSource.parse(data: data, fileName: bytes[0] & 1 == 0 ? "fuzz.csv" : "fuzz.json")
    if let text = String(data: data.prefix(64), encoding: .utf8) { _ = TimeValue.parse(text) }
    return 0
}

@_cdecl("AnnotationsFuzz_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv) { fuzzOneInput($0, $1) }
}
