import Foundation
import VideoIO

/// Makes test clips whose frames carry their own index, drawn as 10 black/white blocks
/// across the top (bit 0 at the left), so order and seek accuracy can be checked pixel-wise.
enum ClipFactory {
    static let blocks = 10
    static let block = 8

    /// Exit status and standard output + error of a program.
    static func run(_ tool: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = arguments
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = pipe
        try p.run()
        let out = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: out, as: UTF8.self))
    }

    static func temporaryDirectory() -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("handpose-tests-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    static func frame(index: Int, width: Int, height: Int) -> VideoFrame {
        var f = VideoFrame(width: width, height: height)
        for y in 0..<height {
            for x in 0..<width {
                let o = (y * width + x) * 3
                f.pixels[o] = UInt8((x * 255) / max(width - 1, 1)) / 2 + 40
                f.pixels[o + 1] = 60
                f.pixels[o + 2] = UInt8((y * 255) / max(height - 1, 1)) / 2 + 40
            }
        }
        for bit in 0..<blocks {
            let on = (index >> bit) & 1 == 1
            for y in 0..<block where y < height {
                for x in (bit * block)..<((bit + 1) * block) where x < width {
                    let o = (y * width + x) * 3
                    f.pixels[o] = on ? 250 : 5; f.pixels[o + 1] = on ? 250 : 5; f.pixels[o + 2] = on ? 250 : 5
                }
            }
        }
        f.index = index
        return f
    }

    /// The index drawn into a decoded frame.
    static func drawnIndex(_ f: VideoFrame) -> Int {
        var value = 0
        for bit in 0..<blocks {
            let (r, g, b) = f[bit * block + block / 2, block / 2]
            if (Int(r) + Int(g) + Int(b)) / 3 > 128 { value |= 1 << bit }
        }
        return value
    }

    @discardableResult
    static func write(_ url: URL, frames: Int, width: Int = 96, height: Int = 64, rate: Rational = Rational(25, 1),
                      times: [Double]? = nil, rotation: Int = 0) throws -> URL {
        let writer = try VideoWriter(url: url, width: width, height: height, frameRate: rate, rotation: rotation)
        for i in 0..<frames {
            try writer.append(frame(index: i, width: width, height: height), time: times?[i])
        }
        try writer.finish()
        return url
    }

    static func readAll(_ url: URL) throws -> [VideoFrame] {
        let reader = try VideoReader(url: url)
        var out: [VideoFrame] = []
        while let f = try reader.nextFrame() { out.append(f) }
        return out
    }
}
