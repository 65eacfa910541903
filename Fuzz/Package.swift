// swift-tools-version:6.0
// libFuzzer targets: the annotation parsers (CSV, JSON, times; whole ELAN, Label Studio, CSV and JSON files), the keypoint-file reader, VideoReader
// over small mutated media files, and the review server's request decoding. Kept apart from the main package so ordinary builds never see
// -sanitize=fuzzer; the modules they need are symlinks to ../Sources. Run: make fuzz (see the Makefile).
import PackageDescription

let fuzz: [SwiftSetting] = [.unsafeFlags(["-sanitize=fuzzer,address"])]
func fuzzer(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .executableTarget(name: name, dependencies: dependencies,
                      swiftSettings: [.unsafeFlags(["-parse-as-library", "-sanitize=fuzzer,address"])],
                      linkerSettings: [.unsafeFlags(["-sanitize=fuzzer,address"])])
}
let package = Package(
    name: "HandposeFuzz",
    dependencies: [
    ],
    targets: [
        .systemLibrary(name: "CFFmpeg", pkgConfig: "libavformat libavcodec libswscale libavutil"),
        .systemLibrary(name: "CTurboJPEG", pkgConfig: "libturbojpeg"),
        .target(name: "CProcessArguments"),
        .target(name: "FileSystem", dependencies: ["CProcessArguments"], swiftSettings: fuzz),
        .target(name: "VideoIO", dependencies: ["CFFmpeg", "CTurboJPEG", "FileSystem"], swiftSettings: fuzz),
        .target(name: "Keypoints", dependencies: ["FileSystem"], swiftSettings: fuzz),
        .target(name: "Annotations", dependencies: ["VideoIO", "FileSystem"], swiftSettings: fuzz),
        // The review server's request decoding alone (two files of Sources/Review, no HTTP server).
        .target(name: "ReviewRequest", dependencies: ["Annotations", "FileSystem"], swiftSettings: fuzz),
        .target(name: "FuzzDriver"),
        fuzzer("AnnotationsFuzz", ["Annotations", "FuzzDriver"]),
        fuzzer("AnnotationFilesFuzz", ["Annotations", "FuzzDriver"]),
        fuzzer("ReviewRequestFuzz", ["ReviewRequest", "FuzzDriver"]),
        fuzzer("KeypointsFuzz", ["Keypoints", "FuzzDriver"]),
        fuzzer("VideoReaderFuzz", ["VideoIO", "FuzzDriver"]),
    ],
    swiftLanguageModes: [.v5]
)
