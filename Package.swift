// swift-tools-version:6.0
import PackageDescription

// The kernels are built once per instruction set from the same sources (Sources/KernelsBaseline;
// KernelsAVX2 and KernelsAVX512 are links to it), each with its own compiler target, and Inference
// chooses one at run time. No other target the tool links gets CPU flags, so one binary runs on every
// x86-64 CPU. (KernelsAVX512OnAVX2, a third link, is for the tests only; see below.)
// HANDPOSE_FMA makes the kernels use fused multiply-add, a library call per lane where the target
// lacks FMA (x86-64 before v3); arm64 has it in its base instruction set.
// No kernel checks exclusive access at run time: a kernel reads weight pointers held by classes (shared
// weights replace them once, at planning), and the check was a runtime call per read in every tile.
#if arch(x86_64)
let kernelVariants: [Target] = [
    .target(name: "KernelsAVX2", dependencies: ["Kernels", "CPrefetch"],
            swiftSettings: [.unsafeFlags(["-target-cpu", "haswell", "-enforce-exclusivity=unchecked"]), .define("HANDPOSE_FMA"), .define("HANDPOSE_AVX2")]),
    .target(name: "KernelsAVX512", dependencies: ["Kernels", "CPrefetch"],
            swiftSettings: [.unsafeFlags(["-target-cpu", "skylake-avx512", "-enforce-exclusivity=unchecked"]), .define("HANDPOSE_FMA"), .define("HANDPOSE_AVX512")]),
]
let baselineSettings: [SwiftSetting] = [.unsafeFlags(["-enforce-exclusivity=unchecked"])]
// For the tests only (the tool does not link it): the AVX-512 variant's code built for Haswell, so that
// machines without AVX-512 run it too (each 16-wide operation as two 8-wide ones), check it against the
// references and check that it gives the AVX2 kernels' results bit for bit.
let testOnlyVariants: [Target] = [
    .target(name: "KernelsAVX512OnAVX2", dependencies: ["Kernels", "CPrefetch"],
            swiftSettings: [.unsafeFlags(["-target-cpu", "haswell", "-enforce-exclusivity=unchecked"]), .define("HANDPOSE_FMA"), .define("HANDPOSE_AVX512")]),
]
#else
let kernelVariants: [Target] = []
let testOnlyVariants: [Target] = []
let baselineSettings: [SwiftSetting] = [.unsafeFlags(["-enforce-exclusivity=unchecked"]), .define("HANDPOSE_FMA")]
#endif

// Module layout (data flows one way): VideoIO, Inference (Kernels, one kernel module per instruction set) -> Landmarking -> HandLandmarks, BodyLandmarks -> Extraction -> keypoint files
// (Keypoints, the format; KeypointFormats, the other files they are written as) -> Datasets (exports) <- Annotations, and Analysis (reports,
// comparisons); Rendering draws frames and keypoints for render and Synthesis; Review serves clips, keypoints and annotations to the review
// page; Benchmarks measures extraction and the engine for `bench`; Support (hash, seeded numbers, installed files) and FileSystem are below all.
// Only `handpose` prints, reads flags and chooses exit codes.
let package = Package(
    name: "handpose",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "handpose", targets: ["handpose"]),
        .library(name: "VideoIO", targets: ["VideoIO"]),
        .library(name: "Inference", targets: ["Inference"]),
        .library(name: "Annotations", targets: ["Annotations"]),
        .library(name: "Keypoints", targets: ["Keypoints"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.0"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.19"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.3.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: "libavformat libavcodec libswscale libavutil",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libswscale-dev", "libavutil-dev"])]
        ),
        .systemLibrary(name: "CTurboJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),
        // The file system as handpose uses it: atomic writes, staged folders, regular files opened without waiting,
        // the ranges of numbers from outside, the running executable.
        // The process's argc and argv saved before main, for machines without /proc.
        .target(name: "CProcessArguments"),
        .target(name: "FileSystem", dependencies: ["CProcessArguments"]),
        // What every floor may need beside files: one stable hash, seeded random numbers, and the one look-up
        // for the files installed beside the binary (models, bench's scripts, the review page).
        .target(name: "Support", dependencies: ["FileSystem"]),
        .target(name: "VideoIO", dependencies: ["CFFmpeg", "CTurboJPEG", "FileSystem"]),
        // CPUID and XGETBV: which instruction sets the CPU and the OS support (docs/static-binary.md says why
        // this is not libcpuinfo).
        .target(name: "CCPUFeatures"),
        .target(name: "Kernels", dependencies: ["CCPUFeatures"]),
        // A header only: the kernels' software prefetch.
        .systemLibrary(name: "CPrefetch", path: "Sources/CPrefetch"),
        // A header only: the spin-wait hint (PAUSE, YIELD) of the engine's thread pool.
        .systemLibrary(name: "CPause", path: "Sources/CPause"),
        .target(name: "KernelsBaseline", dependencies: ["Kernels", "CPrefetch"], swiftSettings: baselineSettings),
        .target(name: "Inference", dependencies: ["Kernels", "KernelsBaseline", "CPause", "CPrefetch", "FileSystem", .product(name: "Crypto", package: "swift-crypto")]
                + kernelVariants.map { .target(name: $0.name) }),
        .target(name: "Keypoints", dependencies: ["FileSystem"]),
        .target(name: "KeypointFormats", dependencies: ["FileSystem", "Keypoints", "ZIPFoundation"]),
        // A folder of keypoint files: their names, failure records, and the one verdict on each input's keypoints.
        .target(name: "KeypointStore", dependencies: ["FileSystem", "Keypoints", "KeypointFormats"]),
        // The floor every landmarker stands on, as MediaPipe's shared calculators: SSD anchors and decoding,
        // weighted non-max suppression, letterbox removal, regions of interest and their crops, model files
        // and their identity, and the tracked frame that smoothing, completion and extraction share.
        // OpenCV's fixed-point warp with the CPU's gathers (AVX2, AVX-512), for the crops: Swift cannot emit a gather.
        .target(name: "CCrop"),
        .target(name: "Landmarking", dependencies: ["VideoIO", "Inference", "FileSystem", "Keypoints", "CCrop", .product(name: "Crypto", package: "swift-crypto")]),
        .target(name: "HandLandmarks", dependencies: ["VideoIO", "Inference", "Keypoints", "Landmarking"]),
        // MediaPipe's pose landmarker (the body: 33 landmarks) on the same engine and floor, beside the hands.
        .target(name: "BodyLandmarks", dependencies: ["VideoIO", "Inference", "Keypoints", "Landmarking"]),
        .target(name: "FaceLandmarks", dependencies: ["VideoIO", "Inference", "Landmarking"]),
        // MediaPipe Holistic: the three landmarkers composed, hands and face found from the body.
        .target(name: "HolisticLandmarks", dependencies: ["VideoIO", "Inference", "Keypoints", "Landmarking", "HandLandmarks", "BodyLandmarks", "FaceLandmarks"]),
        .target(name: "Annotations", dependencies: ["VideoIO", "FileSystem"]),
        .target(name: "Datasets", dependencies: ["FileSystem", "Support", "Keypoints", "KeypointFormats", "Annotations"]),
        // What is learnt from keypoint files and exports: the dataset report and its baseline classifier, comparison
        // of keypoint files, sequence figures, draft segments.
        .target(name: "Analysis", dependencies: ["Datasets", "FileSystem", "Keypoints", "KeypointFormats"]),
        .target(name: "Extraction", dependencies: ["FileSystem", "Support", "KeypointStore", "VideoIO", "Inference", "Landmarking", "HandLandmarks", "BodyLandmarks", "FaceLandmarks", "HolisticLandmarks", "Keypoints", "KeypointFormats"]),
        .target(name: "Rendering", dependencies: ["VideoIO", "Keypoints"]),
        .target(name: "Synthesis", dependencies: ["Support", "VideoIO", "Keypoints", "Rendering", "Datasets", "Annotations"]),
        // The review page's server (Hummingbird): clips, keypoints and annotations to a browser, annotation
        // edits back to their file. The page itself (Page/: HTML, JavaScript, CSS) ships as a resource.
        .target(name: "Review", dependencies: ["FileSystem", "Support", "VideoIO", "Keypoints", "KeypointStore", "Annotations",
                                               .product(name: "Hummingbird", package: "hummingbird"), .product(name: "HTTPTypes", package: "swift-http-types"),
                                               .product(name: "Logging", package: "swift-log"),
                                               .product(name: "Crypto", package: "swift-crypto")],
                exclude: ["API.md"], resources: [.copy("Page")]),
        // The bench harness: timing loops and their statistics, runs measured from outside (/proc), the
        // reference interpreters' runs, the JSON report types; `handpose bench` reads the flags and prints.
        .target(name: "Benchmarks", dependencies: ["FileSystem", "Support", "VideoIO", "Inference", "HandLandmarks", "HolisticLandmarks", "Keypoints", "Extraction", "Analysis"]),
        .executableTarget(
            name: "handpose",
            dependencies: [
                "FileSystem", "Support", "VideoIO", "Inference", "Landmarking", "HandLandmarks", "BodyLandmarks", "HolisticLandmarks", "Keypoints", "KeypointFormats", "KeypointStore", "Annotations", "Datasets", "Analysis", "Extraction", "Rendering", "Synthesis", "Review", "Benchmarks",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // For the tests only: what a test needs that `make setup` installs (missing, it skips, or fails under CI=true),
        // and the keypoint-file fixtures more than one test target builds on.
        .target(name: "TestSupport", dependencies: ["Keypoints"], path: "Tests/TestSupport"),
        // MediaKindTests checks that extraction and the annotation readers take the files VideoIO lists.
        .testTarget(name: "VideoIOTests", dependencies: ["TestSupport", "VideoIO", "Annotations"]),
        .testTarget(name: "SupportTests", dependencies: ["Support", "FileSystem"]),
        .testTarget(name: "BenchmarksTests", dependencies: ["Benchmarks"]),
        .testTarget(name: "InferenceTests", dependencies: ["TestSupport", "Inference", "Landmarking", "HandLandmarks", "FaceLandmarks", "VideoIO"] + testOnlyVariants.map { .target(name: $0.name) }),
        .testTarget(name: "LandmarkingTests", dependencies: ["Landmarking", "CCrop", "VideoIO"]),
        .testTarget(name: "HandLandmarksTests", dependencies: ["HandLandmarks", "Landmarking", "VideoIO"]),
        .testTarget(name: "BodyLandmarksTests", dependencies: ["BodyLandmarks", "Landmarking", "Keypoints", "VideoIO"]),
        .testTarget(name: "AnnotationsTests", dependencies: [
            "Annotations", "FileSystem", "VideoIO", .product(name: "PropertyBased", package: "swift-property-based"),
        ]),
        .testTarget(name: "handposeTests", dependencies: ["Analysis", "TestSupport", "handpose", "Synthesis", "Datasets", "VideoIO"]),
        .testTarget(name: "SynthesisTests", dependencies: ["Analysis", "TestSupport", "Synthesis", "Annotations", "Datasets", "Extraction", "HandLandmarks", "VideoIO"]),
        .testTarget(name: "KeypointsTests", dependencies: ["TestSupport", "Keypoints", "KeypointFormats", "Extraction", "HandLandmarks", "BodyLandmarks", "ZIPFoundation"]),
        .testTarget(name: "KeypointStoreTests", dependencies: ["KeypointStore", "Keypoints", "KeypointFormats"]),
        .testTarget(name: "RenderingTests", dependencies: ["Rendering", "Keypoints", "VideoIO"]),
        .testTarget(name: "AnalysisTests", dependencies: ["TestSupport", "Analysis", "Datasets", "Keypoints", "HandLandmarks"]),
        .testTarget(name: "DatasetsTests", dependencies: ["TestSupport", "Datasets", "KeypointFormats", "HandLandmarks", "VideoIO"]),
        .testTarget(name: "ExtractionTests", dependencies: ["Analysis", "TestSupport", "Extraction", "Datasets", "HandLandmarks", "BodyLandmarks", "HolisticLandmarks", "Inference", "Keypoints", "VideoIO", "FileSystem"]),
        // The review server's HTTP contract, in process (HummingbirdTesting drives the application `handpose review` runs, with no socket).
        .testTarget(name: "ReviewTests", dependencies: [
            "TestSupport", "Review", "Annotations", "VideoIO", .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdTesting", package: "hummingbird"), .product(name: "HTTPTypes", package: "swift-http-types"),
        ]),
    ] + kernelVariants + testOnlyVariants,
    swiftLanguageModes: [.v6]
)
