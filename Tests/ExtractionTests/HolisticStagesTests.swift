@testable import Extraction
import BodyLandmarks
import Foundation
@testable import HandLandmarks
import HolisticLandmarks
import Inference
import Keypoints
import TestSupport
import VideoIO
import XCTest

/// Holistic on two threads (`HolisticTracker.frames`: a frame's hands beside the next frame's body and
/// face) gives the frames one thread gives, bit for bit, also when the share changes mid-clip, and an error
/// leaves nothing behind for the next clip; so does `--body` with the body tracker beside the hand tracker.
final class HolisticStagesTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL
    /// A signer (body, both hands, face) and a gesture with two hands at 320x240.
    static let clips = ["slp_sign_short.mp4", "nvgesture_two_hands.avi"]

    struct SinkFailed: Error {}

    override func tearDown() {
        ThreadShare.reset()
        ThreadShare.resetUsage()
    }

    func prerequisites() throws -> (models: URL, clips: [URL]) {
        let models = Self.root.appendingPathComponent("Models")
        guard HolisticModels.fileNames().allSatisfy({ FileManager.default.fileExists(atPath: models.appendingPathComponent($0).path) }) else {
            print("SKIP: Holistic's models absent in \(models.path); run `make setup`")
            throw Prerequisite.missing("models absent")
        }
        let corpus = Self.root.appendingPathComponent("../shared/corpus/clips").standardizedFileURL
        guard FileManager.default.fileExists(atPath: corpus.path) else {
            print("SKIP: the shared corpus (\(corpus.path)) is absent")
            throw Prerequisite.missing("shared corpus absent")
        }
        return (models, Self.clips.map { corpus.appendingPathComponent($0) })
    }

    /// Each frame as JSON (sorted keys: every value, to the bit), in the order the sink got them.
    func frames(_ clip: URL, _ holistic: HolisticTracker?, hands: HandTracker? = nil, body: BodyTracker? = nil,
                progress: @escaping (Int) -> Void = { _ in }, failAt: Int? = nil) throws -> [String] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        var out: [String] = []
        let settings = holistic == nil ? ExtractionSettings(hands: hands!.options, body: body.map { _ in BodyTrackerOptions() })
            : ExtractionSettings(holistic: HolisticOptions())
        _ = try KeypointExtraction.run(clip, sourcePath: clip.lastPathComponent, tracker: hands, body: body, holistic: holistic,
                                       settings: settings, tool: .handpose,
                                       decodeThreads: 1, progress: progress) { frame in
            if out.count == failAt { throw SinkFailed() }
            out.append(String(decoding: try encoder.encode(frame), as: UTF8.self))
        }
        return out
    }

    func testTwoStagesGiveOneThreadsFrames() throws {
        let (models, clips) = try prerequisites()
        let loaded = try HolisticModels(directory: models)
        let one = try HolisticTracker(models: loaded, threads: 1)
        let two = try HolisticTracker(models: loaded, threads: 2)
        for clip in clips {
            let expected = try frames(clip, one)
            XCTAssertGreaterThan(expected.count, 5, clip.lastPathComponent)
            XCTAssertTrue(expected.contains { $0.contains("\"faces\":[{") }, "\(clip.lastPathComponent): a face somewhere")

            ThreadShare.resetUsage()
            XCTAssertEqual(try frames(clip, two), expected, "\(clip.lastPathComponent): two stages")
            XCTAssertEqual(ThreadShare.usage?.upperBound, 2, "the two stages noted as two threads")

            // The share changing mid-clip, as a supervisor changes it: one stage, two, and back.
            ThreadShare.set(1)
            let switching = try frames(clip, two, progress: { ThreadShare.set($0 % 4 < 2 ? 2 : 1) })
            ThreadShare.reset()
            XCTAssertEqual(switching, expected, "\(clip.lastPathComponent): the share changing every two frames")

            // The sink failing while a frame is in the second stage: that error, and the next clip starts clean.
            XCTAssertThrowsError(try frames(clip, two, failAt: 3)) { XCTAssertTrue($0 is SinkFailed, "\($0)") }
            XCTAssertEqual(try frames(clip, two), expected, "\(clip.lastPathComponent): after a failed run")
        }
    }

    func testBodyBesideHandsGivesOneThreadsFrames() throws {
        let (models, clips) = try prerequisites()
        let handModels = try HandModels(directory: models, complexity: .full), bodyModels = try BodyModels(directory: models)
        let one = (try HandTracker(models: handModels, options: HandTrackerOptions(), threads: 1),
                   try BodyTracker(models: bodyModels, options: BodyTrackerOptions(), threads: 1))
        let two = (try HandTracker(models: handModels, options: HandTrackerOptions(), threads: 2),
                   try BodyTracker(models: bodyModels, options: BodyTrackerOptions(), threads: 2))
        for clip in clips {
            let expected = try frames(clip, nil, hands: one.0, body: one.1)
            XCTAssertTrue(expected.contains { $0.contains("\"bodies\":[{") }, "\(clip.lastPathComponent): a body somewhere")
            ThreadShare.resetUsage()
            XCTAssertEqual(try frames(clip, nil, hands: two.0, body: two.1), expected, "\(clip.lastPathComponent): beside")
            XCTAssertEqual(ThreadShare.usage?.upperBound, 2)
            let switching = try frames(clip, nil, hands: two.0, body: two.1, progress: { ThreadShare.set($0 % 4 < 2 ? 2 : 1) })
            ThreadShare.reset()
            XCTAssertEqual(switching, expected, "\(clip.lastPathComponent): the share changing every two frames")
        }
    }

    /// Plain hands on two threads (`HandTracker.process`: palm detection beside the tracked hands'
    /// landmarks, two hands' landmarks side by side) give one thread's frames bit for bit, by both rules,
    /// also when the share changes mid-clip; so do stills with two hands (image mode: palms, then both hands
    /// at once).
    func testHandPartsSideBySideGiveOneThreadsFrames() throws {
        let (models, clips) = try prerequisites()
        let handModels = try HandModels(directory: models, complexity: .full)
        for rules in HandTrackerOptions.Rules.allCases {
            var options = HandTrackerOptions()
            options.rules = rules
            let one = try HandTracker(models: handModels, options: options, threads: 1)
            let two = try HandTracker(models: handModels, options: options, threads: 2)
            // Three threads: the parts split 1 and 2, the caller's on the twin plan's pool.
            let three = try HandTracker(models: handModels, options: options, threads: 3)
            let before = two.sideBySide
            for clip in clips {
                let expected = try frames(clip, nil, hands: one)
                XCTAssertTrue(expected.contains { $0.contains("\"hands\":[{") }, "\(clip.lastPathComponent): hands somewhere")
                ThreadShare.resetUsage()
                XCTAssertEqual(try frames(clip, nil, hands: two), expected, "\(clip.lastPathComponent), \(rules): two threads")
                XCTAssertEqual(ThreadShare.usage?.upperBound, 2)
                XCTAssertEqual(try frames(clip, nil, hands: three), expected, "\(clip.lastPathComponent), \(rules): three threads")
                ThreadShare.set(1)
                defer { ThreadShare.reset() }
                let switching = try frames(clip, nil, hands: two, progress: { ThreadShare.set($0 % 4 < 2 ? 2 : 1) })
                XCTAssertEqual(switching, expected, "\(clip.lastPathComponent), \(rules): the share changing every two frames")
            }
            XCTAssertEqual(one.sideBySide.palms + one.sideBySide.pairs, 0, "one thread runs nothing side by side")
            XCTAssertGreaterThan(two.sideBySide.palms, before.palms, "\(rules): palm detection beside a tracked hand")
            XCTAssertGreaterThan(two.sideBySide.pairs, before.pairs, "\(rules): two hands side by side")
            XCTAssertGreaterThan(three.sideBySide.pairs, 0, "\(rules): two hands side by side on three threads")

            // Stills: every hand comes from a palm, and two of them run side by side.
            let stills = Self.root.appendingPathComponent("../shared/corpus/images").standardizedFileURL
            options.mode = .image
            one.options = options
            two.options = options
            var withTwo = 0
            let pairsBefore = two.sideBySide.pairs
            for name in try FileManager.default.contentsOfDirectory(atPath: stills.path).sorted() {
                guard let frame = try VideoReader(url: stills.appendingPathComponent(name)).nextFrame() else {
                    XCTFail("\(name): no picture")
                    continue
                }
                let expected = try one.process(frame)
                let got = try two.process(frame)
                XCTAssertEqual(got.map(\.landmarks), expected.map(\.landmarks), name)
                XCTAssertEqual(got.map(\.world), expected.map(\.world), name)
                XCTAssertEqual(got.map(\.handedness), expected.map(\.handedness), name)
                XCTAssertEqual(got.map(\.presence), expected.map(\.presence), name)
                XCTAssertEqual(got.map(\.track), expected.map(\.track), name)
                if expected.count == 2 { withTwo += 1 }
            }
            XCTAssertGreaterThan(withTwo, 0, "stills with two hands")
            XCTAssertGreaterThanOrEqual(two.sideBySide.pairs - pairsBefore, withTwo, "\(rules): two hands side by side")
        }
    }

    /// Frames without a person between frames with one (black frames put into a signer's clip): each track's
    /// reset falls where `process` puts it.
    func testFramesWithoutAPersonBetweenOnesWith() throws {
        let (models, clips) = try prerequisites()
        let reader = try VideoReader(url: clips[0])
        var frames: [VideoFrame] = []
        while let f = try reader.nextFrame() { frames.append(f) }
        let black = { (i: Int) in VideoFrame(index: i, time: Double(i), width: frames[0].width, height: frames[0].height,
                                             pixels: [UInt8](repeating: 0, count: frames[0].pixels.count)) }
        var mixed: [VideoFrame] = []
        for (i, f) in frames.enumerated() {
            mixed.append(f)
            if i % 3 == 1 { mixed.append(black(i)) }
            if i == 4 { mixed += [black(i), black(i)] }
        }
        func describe(_ o: HolisticObservation) throws -> String {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            let frame = KeypointFile.Frame(i: 0, t: 0, hands: [o.leftHand, o.rightHand].compactMap { $0 }.map(KeypointFile.Hand.init),
                                           bodies: o.body.map { [KeypointFile.Body($0)] } ?? [],
                                           faces: o.face.map { [KeypointFile.Face($0, person: 0)] } ?? [])
            return String(decoding: try encoder.encode(frame), as: UTF8.self)
        }
        let loaded = try HolisticModels(directory: models)
        let one = try HolisticTracker(models: loaded, threads: 1), two = try HolisticTracker(models: loaded, threads: 2)
        let expected = try mixed.map { try describe(one.process($0)) }
        XCTAssertTrue(expected.contains { $0.contains("\"bodies\":[]") } && expected.contains { $0.contains("\"faces\":[{") },
                      "frames with and without a person")
        var got: [String] = []
        for f in mixed { try two.frames(f) { _, o in got.append(try describe(o)) } }
        try two.finish { _, o in got.append(try describe(o)) }
        XCTAssertEqual(got, expected)
        XCTAssertEqual(two.timings.people, one.timings.people)
        XCTAssertEqual(two.timings.arms, one.timings.arms)
    }
}
