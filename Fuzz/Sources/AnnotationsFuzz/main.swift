import Annotations
import Foundation

/// One fuzz input: the first byte picks CSV or JSON, the rest is the file's bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard count > 0 else { return 0 }
    let data = Data(bytes: bytes + 1, count: count - 1)
    _ = AnnotationSource.parse(data: data, fileName: bytes[0] & 1 == 0 ? "fuzz.csv" : "fuzz.json")
    if let text = String(data: data.prefix(64), encoding: .utf8) { _ = TimeValue.parse(text) }
    return 0
}

typealias FuzzCallback = @convention(c) (UnsafePointer<UInt8>, Int) -> CInt

/// libFuzzer's driver entry (LLVM 11+); SwiftPM links executables through `<target>_main`, so that
/// symbol hands control to the driver.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                         _ callback: FuzzCallback) -> CInt

@_cdecl("AnnotationsFuzz_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var c = argc
    var v = argv
    return LLVMFuzzerRunDriver(&c, &v) { fuzzOneInput($0, $1) }
}
