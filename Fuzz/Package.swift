// swift-tools-version:6.0
// libFuzzer target for the annotation parsers (CSV, JSON, times). Kept apart from the main package
// so ordinary builds never see -sanitize=fuzzer; the modules it needs are symlinks to ../Sources.
// Run: make fuzz (see the Makefile).
import PackageDescription

let fuzz: [SwiftSetting] = [.unsafeFlags(["-sanitize=fuzzer,address"])]
let package = Package(
    name: "AnnotationsFuzz",
    dependencies: [.package(url: "https://github.com/swiftcsv/SwiftCSV", from: "0.10.0")],
    targets: [
        .systemLibrary(name: "CFFmpeg", pkgConfig: "libavformat libavcodec libswscale libavutil"),
        .target(name: "VideoIO", dependencies: ["CFFmpeg"]),
        .target(name: "Annotations", dependencies: ["VideoIO", "SwiftCSV"], swiftSettings: fuzz),
        .executableTarget(
            name: "AnnotationsFuzz",
            dependencies: ["Annotations"],
            swiftSettings: [.unsafeFlags(["-parse-as-library", "-sanitize=fuzzer,address"])],
            linkerSettings: [.unsafeFlags(["-sanitize=fuzzer,address"])]
        ),
    ],
    swiftLanguageModes: [.v5]
)
