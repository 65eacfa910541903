import Datasets
import Foundation
import Keypoints
import Synthesis
import TestSupport
import VideoIO
import XCTest

/// `extract` over the inputs real folders hold: stills of the sizes that once crashed FFmpeg's
/// converter, random bytes, an empty file, a truncated clip, a file that kills its worker, symbolic links.
final class ExtractRobustnessTests: XCTestCase {
    static let root = ToolRunner.root
    var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("robust-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    func handpose(_ arguments: [String], environment: [String: String] = [:]) throws -> (Int32, String) {
        try ToolRunner.run(arguments, environment: environment)
    }

    func models() throws -> String { try ToolRunner.models() }

    /// Good clips and stills in `good/`; the same plus every kind of bad input in `mixed/`.
    func makeFolders() throws -> (good: URL, mixed: URL) {
        let good = dir.appendingPathComponent("good"), mixed = dir.appendingPathComponent("mixed")
        var s = SynthSettings()
        s.perClass = 1; s.seconds = 1.5; s.montages = 0; s.posesPerClass = 0
        let synth = dir.appendingPathComponent("synth")
        try SyntheticDataset.generate(s, to: synth, tool: .init(name: "handpose", version: "test"))
        let python = Self.root.appendingPathComponent(".venv/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else { print("SKIP: .venv absent; run `make setup`"); throw Prerequisite.missing(".venv absent") }
        let stills = dir.appendingPathComponent("stills")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: python)
        p.arguments = [Self.root.appendingPathComponent("scripts/make_stills.py").path, stills.path, "200,683", "200,384"]
        try p.run(); p.waitUntilExit()
        guard p.terminationStatus == 0 else { print("SKIP: make_stills.py failed (Pillow absent? run `make setup`)"); throw Prerequisite.missing("no stills") }
        let fm = FileManager.default
        for folder in [good, mixed] {
            try fm.createDirectory(at: folder, withIntermediateDirectories: true)
            for name in ["wave_0.mp4", "grab_0.mp4"] {
                try fm.copyItem(at: synth.appendingPathComponent("actions/\(name)"), to: folder.appendingPathComponent(name))
            }
            for name in ["jpeg420_200x200.jpg", "jpeg422_683x384.jpg", "palette_683x200.png"] {
                try fm.copyItem(at: stills.appendingPathComponent(name), to: folder.appendingPathComponent(name))
            }
        }
        try Data((0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 2654435761 >> 7) }).write(to: mixed.appendingPathComponent("random.jpg"))
        try Data().write(to: mixed.appendingPathComponent("empty.mp4"))
        // Text under an image's name: FFmpeg opens it and yields no frame; it must fail, not be "done".
        try Data("not an image at all\n".utf8).write(to: mixed.appendingPathComponent("text.png"))
        // A PNG whose header says 0x0 pixels: damaged, not "larger than FFmpeg decodes".
        try Self.png(width: 0, height: 0).write(to: mixed.appendingPathComponent("zero.png"))
        let clip = try Data(contentsOf: synth.appendingPathComponent("actions/pinch_0.mp4"))
        try clip.prefix(clip.count * 8 / 10).write(to: mixed.appendingPathComponent("truncated.mp4"))
        try fm.copyItem(at: synth.appendingPathComponent("actions/point_0.mp4"), to: mixed.appendingPathComponent("poison.mp4"))
        return (good, mixed)
    }

    /// A PNG of a signature, an IHDR chunk of the given size (8-bit RGB) and IEND, with their CRCs.
    static func png(width: UInt32, height: UInt32) -> Data {
        func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let typed = Array(type.utf8) + body
            var crc: UInt32 = 0xFFFF_FFFF
            for byte in typed {
                crc ^= UInt32(byte)
                for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
            }
            crc ^= 0xFFFF_FFFF
            return bigEndian(UInt32(body.count)) + typed + bigEndian(crc)
        }
        func bigEndian(_ v: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> $0) } }
        return Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", bigEndian(width) + bigEndian(height) + [8, 2, 0, 0, 0]) + chunk("IEND", []))
    }

    func testAMixedFolderCostsOnlyTheBadFiles() throws {
        let models = try models()
        let (good, mixed) = try makeFolders()
        let clean = dir.appendingPathComponent("clean").path, out = dir.appendingPathComponent("out").path
        // Every output format, so a worker's death must take the temporary files of all four with it.
        let formats = ["--format", "json,pose,csv,npz"]
        // The clean run's workers keep private weights; the other run's share them through a cache folder,
        // which must not change a byte of the keypoints.
        let (cleanCode, cleanText) = try handpose(["extract", good.path, "-o", clean, "--models", models, "--jobs", "2"] + formats,
                                                  environment: ["HANDPOSE_CACHE": ""])
        XCTAssertEqual(cleanCode, 0, cleanText)
        let cache = dir.appendingPathComponent("cache")
        let crash = [ExtractWorkerHook.variable: "poison.mp4", "HANDPOSE_CACHE": cache.path]
        let (code, text) = try handpose(["extract", mixed.path, "-o", out, "--models", models, "--jobs", "2"] + formats, environment: crash)
        XCTAssertEqual(code, 1, text)
        XCTAssertTrue(text.contains("11 files: 5 done, 0 skipped, 1 incomplete, 5 failed"), text)
        let shared = try FileManager.default.contentsOfDirectory(atPath: cache.appendingPathComponent("weights").path)
        XCTAssertEqual(shared.filter { $0.hasSuffix(".f32") }.count, 2, "palm and landmark weights: \(shared)")
        for (name, reason) in [("random.jpg", "cannot decode its first frame"), ("empty.mp4", "not a video or image"),
                               ("text.png", "cannot decode its first frame"), ("zero.png", "cannot decode its first frame"),
                               ("poison.mp4", "crashed (signal 11, SIGSEGV)"), ("truncated.mp4", "frames kept")] {
            XCTAssertTrue(text.split(separator: "\n").contains { $0.contains(name) && $0.contains(reason) }, "\(name): \(reason)\n\(text)")
        }
        XCTAssertFalse(text.contains("larger than FFmpeg decodes"), "a 0x0 picture is damaged, not too large: \(text)")
        // Alone (its decoder on FFmpeg's own threads, where it yields no frame and no error), the same file says why.
        let (zero, zeroText) = try handpose(["extract", mixed.appendingPathComponent("zero.png").path, "-o", dir.appendingPathComponent("zero").path,
                                             "--models", models])
        XCTAssertEqual(zero, 1, zeroText)
        XCTAssertTrue(zeroText.contains("its header gives no picture size (0x0)"), zeroText)
        // Every good file's keypoints, byte for byte as in a run without the bad files.
        let names = try FileManager.default.contentsOfDirectory(atPath: clean).sorted()
        XCTAssertEqual(names.count, 5 * 4)
        for name in names {
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: clean).appendingPathComponent(name)),
                           try Data(contentsOf: URL(fileURLWithPath: out).appendingPathComponent(name)), name)
        }
        // The truncated clip keeps its frames, marked incomplete; each failed file has only the record of
        // why (for `status`); no temporary file remains.
        let written = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
        let records = ["empty.mp4.failed.json", "poison.mp4.failed.json", "random.jpg.failed.json", "text.png.failed.json", "zero.png.failed.json"]
        let truncated = ["truncated.mp4.hands.json", "truncated.mp4.pose", "truncated.mp4.csv", "truncated.mp4.npz"]
        XCTAssertEqual(written, (names + truncated + records).sorted())
        let poison = try String(contentsOfFile: out + "/poison.mp4.failed.json", encoding: .utf8)
        XCTAssertTrue(poison.contains("SIGSEGV") && poison.contains("handpose/failure@1"), poison)
        let cut = try KeypointFile.load(URL(fileURLWithPath: out).appendingPathComponent("truncated.mp4.hands.json"))
        XCTAssertNotNil(cut.incomplete)
        XCTAssertGreaterThan(cut.frames.count, 2)
        XCTAssertEqual(cut.incomplete?.lastGoodFrame, cut.frames.last?.i)
        // A rerun gets past the file that kills its worker, and reports it again.
        let (again, againText) = try handpose(["extract", mixed.path, "-o", out, "--models", models, "--jobs", "1"] + formats, environment: crash)
        XCTAssertEqual(again, 1, againText)
        XCTAssertTrue(againText.contains("11 files: 0 done, 5 skipped, 1 incomplete, 5 failed"), againText)
    }

    func testSymlinkedFoldersLoopsAndEmptyResults() throws {
        let models = try models()
        let fm = FileManager.default
        let real = dir.appendingPathComponent("real/sub")
        try fm.createDirectory(at: real, withIntermediateDirectories: true)
        try VideoWriterFixture.clip(real.appendingPathComponent("a.mp4"))
        try fm.createSymbolicLink(atPath: dir.appendingPathComponent("real/sub/loop").path, withDestinationPath: dir.appendingPathComponent("real").path)
        try fm.createSymbolicLink(atPath: dir.appendingPathComponent("link").path, withDestinationPath: dir.appendingPathComponent("real").path)
        let out = dir.appendingPathComponent("out").path
        // A folder holding only sub-folders, without -r: nothing found, exit 3 (could not run), and the hint to add -r.
        let (flat, flatText) = try handpose(["extract", dir.appendingPathComponent("link").path, "-o", out, "--models", models])
        XCTAssertEqual(flat, 3, flatText)
        XCTAssertTrue(flatText.contains("add -r"), flatText)
        // Through a symlinked input folder with -r: the clip is found once, the loop reported, not followed.
        let (code, text) = try handpose(["extract", dir.appendingPathComponent("link").path, "-r", "-o", out, "--models", models])
        XCTAssertEqual(code, 0, text)
        XCTAssertTrue(text.contains("1 files: 1 done"), text)
        XCTAssertTrue(text.contains("loop"), text)
        XCTAssertTrue(fm.fileExists(atPath: out + "/sub/a.mp4.hands.json"))
        // An output path that is a file is refused before any work.
        let file = dir.appendingPathComponent("afile")
        try Data("x".utf8).write(to: file)
        let (bad, badText) = try handpose(["extract", dir.appendingPathComponent("link").path, "-r", "-o", file.path, "--models", models])
        XCTAssertNotEqual(bad, 0, badText)
        XCTAssertTrue(badText.contains("is a file"), badText)
        XCTAssertFalse(badText.contains("done"), badText)
    }

    func testTwoInputsClaimingOneOutputAreRefusedBeforeWork() throws {
        let models = try models()
        for label in ["call", "rock"] {
            let folder = dir.appendingPathComponent("poses/\(label)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try VideoWriterFixture.clip(folder.appendingPathComponent("0001.mp4"), frames: 2)
        }
        let out = dir.appendingPathComponent("kp").path
        let (code, text) = try handpose(["extract", dir.appendingPathComponent("poses/call").path, dir.appendingPathComponent("poses/rock").path,
                                         "-o", out, "--models", models])
        XCTAssertNotEqual(code, 0, text)
        XCTAssertTrue(text.contains("poses/call/0001.mp4") && text.contains("poses/rock/0001.mp4"), text)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/0001.mp4.hands.json"))
        // Their common parent, searched with -r, names them apart.
        let (ok, okText) = try handpose(["extract", dir.appendingPathComponent("poses").path, "-r", "-o", out, "--models", models])
        XCTAssertEqual(ok, 0, okText)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/call/0001.mp4.hands.json"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/rock/0001.mp4.hands.json"))
    }
}

/// The name of the worker's crash hook (kept in one place: `ExtractWorker.crashHookVariable`).
enum ExtractWorkerHook { static let variable = "HANDPOSE_TEST_CRASH_ON" }

/// A short real clip, written with VideoWriter.
enum VideoWriterFixture {
    static func clip(_ url: URL, frames: Int = 5) throws {
        let writer = try VideoWriter(url: url, width: 64, height: 48, frameRate: Rational(10, 1))
        for i in 0..<frames {
            var f = VideoFrame(width: 64, height: 48)
            for k in stride(from: 0, to: f.pixels.count, by: 3) { f.pixels[k] = UInt8(truncatingIfNeeded: i * 40 + k) }
            try writer.append(f)
        }
        try writer.finish()
    }
}
