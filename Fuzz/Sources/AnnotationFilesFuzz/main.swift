import Annotations
import Foundation
import FuzzDriver

/// One fuzz input: a whole annotation file of any format, read as `validate` reads it (the format from
/// its content: ELAN's XML through libxml2's stream parser, Label Studio's tasks one at a time, Create ML
/// CSV and JSON), from a file in memory-backed /dev/shm. The first byte picks the extension (`.eaf`,
/// `.json`, `.csv`), the rest is the file. Clips named need not exist: a missing clip is a finding.
let scratch: URL = {
    let folder = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
    let url = URL(fileURLWithPath: folder).appendingPathComponent("handpose-fuzz-\(getpid())")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    FileManager.default.createFile(atPath: url.appendingPathComponent("a.mp4").path, contents: Data())
    return url
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard count > 0 else { return 0 }
    let name = ["fuzz.eaf", "fuzz.json", "fuzz.csv"][Int(bytes[0]) % 3]
    let url = scratch.appendingPathComponent(name)
    guard (try? Data(bytes: bytes + 1, count: count - 1).write(to: url)) != nil else { return 0 }
    var options = AnnotationOptions()
    options.frameRate = 30
    options.tiers = bytes[0] & 0x80 != 0 ? ["*"] : []
    let set = AnnotationSource.load(annotationFile: url, root: scratch, options: options, maxDiagnosticsPerKind: 8)
    // What a reader accepts is inside the documented ranges, with labels the shared rule allows.
    for s in set.segments {
        for t in [s.start, s.end] { if let t, !(t.isFinite && t >= 0 && t <= 10_000_000) { fatalError("time \(t) passed on") } }
        if let problem = LabelText.problem(s.label) { fatalError("label \(s.label.debugDescription) passed on: \(problem)") }
    }
    return 0
}

@_cdecl("AnnotationFilesFuzz_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv) { fuzzOneInput($0, $1) }
}
