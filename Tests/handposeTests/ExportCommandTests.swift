import Datasets
import Foundation
import Keypoints
import Synthesis
import VideoIO
import XCTest

/// `export` end to end: keypoints found by path, bad inputs reported together, settings that do not
/// match refused, the augmented part chosen by name, empty results refused, the output replaced whole.
final class ExportCommandTests: XCTestCase {
    var dir: URL!
    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("export-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }
    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    /// ROOT/<label>/clip1.mp4 for two labels, each a different synthetic action, and ROOT/<label>/clip2.mp4.
    func labelledFolders() throws -> URL {
        var s = SynthSettings()
        s.perClass = 2; s.seconds = 1; s.montages = 0; s.posesPerClass = 0
        let synth = dir.appendingPathComponent("synth")
        try SyntheticDataset.generate(s, to: synth, tool: .handpose)
        let root = dir.appendingPathComponent("labelled")
        for (label, source) in [("wave", "wave"), ("Background", "grab")] {
            try FileManager.default.createDirectory(at: root.appendingPathComponent(label), withIntermediateDirectories: true)
            for i in 0..<2 {
                try FileManager.default.copyItem(at: synth.appendingPathComponent("actions/\(source)_\(i).mp4"),
                                                 to: root.appendingPathComponent("\(label)/clip\(i + 1).mp4"))
            }
        }
        return root
    }

    func dataset(_ folder: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent(folder + "/dataset.json"))) as! [String: Any]
    }

    func testSameFileNamesUnderTwoLabelsKeepTheirOwnKeypoints() throws {
        let models = try ToolRunner.models()
        let root = try labelledFolders()
        let kp = dir.appendingPathComponent("kp").path
        XCTAssertEqual(try ToolRunner.run(["extract", root.path, "-r", "-o", kp, "--models", models]).0, 0)
        // The keypoints folder misses one clip of a class: export extracts that clip itself and never takes
        // wave/clip1.mp4's keypoints for Background/clip1.mp4.
        let missing = kp + "/Background/clip1.mp4.hands.json"
        try FileManager.default.removeItem(atPath: missing)
        let out = dir.appendingPathComponent("ds").path
        let (code, text) = try ToolRunner.run(["export", "actions", root.path, "--keypoints", kp, "-o", out, "--models", models,
                                               "--fps", "15", "--window", "10", "--format", "csv"])
        XCTAssertEqual(code, 0, text)
        XCTAssertTrue(text.contains("extracting 1 clips and images without usable keypoints"), text)
        XCTAssertEqual(try KeypointFile.load(URL(fileURLWithPath: missing)).source.path, "Background/clip1.mp4")
        let rows = try String(contentsOfFile: out + "/keypoints.csv", encoding: .utf8).split(separator: "\n").dropFirst()   // the header
        let byLabel = Dictionary(grouping: rows) { $0.prefix(while: { $0 != "," }) }.mapValues { Set($0.map { $0.drop(while: { $0 != "," }) }) }
        XCTAssertEqual(byLabel.count, 2)
        XCTAssertTrue(byLabel.values.first!.isDisjoint(with: byLabel.values.dropFirst().first!), "two classes got the same windows")
        // Sources are named by path under the root.
        let manifest = try String(contentsOfFile: out + "/manifest.jsonl", encoding: .utf8).replacingOccurrences(of: "\\/", with: "/")
        XCTAssertTrue(manifest.contains("wave/clip1.mp4") && manifest.contains("Background/clip1.mp4"), manifest)
    }

    /// One clip written several ways in an annotation file (`./wave/clip1.mp4`, `wave/clip1.mp4`,
    /// `Background/../wave/clip1.mp4`, `wave//clip1.mp4`) is one clip: extracted once, named one way in the
    /// manifest, and put in one part of a split, never in train and test both (as four names had put it).
    func testOneClipWrittenSeveralWaysIsOneClipInOnePart() throws {
        let models = try ToolRunner.models()
        let root = try labelledFolders()
        let spellings = ["./wave/clip1.mp4", "wave/clip1.mp4", "Background/../wave/clip1.mp4", "wave//clip1.mp4"]
        var csv = "video,label,start,end\n"
        for (k, spelling) in spellings.enumerated() { csv += "\(spelling),wave,\(Double(k) * 0.25),\(Double(k + 1) * 0.25)\n" }
        csv += "wave/clip2.mp4,wave,0,1\nBackground/clip1.mp4,Background,0,1\nBackground/clip2.mp4,Background,0,1\n"
        let annotations = root.appendingPathComponent("annotations.csv")
        try csv.write(to: annotations, atomically: true, encoding: .utf8)
        let kp = dir.appendingPathComponent("kp").path
        for seed in 0..<4 {
            let out = dir.appendingPathComponent("ds\(seed)").path
            let (code, text) = try ToolRunner.run(["export", "actions", annotations.path, "--keypoints", kp, "-o", out, "--models", models,
                                                   "--fps", "15", "--window", "3", "--split", "train=0.5,test=0.5", "--seed", "\(seed)"])
            XCTAssertEqual(code, 0, text)
            if seed == 0 { XCTAssertTrue(text.contains("extracting 4 clips and images without usable keypoints"), text) }
            var parts: [String: Set<String>] = [:]
            for part in ["train", "test"] {
                for line in try String(contentsOfFile: out + "/\(part)/manifest.jsonl", encoding: .utf8).split(separator: "\n") {
                    let row = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
                    parts[row["source"] as! String, default: []].insert(part)
                }
            }
            XCTAssertEqual(Set(parts.keys), ["wave/clip1.mp4", "wave/clip2.mp4", "Background/clip1.mp4", "Background/clip2.mp4"], "seed \(seed)")
            XCTAssertEqual(parts["wave/clip1.mp4"]?.count, 1, "seed \(seed): one clip in \(parts["wave/clip1.mp4"] ?? [])")
        }
        let made = try FileManager.default.subpathsOfDirectory(atPath: kp).filter { $0.hasSuffix(".json") }.sorted()
        XCTAssertEqual(made, ["Background/clip1.mp4.hands.json", "Background/clip2.mp4.hands.json", "wave/clip1.mp4.hands.json",
                              "wave/clip2.mp4.hands.json"])
    }

    func testSettingsAreCheckedOnTheFlyExtractionUsesTheFlagsAndAugmentGoesToTrain() throws {
        let models = try ToolRunner.models()
        let root = try labelledFolders()
        let kp = dir.appendingPathComponent("kp").path
        // Keypoints made on the fly with --model lite carry it.
        let lite = dir.appendingPathComponent("lite").path
        let (code, text) = try ToolRunner.run(["export", "actions", root.path, "--keypoints", kp, "-o", lite, "--models", models,
                                               "--model", "lite", "--fps", "15", "--window", "5",
                                               "--split", "val=0.5,train=0.5", "--augment", "flip"])
        XCTAssertEqual(code, 0, text)
        let made = try KeypointFile.load(URL(fileURLWithPath: kp + "/wave/clip1.mp4.hands.json"))
        XCTAssertEqual(made.settings?.model, "lite")
        // Only the part named train has augmented copies, though val is listed first.
        for (part, augmented) in [("val", false), ("train", true)] {
            let manifest = try String(contentsOfFile: lite + "/\(part)/manifest.jsonl", encoding: .utf8)
            XCTAssertEqual(manifest.contains("\"copy\""), augmented, part)
        }
        XCTAssertEqual(try dataset("lite")["augmented_part"] as? String, "train")
        // The same keypoints asked for with the full model: refused, naming the difference; --allow-mixed records it.
        let full = dir.appendingPathComponent("full").path
        let (refused, why) = try ToolRunner.run(["export", "actions", root.path, "--keypoints", kp, "-o", full, "--models", models,
                                                 "--fps", "15", "--window", "5"])
        XCTAssertEqual(refused, 1, why)
        XCTAssertTrue(why.contains("were made with other settings (--model lite (asked full))"), why)
        XCTAssertFalse(FileManager.default.fileExists(atPath: full))
        let (mixed, mixedText) = try ToolRunner.run(["export", "actions", root.path, "--keypoints", kp, "-o", full, "--models", models,
                                                     "--fps", "15", "--window", "5", "--allow-mixed"])
        XCTAssertEqual(mixed, 0, mixedText)
        XCTAssertEqual((try dataset("full")["mixed_keypoints"] as? [String])?.count, 4)
    }

    /// Hand-made keypoint files: two broken, one good; the annotation file names all three.
    func brokenInputs() throws -> (annotations: String, keypoints: String) {
        let root = dir.appendingPathComponent("clips")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let kp = dir.appendingPathComponent("kp")
        var csv = "video,label,start,end\n"
        for (i, name) in ["good.mp4", "five.mp4", "garbage.mp4"].enumerated() {
            let writer = try VideoWriter(url: root.appendingPathComponent(name), width: 64, height: 48, frameRate: Rational(10, 1))
            for _ in 0..<20 { try writer.append(VideoFrame(width: 64, height: 48)) }
            try writer.finish()
            csv += "\(name),\(i == 0 ? "a" : "b"),0,2\n"
        }
        let hand = KeypointFile.Hand(chirality: .right, handedness: 0.9, presence: 0.9,
                                     landmarks: (0..<21).map { [0.3 + Float($0) * 0.01, 0.5, 0] }, world: nil, region: nil)
        var file = KeypointFile(source: "good.mp4", width: 64, height: 48, fps: 10,
                                frames: (0..<20).map { KeypointFile.Frame(i: $0, t: Double($0) / 10, hands: [hand]) },
                                tool: .handpose, settings: .init(), models: nil)
        try file.write(to: kp.appendingPathComponent("good.mp4.hands.json"))
        file.frames[4].hands[0].landmarks = Array(hand.landmarks.prefix(5))
        try JSONEncoder().encode(file).write(to: kp.appendingPathComponent("five.mp4.hands.json"))
        try Data("{\"schema\": 7".utf8).write(to: kp.appendingPathComponent("garbage.mp4.hands.json"))
        try csv.write(to: root.appendingPathComponent("annotations.csv"), atomically: true, encoding: .utf8)
        return (root.appendingPathComponent("annotations.csv").path, kp.path)
    }

    func testEveryBadInputIsReportedInOnePassAndSkipBadListsThem() throws {
        let (annotations, kp) = try brokenInputs()
        let out = dir.appendingPathComponent("ds").path
        // --allow-mixed: these hand-made files record no model hashes.
        let common = ["export", "actions", annotations, "--keypoints", kp, "-o", out, "--fps", "10", "--window", "5", "--allow-mixed",
                      "--models", dir.appendingPathComponent("no-models").path]
        let (code, text) = try ToolRunner.run(common)
        XCTAssertEqual(code, 1, text)
        XCTAssertTrue(text.contains("five.mp4") && text.contains("frame 4, hand 0: 5 landmarks"), text)
        XCTAssertTrue(text.contains("garbage.mp4"), text)
        XCTAssertFalse(text.contains("NSCocoaErrorDomain"), text)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
        let (skipped, skippedText) = try ToolRunner.run(common + ["--skip-bad"])
        XCTAssertEqual(skipped, 0, skippedText)
        let listed = (try dataset("ds")["skipped"] as? [[String: String]])?.compactMap { $0["path"] } ?? []
        XCTAssertEqual(Set(listed.map { URL(fileURLWithPath: $0).lastPathComponent }), ["five.mp4", "garbage.mp4"])
    }

    func testEmptyResultsAndSplitsAreRefusedAndTheOutputIsReplacedWhole() throws {
        let (annotations, kp) = try brokenInputs()
        let out = dir.appendingPathComponent("ds").path
        let common = ["export", "actions", annotations, "--keypoints", kp, "-o", out, "--fps", "10", "--allow-mixed", "--skip-bad",
                      "--models", dir.appendingPathComponent("no-models").path]
        for (extra, needle) in [(["--window", "50", "--short", "drop"], "longest segment has 20 frames"),
                                (["--window", "5", "--split", "train=0.8,train=0.2"], "named twice"),
                                (["--window", "5", "--split", "train=1,val=-0"], "a part's fraction is from 0.001 to 1"),
                                (["--window", "5", "--split", "train=1,val=1e-320"], "a part's fraction is from 0.001 to 1"),
                                (["--window", "5", "--split", "train=0.5,val=0.5"], "split part"),
                                // Refused from the classes alone, before any keypoints are looked at or made.
                                (["--window", "5", "--augment", "flip", "--flip-labels", "a:bb"], "'bb' is not a class"),
                                (["--window", "5", "--split", "train=0.5,val=0.5", "--augment", "flip", "--augment-part", "training"],
                                 "--augment-part 'training' is not a part of --split")] {
            let (code, text) = try ToolRunner.run(common + extra)
            XCTAssertNotEqual(code, 0, text)
            XCTAssertTrue(text.contains(needle), "\(needle): \(text)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: out), text)
        }
        // A rate inside the range of rates that would resample each segment to millions of frames: refused before
        // a window is cut (it used to run memory away); --copies without --augment, or past its range, is a usage error.
        let (huge, hugeText) = try ToolRunner.run(common + ["--window", "5", "--fps", "1000000", "--augment", "flip", "--copies", "10000"])
        XCTAssertEqual(huge, 3, hugeText)
        XCTAssertTrue(hugeText.contains("in memory, more than this machine's") && hugeText.contains("Lower --fps"), hugeText)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out), hugeText)
        for (copies, needle) in [(["--copies", "5"], "it needs --augment"), (["--augment", "flip", "--copies", "0"], "give 1 to 10000")] {
            let (code, text) = try ToolRunner.run(common + ["--window", "5"] + copies)
            XCTAssertEqual(code, 64, text)
            XCTAssertTrue(text.contains(needle), text)
        }
        // A second export into the same folder: refused, then replaced whole with --overwrite.
        XCTAssertEqual(try ToolRunner.run(common + ["--window", "5"]).0, 0)
        try Data("old".utf8).write(to: URL(fileURLWithPath: out + "/stale.npy"))
        let (again, againText) = try ToolRunner.run(common + ["--window", "5", "--format", "npz"])
        XCTAssertNotEqual(again, 0, againText)
        XCTAssertTrue(againText.contains("--overwrite"), againText)
        XCTAssertEqual(try ToolRunner.run(common + ["--window", "5", "--format", "npz", "--overwrite"]).0, 0)
        let files = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
        XCTAssertEqual(files, ["classes.json", "data.npz", "dataset.json", "manifest.jsonl"])
        // --overwrite never replaces a folder that is not an export; a file as the output is named, not a raw error.
        let home = dir.appendingPathComponent("home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: home.appendingPathComponent("notes.txt"))
        let (wipe, wipeText) = try ToolRunner.run(common + ["--window", "5", "--overwrite", "-o", home.path])
        XCTAssertNotEqual(wipe, 0, wipeText)
        XCTAssertTrue(FileManager.default.fileExists(atPath: home.appendingPathComponent("notes.txt").path))
        let afile = dir.appendingPathComponent("afile")
        try Data("x".utf8).write(to: afile)
        let (fileCode, fileText) = try ToolRunner.run(common + ["--window", "5", "-o", afile.path])
        XCTAssertNotEqual(fileCode, 0)
        XCTAssertTrue(fileText.contains("a file is in the way"), fileText)
        XCTAssertFalse(fileText.contains("NSCocoaErrorDomain"), fileText)
    }
    /// -q means on export what it means on extract: errors, warnings and the summary only. Every
    /// subcommand that runs extraction takes -q, --overwrite and --jobs.
    func testQuietAndTheSharedFlagsMeanTheSameEverywhere() throws {
        _ = try ToolRunner.models()
        for command in [["extract"], ["export", "actions"], ["export", "poses"]] {
            let (_, help) = try ToolRunner.run(command + ["--help"])
            for flag in ["-q, --quiet", "--overwrite", "--jobs"] { XCTAssertTrue(help.contains(flag), "\(command.joined(separator: " ")) lacks \(flag)") }
        }
        let poses = ToolRunner.root.appendingPathComponent("Samples/poses").path
        let kp = dir.appendingPathComponent("kp").path
        let (loud, loudText) = try ToolRunner.run(["export", "poses", poses, "--keypoints", kp, "-o", dir.appendingPathComponent("a").path])
        XCTAssertEqual(loud, 0, loudText)
        XCTAssertTrue(loudText.contains("X ["), loudText)
        let (quiet, quietText) = try ToolRunner.run(["export", "poses", poses, "--keypoints", kp, "-o", dir.appendingPathComponent("b").path, "-q"])
        XCTAssertEqual(quiet, 0, quietText)
        XCTAssertFalse(quietText.contains("X ["), quietText)
        XCTAssertTrue(quietText.contains("wrote \(dir.appendingPathComponent("b").path) ("), quietText)
        XCTAssertEqual(try ToolRunner.files(in: dir.appendingPathComponent("a")).filter { !$0.key.hasSuffix(".json") && !$0.key.hasSuffix(".jsonl") },
                       try ToolRunner.files(in: dir.appendingPathComponent("b")).filter { !$0.key.hasSuffix(".json") && !$0.key.hasSuffix(".jsonl") },
                       "the same arrays either way")
    }
}
