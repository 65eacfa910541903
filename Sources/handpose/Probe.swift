import ArgumentParser
import Foundation
import VideoIO

/// `handpose probe`: stream facts of clips and images.
struct Probe: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show each file's video stream: size as displayed, rotation, frame rate, duration, frame count, codec, and which decoder reads it.",
        discussion: "A file that cannot be read is reported on its own line; the others are still probed. Exit code 1 when any failed."
    )

    @Argument(help: "Clips or images to probe.", completion: .file())
    var files: [String]

    @Flag(help: "Print a JSON array instead of a table.")
    var json = false

    func run() throws {
        var infos: [VideoInfo] = []
        var failures: [(String, String)] = []
        for file in files {
            do {
                let reader = try VideoReader(url: URL(fileURLWithPath: file))
                // A still's header says little: decode it (cheap) so random bytes named .jpg are caught here.
                if reader.info.isStillImage, try reader.nextFrame() == nil {
                    throw VideoError.corrupt(path: file, frame: 0, time: nil, ffmpeg: "no image in the file")
                }
                infos.append(reader.info)
            } catch let error as VideoError {
                failures.append((file, error.description))
            }
        }
        if json {
            var rows: [[String: Any]] = infos.map { i in
                ["path": i.path, "ok": i.framesPastEndOfFile == 0, "container": i.container, "codec": i.codec, "pixelFormat": i.pixelFormat,
                 "width": i.width, "height": i.height, "rotation": i.rotation,
                 "averageFrameRate": i.averageFrameRate, "nominalFrameRate": i.nominalFrameRate,
                 "duration": i.duration, "frames": i.frameCount, "framesEstimated": i.frameCountIsEstimate,
                 "still": i.isStillImage, "framesPastEndOfFile": i.framesPastEndOfFile, "decoder": i.decoder,
                 "exifOrientation": i.exifOrientation.map { $0 as Any } ?? NSNull()]
            }
            rows += failures.map { ["path": $0.0, "ok": false, "error": $0.1] }
            let data = try JSONSerialization.data(withJSONObject: rows, options: [.prettyPrinted, .sortedKeys])
            print(String(decoding: data, as: UTF8.self))
        } else {
            let header = ["file", "size", "rot", "fps avg", "fps nominal", "duration", "frames", "codec", "pixels", "decoder"]
            var rows = infos.map { i in
                [i.path, "\(i.width)x\(i.height)", "\(i.rotation)",
                 String(format: "%.3f", i.averageFrameRate), String(format: "%.3f", i.nominalFrameRate),
                 String(format: "%.3fs", i.duration), (i.frameCountIsEstimate ? "~" : "") + "\(i.frameCount)",
                 i.codec + (i.isStillImage ? " (image)" : ""), i.pixelFormat,
                 i.decoder + (i.exifOrientation.map { $0 == 1 ? "" : " (EXIF orientation \($0) applied)" } ?? "")]
            }
            rows.insert(header, at: 0)
            print(Table.render(rows))
            for (_, message) in failures { print("error: \(message)") }
            for i in infos where i.framesPastEndOfFile > 0 {
                print("error: \(i.path): truncated: the file ends before the frame data its container indexes")
            }
        }
        if !failures.isEmpty || infos.contains(where: { $0.framesPastEndOfFile > 0 }) { throw ExitCode(ToolExit.someInputsFailed) }
    }
}

/// Plain aligned text tables for terminal output.
enum Table {
    static func render(_ rows: [[String]]) -> String {
        guard let first = rows.first else { return "" }
        var widths = [Int](repeating: 0, count: first.count)
        for row in rows { for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.count) } }
        return rows.map { row in
            row.enumerated().map { i, cell in
                i == row.count - 1 ? cell : cell.padding(toLength: widths[i], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
