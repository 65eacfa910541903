// swift-tools-version:6.0
import PackageDescription

// Module layout: VideoIO -> HandLandmarks (-> Inference) -> Datasets <- Annotations.
// Only `handpose` prints, reads flags and chooses exit codes.
let package = Package(
    name: "handpose",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "handpose", targets: ["handpose"]),
        .library(name: "VideoIO", targets: ["VideoIO"]),
        .library(name: "Inference", targets: ["Inference"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: "libavformat libavcodec libswscale libavutil",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libswscale-dev", "libavutil-dev"])]
        ),
        .target(name: "VideoIO", dependencies: ["CFFmpeg"]),
        .target(name: "Inference"),
        .executableTarget(
            name: "handpose",
            dependencies: [
                "VideoIO", "Inference",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "VideoIOTests", dependencies: ["VideoIO"]),
        .testTarget(name: "InferenceTests", dependencies: ["Inference"]),
    ],
    swiftLanguageModes: [.v5]
)
