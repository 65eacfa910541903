import Annotations
import ArgumentParser
import FileSystem
import Foundation
import Keypoints
import Rendering
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

    @Argument(help: "The clip or image the keypoints belong to.", completion: .file()) var clip: String?
    @Option(help: "Keypoint file(s) to draw.", completion: .file(extensions: ["json"])) var keypoints: [String] = []
    @Option(name: .shortAndLong, help: "Output: a video (.mp4, .mkv, .mov, .avi, .gif) at the clip's frame rate, a folder for PNG frames, or an image (.png, .jpg) for --sheet, --timeline or a still.", completion: .file()) var output: String
    @Option(help: "Frame indices to write as PNG, e.g. 10,20,30.") var frames: String?
    @Option(help: "Write every Nth frame as PNG.") var every: Int?
    @Flag(help: "Write one contact-sheet PNG of evenly spaced frames.") var sheet = false
    @Option(help: "Frames on the contact sheet (1 to 100).") var sheetFrames = 12
    @Option(help: "Plot this keypoint file over time.", completion: .file(extensions: ["json"])) var timeline: String?
    @Option(help: "Annotation file whose segments are drawn as bands on the timeline.", completion: .file(extensions: ["csv", "json"])) var annotations: String?

    func validate() throws {
        if timeline == nil {
            guard clip != nil else { throw ValidationError("give a CLIP, or --timeline FILE") }
            guard !keypoints.isEmpty else { throw ValidationError("give at least one --keypoints file") }
        }
        if let every, every < 1 { throw ValidationError("--every must be at least 1") }
        guard (1...ContactSheet.maxFrames).contains(sheetFrames) else {
            throw ValidationError("--sheet-frames takes 1 to \(ContactSheet.maxFrames) frames, not \(sheetFrames)")
        }
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
                throw RuntimeFailure("\(path) is for a \(f.video.width)x\(f.video.height) clip, but \(clip!) is \(reader.info.width)x\(reader.info.height): keypoints of another clip?", code: ToolExit.dataErrors)
            }
            if !reader.info.frameCountIsEstimate && f.frames.count != reader.info.frameCount {
                throw RuntimeFailure("\(path) has \(f.frames.count) frames, but \(clip!) has \(reader.info.frameCount): keypoints of another clip?", code: ToolExit.dataErrors)
            }
        }
        let out = URL(fileURLWithPath: output)
        let total = reader.info.frameCount
        if sheet {
            let picks = ContactSheet.picks(total: total, count: sheetFrames)
            var tiles: [Canvas] = []
            let last = picks.max() ?? 0
            while let f = try reader.nextFrame() {
                if picks.contains(f.index) { tiles.append(ContactSheet.tile(Overlay.draw(f, files: files, index: f.index))) }
                if f.index >= last { break }
            }
            let (board, cols, rows) = ContactSheet.compose(tiles, frameWidth: reader.info.width, frameHeight: reader.info.height)
            try ImageWriter.write(board.frame(), to: out)
            print("wrote \(output) (\(tiles.count) frames, \(cols)x\(rows))")
        } else if frames != nil || every != nil {
            let wanted = Set(frames?.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) } ?? [])
            if !reader.info.frameCountIsEstimate, let beyond = wanted.filter({ $0 >= total }).min() {
                throw ValidationError("--frames \(beyond): \(clip!) has \(total) frames (0 to \(total - 1))")
            }
            do { try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true) } catch {
                throw RuntimeFailure("\(output): cannot create the folder (\(describe(error)))")
            }
            var written = 0
            while let f = try reader.nextFrame() {
                guard wanted.contains(f.index) || (every.map { f.index % $0 == 0 } ?? false) else { continue }
                try ImageWriter.writePNG(Overlay.draw(f, files: files, index: f.index).frame(), to: out.appendingPathComponent(String(format: "frame_%05d.png", f.index)))
                written += 1
            }
            if written == 0 {
                Console.warning("no frame matched --frames/--every; nothing written")
                throw ExitCode(ToolExit.dataErrors)
            }
            print("wrote \(written) PNG frames to \(output)")
        } else if ImageWriter.supportedExtensions.contains(out.pathExtension.lowercased()) {
            // An image out of a clip or still: its first frame, drawn over.
            guard let f = try reader.nextFrame() else { throw RuntimeFailure("\(clip!) has no frame to draw", code: ToolExit.dataErrors) }
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
        var bands: [Timeline.Band] = []
        if let annotations {
            let set = AnnotationSource.load(annotationFile: URL(fileURLWithPath: annotations))
            if let error = set.errors.first { throw RuntimeFailure(error.description, code: ToolExit.dataErrors) }
            let segments = try Self.segments(of: file, in: set.segments)
            bands = segments.map { Timeline.Band(label: $0.label, colorIndex: set.classes.firstIndex(of: $0.label) ?? 0, start: $0.start, end: $0.end) }
            if segments.isEmpty {
                Console.warning("no segment of \(annotations) is for \(file.source.path)")
            }
        }
        try ImageWriter.write(Timeline.plot(file, bands: bands).frame(), to: URL(fileURLWithPath: output))
        print("wrote \(output)")
        // The plot ends where the keypoints do: a damaged clip's tail is not in it.
        if let note = file.incompleteNote {
            Console.warning("\(path): \(note): the timeline covers only the frames before")
            throw ExitCode(ToolExit.someInputsFailed)
        }
    }

    /// The segments of the clip a keypoint file was made from, matched by path: the annotation's video
    /// path equals the file's source path, or ends with it (keypoints extracted from a folder name the
    /// clip relative to it). Never by bare file name; two clips that both match are an error naming them.
    static func segments(of file: KeypointFile, in segments: [Segment]) throws -> [Segment] {
        let source = file.source.path
        let matching = segments.filter { s in
            PathKey(s.videoPath) == PathKey(source) || s.video.standardizedFileURL.path.utf8.reversed().starts(with: ("/" + source).utf8.reversed())
        }
        let clips = Set(matching.map { PathKey($0.video.standardizedFileURL.path) })
        if clips.count > 1 {
            throw ValidationError("\(source): segments of \(clips.count) clips match this keypoint file (\(clips.sorted().map(\.path).joined(separator: ", "))); give an annotation file with one of them")
        }
        return matching
    }
}
