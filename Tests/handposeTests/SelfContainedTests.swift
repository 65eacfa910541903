import Foundation
import Keypoints
import TestSupport
import VideoIO
import XCTest

/// The self-contained binary (make selfcontained: FFmpeg and the rest linked in, docs/static-binary.md) and the
/// wheel that carries it (make wheel): what the binary needs of the system, that its FFmpeg decodes every
/// clip and still as Debian's does, and the wheel installed with pip into bare Debian 12 and 13 roots (no
/// FFmpeg, no -dev package, no Swift), where `handpose` and `import handpose` must give what the host gives.
/// Needs root and debootstrap (make setup installs it), and PyPI for NumPy's wheel.
final class SelfContainedTests: XCTestCase {
    static let root = ToolRunner.root

    /// The self-contained binary's path: make selfcontained's last line.
    static func binary() throws -> String {
        let text = try DistributionTests.make("selfcontained")
        let path = text.split(separator: "\n").last.map(String.init) ?? ""
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: path), text)
        return path
    }

    /// The libraries and symbol versions a binary needs, as readelf and objdump list them.
    static func needs(_ binary: String) throws -> (libraries: [String], versions: Set<String>) {
        let (c1, dynamic) = try ToolRunner.process("/usr/bin/readelf", ["-d", binary])
        XCTAssertEqual(c1, 0, dynamic)
        let libraries = dynamic.split(separator: "\n").filter { $0.contains("(NEEDED)") }.compactMap { line -> String? in
            guard let open = line.firstIndex(of: "["), let close = line.lastIndex(of: "]") else { return nil }
            return String(line[line.index(after: open)..<close])
        }
        let (c2, symbols) = try ToolRunner.process("/usr/bin/objdump", ["-T", binary])
        XCTAssertEqual(c2, 0, String(symbols.prefix(500)))
        var versions = Set<String>()
        for line in symbols.split(separator: "\n") {
            guard let open = line.firstIndex(of: "("), let close = line[open...].firstIndex(of: ")") else { continue }
            versions.insert(String(line[line.index(after: open)..<close]))
        }
        return (libraries, versions)
    }

    /// Only glibc's libraries and the dynamic loader (the C++ runtime is linked in), no symbol newer than
    /// GLIBC_2.34 (hypot and hypotf, 2.35 on the build machine, are bound to their older versions), no
    /// GLIBCXX or CXXABI version. The host's binary, linked against Debian's FFmpeg, is the contrast.
    func testTheSelfContainedBinaryNeedsOnlyGlibc234() throws {
        try DistributionTests.requireTools([])   // root: make selfcontained fetches Debian's sources with apt-get
        let (libraries, versions) = try Self.needs(try Self.binary())
        let allowed: Set<String> = ["libc.so.6", "libm.so.6", "libgcc_s.so.1", "ld-linux-x86-64.so.2", "libpthread.so.0", "libdl.so.2", "librt.so.1"]
        XCTAssertEqual(Set(libraries).subtracting(allowed), [], "needs only glibc's libraries: \(libraries)")
        XCTAssertTrue(libraries.contains("libc.so.6"), "\(libraries)")
        for v in versions {
            if v.hasPrefix("GLIBC_") {
                let parts = v.dropFirst(6).split(separator: ".").map { Int($0) }
                XCTAssertTrue(!parts.isEmpty && !parts.contains(nil), "\(v) is not a glibc release's version (GLIBC_PRIVATE ties the binary to one glibc)")
                XCTAssertTrue(parts.compactMap { $0 }.lexicographicallyPrecedes([2, 35]), "\(v) is newer than glibc 2.34")
            } else {
                XCTAssertTrue(v.hasPrefix("GCC_"), "a symbol version of another library: \(v)")
            }
        }
        XCTAssertTrue(versions.contains("GLIBC_2.34"), "the check read the versions: \(versions.sorted())")
        // The build's own check agrees, and fails on a binary that needs more (the host's, with Debian's FFmpeg).
        let (own, ownText) = try ToolRunner.process(Self.root.appendingPathComponent("scripts/check-selfcontained.sh").path, [try Self.binary()])
        XCTAssertEqual(own, 0, ownText)
        let (hostCheck, hostText) = try ToolRunner.process(Self.root.appendingPathComponent("scripts/check-selfcontained.sh").path,
                                                           [Self.root.appendingPathComponent(".build/release/handpose").path])
        XCTAssertNotEqual(hostCheck, 0, hostText)
        XCTAssertTrue(hostText.contains("needs libavcodec"), hostText)
        let host = try Self.needs(Self.root.appendingPathComponent(".build/release/handpose").path)
        XCTAssertTrue(host.libraries.contains { $0.hasPrefix("libavcodec") }, "the host's binary links Debian's FFmpeg: \(host.libraries)")
    }

    /// Every clip and still the tests and the corpus use, and one of each codec and container README
    /// promises (made here by Debian's ffmpeg command), decoded by the self-contained binary's FFmpeg and by
    /// Debian's: the same frames, times and pixels (`probe --frames`: SHA-256 of each frame's RGB).
    func testStaticFFmpegDecodesEveryFrameAsDebiansDoes() throws {
        try DistributionTests.requireTools([])   // root: make selfcontained fetches Debian's sources with apt-get
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg") else {
            print("SKIP: the ffmpeg command is absent; make setup installs it"); throw Prerequisite.missing("ffmpeg absent")
        }
        let binary = try Self.binary()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("decode-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        // (file, encoder and its options): H.264 4:2:0 and 4:4:4, HEVC 8 and 10-bit, VP8, VP9, AV1, MPEG-4,
        // MPEG-1/2, MJPEG, ProRes, FFV1, WMV, FLV, H.263 in 3GP, MPEG-TS, GIF; PNG, JPEG, BMP, WebP, TIFF stills.
        let made: [(String, [String])] = [
            ("h264.mp4", ["-c:v", "libx264", "-pix_fmt", "yuv420p"]), ("h264_444.mkv", ["-c:v", "libx264", "-pix_fmt", "yuv444p"]),
            ("hevc.mp4", ["-c:v", "libx265", "-pix_fmt", "yuv420p", "-x265-params", "log-level=error"]),
            ("hevc10.mkv", ["-c:v", "libx265", "-pix_fmt", "yuv420p10le", "-x265-params", "log-level=error"]),
            ("vp8.webm", ["-c:v", "libvpx"]), ("vp9.webm", ["-c:v", "libvpx-vp9"]),
            ("av1.mkv", ["-c:v", "libaom-av1", "-cpu-used", "8", "-pix_fmt", "yuv420p"]),
            ("mpeg4.avi", ["-c:v", "mpeg4"]), ("mpeg2.mpg", ["-c:v", "mpeg2video"]), ("mpeg1.mpeg", ["-c:v", "mpeg1video", "-r", "25"]),
            ("mjpeg.avi", ["-c:v", "mjpeg", "-pix_fmt", "yuvj422p"]), ("prores.mov", ["-c:v", "prores_ks"]),
            ("ffv1.mkv", ["-c:v", "ffv1"]), ("wmv2.wmv", ["-c:v", "wmv2"]), ("flv1.flv", ["-c:v", "flv"]),
            ("h263.3gp", ["-c:v", "h263", "-s", "176x144"]), ("h264.ts", ["-c:v", "libx264"]), ("anim.gif", ["-c:v", "gif"]),
            ("still.png", ["-frames:v", "1"]), ("still.jpg", ["-frames:v", "1", "-q:v", "3"]), ("still.bmp", ["-frames:v", "1"]),
            ("still.webp", ["-frames:v", "1", "-c:v", "libwebp"]), ("still.tiff", ["-frames:v", "1"]),
        ]
        var files: [String] = []
        for (name, options) in made {
            let out = dir.appendingPathComponent(name).path
            let (code, text) = try ToolRunner.process("/usr/bin/ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=10",
                                                                          "-frames:v", "6"] + options + [out])
            XCTAssertEqual(code, 0, "ffmpeg could not write \(name): \(text)")
            files.append(out)
        }
        // The decode sweep's awkward sizes (DecodeSweepTests): stills of every encoding Pillow writes, and clips
        // whose width is odd or not a multiple of 8.
        for (name, size, options) in [("x264_444_683x385.mkv", "683x385", ["-c:v", "libx264", "-pix_fmt", "yuv444p"]),
                                      ("x264_444_1001x3.mkv", "1001x3", ["-c:v", "libx264", "-pix_fmt", "yuv444p"]),
                                      ("mpeg4_682x384.mp4", "682x384", ["-c:v", "mpeg4"]),
                                      ("mjpeg_683x385.avi", "683x385", ["-c:v", "mjpeg", "-pix_fmt", "yuvj422p"]),
                                      ("mjpeg_35x17.mov", "35x17", ["-c:v", "mjpeg", "-pix_fmt", "yuvj420p"])] {
            let out = dir.appendingPathComponent(name).path
            let (code, text) = try ToolRunner.process("/usr/bin/ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=10",
                                                                          "-vf", "scale=\(size.replacingOccurrences(of: "x", with: ":"))", "-frames:v", "4",
                                                                          "-strict", "-1"] + options + [out])
            XCTAssertEqual(code, 0, "ffmpeg could not write \(name): \(text)")
            files.append(out)
        }
        let python = Self.root.appendingPathComponent(".venv/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else { print("SKIP: .venv is absent; run make setup"); throw Prerequisite.missing(".venv") }
        let stills = dir.appendingPathComponent("stills")
        let (stillCode, stillText) = try ToolRunner.process(python, [Self.root.appendingPathComponent("scripts/make_stills.py").path, stills.path,
                                                                      "1,2,3,7,8,9,15,16,17,63,64,683,1001", "1,2,3,385"])
        XCTAssertEqual(stillCode, 0, stillText)
        files += try FileManager.default.contentsOfDirectory(atPath: stills.path).sorted().map { stills.appendingPathComponent($0).path }
        // The repository's clips and stills, and the corpus when it is beside the checkout.
        for folder in [Self.root.appendingPathComponent("Samples"), Self.root.appendingPathComponent("../shared/corpus").standardizedFileURL] {
            guard let walk = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { continue }
            for case let url as URL in walk where MediaKind.isMedia(name: url.lastPathComponent) {
                files.append(url.path)
            }
        }
        XCTAssertGreaterThan(files.count, made.count + 5 + 13 * 4 * 7 + 20)
        let (hostCode, host) = try ToolRunner.run(["probe", "--frames"] + files)
        XCTAssertEqual(hostCode, 0, String(host.suffix(2000)))
        let (ourCode, ours) = try ToolRunner.process(binary, ["probe", "--frames"] + files)
        XCTAssertEqual(ourCode, 0, String(ours.suffix(2000)))
        let hostLines = host.split(separator: "\n"), ourLines = ours.split(separator: "\n")
        XCTAssertEqual(hostLines.count, ourLines.count)
        for (a, b) in zip(hostLines, ourLines) where a != b { XCTFail("Debian's FFmpeg: \(a)\nstatic FFmpeg:   \(b)"); break }
        for name in made.map(\.0) {
            let frames = hostLines.first { $0.hasPrefix(dir.appendingPathComponent(name).path + "\tframes\t") }
            XCTAssertEqual(frames.map { String($0.split(separator: "\t").last!) }, name.hasPrefix("still") ? "1" : "6", name)
        }
    }

    /// The wheel, installed with pip into a fresh venv in bare Debian 12 and Debian 13 roots (minbase with
    /// python3 and python3-venv; NumPy's wheel from PyPI): `handpose extract` over Samples/ gives the host
    /// binary's frames and hands bit for bit, and `import handpose` reads a keypoint file and an export folder
    /// into the arrays the checkout's package reads from the same files in .venv.
    func testTheWheelInstallsAndRunsInBareDebian12And13() throws {
        try DistributionTests.requireTools(["debootstrap", "chroot"])
        _ = try ToolRunner.models()
        let made = try DistributionTests.make("wheel")
        let version = try DistributionTests.version()
        let wheel = Self.root.appendingPathComponent("out/handpose-\(version)-py3-none-manylinux_2_34_x86_64.whl")
        XCTAssertTrue(made.contains(wheel.path), "make wheel names the wheel by the binary's version: \(made)")
        let python = Self.root.appendingPathComponent(".venv/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else { print("SKIP: .venv is absent; run make setup"); throw Prerequisite.missing(".venv") }

        // On the host: Samples' keypoints by the binary swift test built, an export of them, and what the
        // checkout's Python package reads from both.
        let host = FileManager.default.temporaryDirectory.appendingPathComponent("wheel-host-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: host) }
        let (hostCode, hostText) = try ToolRunner.run(["extract", "Samples", "-r", "-o", host.appendingPathComponent("keypoints").path])
        XCTAssertEqual(hostCode, 0, hostText)
        let (exportCode, exportText) = try ToolRunner.run(["export", "actions", "Samples/annotations.csv", "--keypoints", host.appendingPathComponent("keypoints").path,
                                                           "-o", host.appendingPathComponent("export").path, "--fps", "15", "--window", "15",
                                                           "--split", "train=0.75,val=0.25", "--seed", "1"])
        XCTAssertEqual(exportCode, 0, exportText)
        let dump = Self.root.appendingPathComponent("python/tests/dump_arrays.py").path
        let sample = "actions/grab_0.mp4.hands.json"
        let (dumpCode, hostArrays) = try ToolRunner.process(python, [dump, host.appendingPathComponent("keypoints/\(sample)").path, host.appendingPathComponent("export").path],
                                                            environment: ["PYTHONPATH": Self.root.appendingPathComponent("python").path])
        XCTAssertEqual(dumpCode, 0, hostArrays)
        let hostFrames = try DistributionTests.frames(in: host.appendingPathComponent("keypoints"))
        XCTAssertEqual(hostFrames.count, 27)

        for suite in ["bookworm", "trixie"] {
            let bare = Self.root.appendingPathComponent(".build-image/wheel-root-\(suite)-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: bare) }
            let (rootCode, rootText) = try ToolRunner.process(Self.root.appendingPathComponent("scripts/runtime-root.sh").path, [bare.path, "python3", "python3-venv"],
                                                              environment: ["HANDPOSE_DEBIAN_SUITE": suite])
            XCTAssertEqual(rootCode, 0, rootText)
            guard rootCode == 0 else { continue }
            XCTAssertEqual(try DistributionTests.packagesHandposeMustNotNeed(in: bare), [], "\(suite): no FFmpeg, libjpeg-turbo, -dev package or Swift")
            func inRoot(_ arguments: [String]) throws -> (Int32, String) {
                try ToolRunner.process("/usr/sbin/chroot", [bare.path] + arguments, environment: ["HOME": "/root", "PATH": "/usr/bin:/bin"])
            }
            let (_, pythonVersion) = try inRoot(["python3", "-c", "import sys; print('%d.%d' % sys.version_info[:2])"])
            let wheels = bare.appendingPathComponent("wheels")
            try FileManager.default.createDirectory(at: wheels, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: wheel, to: wheels.appendingPathComponent(wheel.lastPathComponent))
            let (numpyCode, numpyText) = try ToolRunner.process(Self.root.appendingPathComponent(".venv/bin/pip").path,
                ["download", "--quiet", "--disable-pip-version-check", "numpy<3", "--only-binary=:all:", "--no-deps", "--implementation", "cp",
                 "--python-version", pythonVersion.trimmingCharacters(in: .whitespacesAndNewlines),
                 "--platform", "manylinux_2_28_x86_64", "--platform", "manylinux_2_17_x86_64", "-d", wheels.path])
            XCTAssertEqual(numpyCode, 0, numpyText)
            var (code, text) = try inRoot(["python3", "-m", "venv", "/venv"])
            XCTAssertEqual(code, 0, "\(suite): \(text)")
            (code, text) = try inRoot(["/venv/bin/pip", "install", "--quiet", "--disable-pip-version-check", "--no-index", "--find-links", "/wheels", "handpose"])
            XCTAssertEqual(code, 0, "\(suite): pip install: \(text)")
            (code, text) = try inRoot(["/venv/bin/handpose", "--version"])
            XCTAssertEqual(code, 0, "\(suite): \(text)")
            XCTAssertEqual(text.trimmingCharacters(in: .whitespacesAndNewlines), version, suite)

            try FileManager.default.copyItem(at: Self.root.appendingPathComponent("Samples"), to: bare.appendingPathComponent("data/Samples"))
            (code, text) = try inRoot(["/venv/bin/handpose", "extract", "/data/Samples", "-r", "-o", "/data/keypoints"])
            XCTAssertEqual(code, 0, "\(suite): \(text)")
            XCTAssertTrue(text.contains("27 files: 27 done"), text)
            let ours = try DistributionTests.frames(in: bare.appendingPathComponent("data/keypoints"))
            XCTAssertEqual(Set(ours.keys), Set(hostFrames.keys), suite)
            if suite == "bookworm" {
                // The host's glibc: bit for bit.
                for (path, frames) in hostFrames { XCTAssertEqual(frames, ours[path], "\(suite) \(path): the wheel's frames differ from the host's") }
            } else {
                // Debian 13's glibc 2.41 has new, correctly rounded float functions (atan2f among them: a crop's
                // rotation), so the last bits of a region differ and tracking carries that on: the same frames and
                // hands, stills bit for bit, clips within a small mean distance (measured: mean 0.0003, max 0.022).
                var sum = 0.0, count = 0
                for (path, _) in hostFrames {
                    let a = try KeypointFile.load(host.appendingPathComponent("keypoints/\(path)"))
                    let b = try KeypointFile.load(bare.appendingPathComponent("data/keypoints/\(path)"))
                    XCTAssertEqual(a.frames.map(\.i), b.frames.map(\.i), "\(suite) \(path)")
                    XCTAssertEqual(a.frames.map(\.t), b.frames.map(\.t), "\(suite) \(path)")
                    XCTAssertEqual(a.frames.map(\.hands.count), b.frames.map(\.hands.count), "\(suite) \(path): hands per frame")
                    if path.hasSuffix(".png.hands.json") { XCTAssertEqual(hostFrames[path], ours[path], "\(suite) \(path): a still is bit for bit"); continue }
                    for (fa, fb) in zip(a.frames, b.frames) {
                        for (ha, hb) in zip(fa.hands, fb.hands) {
                            for (pa, pb) in zip(ha.landmarks, hb.landmarks) { sum += Double(abs(pa[0] - pb[0]) + abs(pa[1] - pb[1])) / 2; count += 1 }
                        }
                    }
                }
                XCTAssertGreaterThan(count, 1000)
                XCTAssertLessThan(sum / Double(max(count, 1)), 0.002, "\(suite): mean landmark distance to the host's")
                print("\(suite): mean landmark distance to the host's \(sum / Double(max(count, 1))) over \(count) points")
            }

            // The Python package, from the wheel: the host's keypoint file and export read into the same arrays.
            try FileManager.default.copyItem(at: host.appendingPathComponent("keypoints/\(sample)"), to: bare.appendingPathComponent("data/sample.hands.json"))
            try FileManager.default.copyItem(at: host.appendingPathComponent("export"), to: bare.appendingPathComponent("data/export"))
            try FileManager.default.copyItem(at: URL(fileURLWithPath: dump), to: bare.appendingPathComponent("data/dump_arrays.py"))
            (code, text) = try inRoot(["/venv/bin/python", "/data/dump_arrays.py", "/data/sample.hands.json", "/data/export"])
            XCTAssertEqual(code, 0, "\(suite): \(text)")
            XCTAssertEqual(text, hostArrays, "\(suite): the wheel's package reads other arrays than the checkout's")
            // handpose.extract runs the wheel's binary (found through the installed distribution, not PATH).
            let script = "import handpose; lines = []; handpose.extract('/data/Samples/actions/grab_0.mp4', '/data/api', progress=lines.append); " +
                         "k = handpose.load('/data/api/grab_0.mp4.hands.json'); print(handpose.binary(), int(k.mask.sum()), any('1 done' in l for l in lines))"
            (code, text) = try inRoot(["/venv/bin/python", "-c", script])
            XCTAssertEqual(code, 0, "\(suite): \(text)")
            let expectedHands = (hostFrames["actions/grab_0.mp4.hands.json"] ?? []).map { (($0 as! [String: Any])["hands"] as! [Any]).count }.reduce(0, +)
            XCTAssertEqual(text.trimmingCharacters(in: .whitespacesAndNewlines), "/venv/bin/handpose \(expectedHands) True", suite)
        }
    }
}
