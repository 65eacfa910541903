import Annotations
import ArgumentParser
import Datasets
import Foundation
import Synthesis
import VideoIO

/// `handpose render`: see what was extracted.
struct Render: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Draw keypoints over a clip (video, PNG frames or a contact sheet), or plot a keypoint file over time.",
        discussion: """
        handpose render CLIP --keypoints A.json [--keypoints B.json] -o out.mp4     skeletons on every frame
        handpose render CLIP --keypoints A.json --every 15 -o frames/               PNG frames (or --frames 10,20,30)
        handpose render CLIP --keypoints A.json --sheet -o sheet.png                one contact sheet of the clip
        handpose render --timeline A.json [--annotations ann.csv] -o timeline.png   hands, presence, handedness over time
        Files are drawn in different colours (first: cyan/red for left/right; second: green/yellow).
        """
    )

    @Argument(help: "The clip or image the keypoints belong to.") var clip: String?
    @Option(help: "Keypoint file(s) to draw.") var keypoints: [String] = []
    @Option(name: .shortAndLong, help: "Output: a video (.mp4, .mkv, .mov, .avi, .gif) at the clip's frame rate, a folder for PNG frames, or an image (.png, .jpg) for --sheet, --timeline or a still.") var output: String
    @Option(help: "Frame indices to write as PNG, e.g. 10,20,30.") var frames: String?
    @Option(help: "Write every Nth frame as PNG.") var every: Int?
    @Flag(help: "Write one contact-sheet PNG of evenly spaced frames.") var sheet = false
    @Option(help: "Frames on the contact sheet.") var sheetFrames = 12
    @Option(help: "Plot this keypoint file over time.") var timeline: String?
    @Option(help: "Annotation file whose segments are drawn as bands on the timeline.") var annotations: String?

    func validate() throws {
        if timeline == nil {
            guard clip != nil else { throw ValidationError("give a CLIP, or --timeline FILE") }
            guard !keypoints.isEmpty else { throw ValidationError("give at least one --keypoints file") }
        }
        if let every, every < 1 { throw ValidationError("--every must be at least 1") }
        guard sheetFrames >= 1 else { throw ValidationError("--sheet-frames must be at least 1") }
        if let frames {
            let parts = frames.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard !parts.isEmpty, parts.allSatisfy({ Int($0).map { $0 >= 0 } ?? false }) else {
                throw ValidationError("--frames takes frame numbers from 0, e.g. 10,20,30")
            }
        }
        // The output's kind is decided from its name before any work.
        let out = URL(fileURLWithPath: output)
        do {
            if timeline != nil || sheet {
                try ImageWriter.check(out)
            } else if frames != nil || every != nil {
                var isDir: ObjCBool = false
                if FileManager.default.fileExists(atPath: output, isDirectory: &isDir), !isDir.boolValue {
                    throw ValidationError("\(output) is a file; --frames and --every write PNG frames into a folder")
                }
            } else if !ImageWriter.supportedExtensions.contains(out.pathExtension.lowercased()) {
                try VideoWriter.check(out)
            }
        } catch let error as VideoError {
            throw ValidationError(error.description)
        }
    }

    func run() throws {
        if let timeline { return try plotTimeline(timeline) }
        let url = URL(fileURLWithPath: clip!)
        let reader = try VideoReader(url: url)
        let files = try keypoints.map { try KeypointFile.load(URL(fileURLWithPath: $0)) }
        for (path, f) in zip(keypoints, files) {
            guard f.video.width == reader.info.width, f.video.height == reader.info.height else {
                throw ValidationError("\(path) is for a \(f.video.width)x\(f.video.height) clip, but \(clip!) is \(reader.info.width)x\(reader.info.height): keypoints of another clip?")
            }
            if !reader.info.frameCountIsEstimate && f.frames.count != reader.info.frameCount {
                throw ValidationError("\(path) has \(f.frames.count) frames, but \(clip!) has \(reader.info.frameCount): keypoints of another clip?")
            }
        }
        let out = URL(fileURLWithPath: output)
        let total = reader.info.frameCount
        if sheet {
            let picks = Set((0..<sheetFrames).map { $0 * max(total - 1, 0) / max(sheetFrames - 1, 1) })
            var tiles: [Canvas] = []
            let last = picks.max() ?? 0
            while let f = try reader.nextFrame() {
                if picks.contains(f.index) { tiles.append(Overlay.draw(f, files: files, index: f.index)) }
                if f.index >= last { break }
            }
            let cols = Int(Double(tiles.count).squareRoot().rounded(.up)), rows = (tiles.count + cols - 1) / max(cols, 1)
            let tw = 320, th = max(1, 320 * reader.info.height / max(reader.info.width, 1))
            var board = Canvas(width: cols * tw + (cols + 1) * 4, height: rows * th + (rows + 1) * 4, fill: SIMD3(30, 30, 30))
            for (i, t) in tiles.enumerated() { board.paste(t, x: 4 + (i % cols) * (tw + 4), y: 4 + (i / cols) * (th + 4), w: tw, h: th) }
            try ImageWriter.write(board.frame(), to: out)
            print("wrote \(output) (\(tiles.count) frames, \(cols)x\(rows))")
        } else if frames != nil || every != nil {
            let wanted = Set(frames?.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) } ?? [])
            if !reader.info.frameCountIsEstimate, let beyond = wanted.filter({ $0 >= total }).min() {
                throw ValidationError("--frames \(beyond): \(clip!) has \(total) frames (0 to \(total - 1))")
            }
            do { try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true) } catch {
                throw ValidationError("\(output): cannot create the folder (\(describe(error)))")
            }
            var written = 0
            while let f = try reader.nextFrame() {
                guard wanted.contains(f.index) || (every.map { f.index % $0 == 0 } ?? false) else { continue }
                try ImageWriter.writePNG(Overlay.draw(f, files: files, index: f.index).frame(), to: out.appendingPathComponent(String(format: "frame_%05d.png", f.index)))
                written += 1
            }
            if written == 0 {
                FileHandle.standardError.write(Data("warning: no frame matched --frames/--every; nothing written\n".utf8))
                throw ExitCode(1)
            }
            print("wrote \(written) PNG frames to \(output)")
        } else if ImageWriter.supportedExtensions.contains(out.pathExtension.lowercased()) {
            // An image out of a clip or still: its first frame, drawn over.
            guard let f = try reader.nextFrame() else { throw ValidationError("\(clip!) has no frame to draw") }
            try ImageWriter.write(Overlay.draw(f, files: files, index: f.index).frame(), to: out)
            print("wrote \(output) (frame \(f.index))")
        } else {
            let rate = reader.info.averageFrameRate > 0 ? reader.info.averageFrameRate : 25
            let writer = try VideoWriter(url: out, width: reader.info.width, height: reader.info.height, frameRate: Rational(rate: rate))
            var n = 0
            while let f = try reader.nextFrame() {
                try writer.append(Overlay.draw(f, files: files, index: f.index).frame(), time: f.time)
                n += 1
            }
            try writer.finish()
            print("wrote \(output) (\(n) frames)")
        }
    }

    func plotTimeline(_ path: String) throws {
        let file = try KeypointFile.load(URL(fileURLWithPath: path))
        let W = 1200, H = 360, left = 70, right = 20, top = 30
        var c = Canvas(width: W, height: H, fill: SIMD3(250, 250, 250))
        let duration = max(file.frames.last?.t ?? 1, 1e-3)
        func x(_ t: Double) -> Float { Float(left) + Float(t / duration) * Float(W - left - right) }
        // Lanes: hands found (0...2), presence (0...1), handedness (0 left ... 1 right).
        let lanes = [("HANDS", 2.0), ("PRESENCE", 1.0), ("RIGHT P", 1.0)]
        let laneH = (H - top - 30) / lanes.count
        func y(_ lane: Int, _ v: Double) -> Float { Float(top + lane * laneH + laneH - 8) - Float(v / lanes[lane].1) * Float(laneH - 16) }
        if let annotations {
            let set = AnnotationSource.load(annotationFile: URL(fileURLWithPath: annotations))
            let name = (file.source.path as NSString).lastPathComponent
            let colors: [SIMD3<Float>] = [[255, 220, 200], [200, 230, 255], [210, 250, 210], [250, 240, 190], [235, 215, 250]]
            let labels = set.classes
            for s in set.segments where s.video.lastPathComponent == name {
                let x0 = x(s.start ?? 0), x1 = x(s.end ?? duration)
                c.polygon([SIMD2(x0, Float(top)), SIMD2(x1, Float(top)), SIMD2(x1, Float(H - 30)), SIMD2(x0, Float(H - 30))],
                          color: colors[(labels.firstIndex(of: s.label) ?? 0) % colors.count])
                c.text(s.label, x: Int(x0) + 3, y: H - 24, scale: 1, color: SIMD3(40, 40, 40), backing: false)
            }
        }
        for (i, lane) in lanes.enumerated() {
            c.line(SIMD2(Float(left), y(i, 0)), SIMD2(Float(W - right), y(i, 0)), width: 1, color: SIMD3(160, 160, 160))
            c.text(lane.0, x: 4, y: top + i * laneH + laneH / 2 - 7, scale: 1, color: SIMD3(40, 40, 40), backing: false)
        }
        var previous: SIMD2<Float>? = nil
        for f in file.frames {
            let p = SIMD2(x(f.t), y(0, Double(f.hands.count)))
            if let q = previous { c.line(q, SIMD2(p.x, q.y), width: 2, color: SIMD3(40, 40, 40)); c.line(SIMD2(p.x, q.y), p, width: 2, color: SIMD3(40, 40, 40)) }
            previous = p
            for h in f.hands {
                let color: SIMD3<Float> = h.chirality == .left ? SIMD3(30, 140, 220) : SIMD3(220, 60, 40)
                c.disc(SIMD2(x(f.t), y(1, Double(h.presence ?? 1))), radius: 2, color: color)
                c.disc(SIMD2(x(f.t), y(2, Double(h.handedness))), radius: 2, color: color)
            }
        }
        c.text(String(format: "%@  %.2fS  %d FRAMES", (file.source.path as NSString).lastPathComponent, duration, file.frames.count),
               x: left, y: 8, scale: 1, color: SIMD3(20, 20, 20), backing: false)
        try ImageWriter.write(c.frame(), to: URL(fileURLWithPath: output))
        print("wrote \(output)")
    }
}
