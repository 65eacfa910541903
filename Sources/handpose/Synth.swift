import ArgumentParser
import Datasets
import FileSystem
import Foundation
import Keypoints
import Synthesis
import VideoIO

/// `handpose synth`: labelled synthetic hand clips and images with ground truth.
struct Synth: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Render labelled synthetic hand clips (wave, swipe_left, swipe_right, grab, pinch, point, Background), montage clips, pose images, ground truth (*.truth.hands.json) and Create ML annotation files.",
        discussion: "The same seed gives the same files. Samples/ was made with: handpose synth -o Samples --seed 1"
    )

    @Option(name: .shortAndLong, help: "Output folder.", completion: .directory) var output: String
    @Option(help: "Clips per action class.") var perClass = 2
    @Option(help: "Seconds per action.") var seconds = 2.0
    @Option(help: "Frame rate (decimals allowed, e.g. 29.97).") var fps = 15.0
    @Option(help: "Frame size WxH.") var size = "256x256"
    @Option(help: "Montage clips (three actions each).") var montages = 1
    @Option(help: "Images per pose class.") var posesPerClass = 2
    @Option(help: "Seed.") var seed: UInt64 = 1
    @Flag(help: "Clips in which a live tracker loses the hand: it rises into view from below the frame during the first 0.6 s, and a grey box hides it for 2 to 5 frames mid-clip; the truth keeps the hand throughout (for measuring extract --complete).")
    var losses = false

    /// The most clips of a class, montages or images of a pose class one run writes.
    static let maxCount = 10_000

    func run() throws {
        let dims = size.split(separator: "x").compactMap { Int($0) }
        guard dims.count == 2, dims.allSatisfy({ $0 >= 64 && $0 <= 4096 }) else { throw ValidationError("--size must be WxH, 64 to 4096") }
        guard fps > 0, seconds > 0 else { throw ValidationError("--fps and --seconds must be positive") }
        // Each count is a loop of clips or images written: from none to a bound far past any test set.
        for (flag, count) in [("--per-class", perClass), ("--montages", montages), ("--poses-per-class", posesPerClass)]
        where !(0...Self.maxCount).contains(count) {
            throw ValidationError("\(flag) must be from 0 to \(Self.maxCount)")
        }
        // Frame counts are worked out from these: bounded, so none is too large to count.
        guard fps <= 1000, seconds <= 3600 else { throw ValidationError("--fps must be at most 1000 and --seconds at most 3600 (an hour per action)") }
        // A clip rounded to no frame would be written without a video stream, and annotated as if it had one.
        guard (seconds * fps).rounded() >= 1 else { throw ValidationError("--seconds \(seconds) at --fps \(fps) is less than one frame") }
        var s = SynthSettings()
        s.perClass = perClass; s.seconds = seconds; s.fps = Rational(rate: fps); s.width = dims[0]; s.height = dims[1]
        s.seed = seed; s.montages = montages; s.posesPerClass = posesPerClass
        s.losses = losses
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: output, isDirectory: &isDir), !isDir.boolValue {
            throw RuntimeFailure("\(output): is a file; -o needs a folder (a new or existing one)")
        }
        let entries: [SyntheticDataset.Entry]
        do {
            entries = try SyntheticDataset.generate(s, to: URL(fileURLWithPath: output), tool: .handpose)
        } catch let error as VideoError {
            throw RuntimeFailure(error.description)
        } catch let error as DatasetError {
            throw RuntimeFailure(error.description)
        } catch {
            throw RuntimeFailure("\(output): cannot be written (\(describe(error)))")
        }
        print("wrote \(entries.count) annotated segments, clips and pose images with ground truth to \(output)")
    }
}
