import ArgumentParser
import Benchmarks
import Crypto
import Foundation
import Inference
import VideoIO

/// `handpose probe`: stream facts of clips and images.
struct Probe: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show each file's video stream: size as displayed, rotation, frame rate, duration, frame count, codec, and which decoder reads it.",
        discussion: "A file that cannot be read is reported on its own line; the others are still probed. Exit code 1 when any failed."
    )

    @Argument(help: "Clips or images to probe.", completion: .file())
    var files: [String] = []

    @Flag(help: ArgumentHelp("Show the CPU instead: vendor, brand, family and model, microarchitecture, caches, instruction-set levels, the kernels and micro-kernels extraction runs on it, and its measured multiply-add peak.",
                             discussion: "From CPUID, as the engine reads it at start (no file is read). HANDPOSE_MAX_ISA caps the kernels."))
    var cpu = false

    @Flag(help: "Print a JSON array instead of a table.")
    var json = false

    @Flag(help: ArgumentHelp("Decode every frame and print one line a frame: the file, the frame's index and time, and the SHA-256 of its RGB pixels as handpose reads them (as ffmpeg's framemd5 does).",
                             discussion: "Two builds or machines decode a file alike when these lines are equal."))
    var frames = false

    func validate() throws {
        if !cpu && files.isEmpty { throw ValidationError("Name clips or images to probe, or give --cpu.") }
        if cpu && (!files.isEmpty || frames) { throw ValidationError("--cpu takes no files and no --frames.") }
    }

    func run() throws {
        if cpu { return try printCPU() }
        if frames { return try printFrameDigests() }
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
            print(try JSONText.pretty(infos.map(ProbeRow.read) + failures.map { ProbeRow.failed(path: $0.0, error: $0.1) }))
        } else {
            let header = ["file", "size", "rot", "fps avg", "fps nominal", "duration", "frames", "codec", "pixels", "decoder"]
            var rows = infos.map { i in
                [i.path, "\(i.width)x\(i.height)", "\(i.rotation)" + (i.mirrored ? " mirrored" : ""),
                 String(format: "%.3f", i.averageFrameRate), String(format: "%.3f", i.nominalFrameRate),
                 String(format: "%.3fs", i.duration), (i.frameCountIsEstimate ? "~" : "") + "\(i.frameCount)",
                 i.codec + (i.isStillImage ? " (image)" : ""), i.pixelFormat,
                 i.decoder + (i.exifOrientation.map { $0 == 1 ? "" : " (EXIF orientation \($0) applied)" } ?? "")]
            }
            rows.insert(header, at: 0)
            print(Table.render(rows))
            for (_, message) in failures { print("error: \(message)") }
            for i in infos { if let why = i.cutShort { print("error: \(i.path): truncated: \(why)") } }
        }
        if !failures.isEmpty || infos.contains(where: { $0.cutShort != nil }) { throw ExitCode(ToolExit.someInputsFailed) }
    }
}

extension Probe {
    /// `--frames`: `path<TAB>index<TAB>time<TAB>WxH<TAB>sha256` for every decoded frame, then `path<TAB>frames<TAB>N`.
    func printFrameDigests() throws {
        var failed = false
        for file in files {
            do {
                let reader = try VideoReader(url: URL(fileURLWithPath: file))
                var count = 0
                while let frame = try reader.nextFrame() {
                    let digest = SHA256.hash(data: frame.pixels).map { String(format: "%02x", $0) }.joined()
                    print("\(file)\t\(frame.index)\t\(String(format: "%.6f", frame.time))\t\(frame.width)x\(frame.height)\t\(digest)")
                    count += 1
                }
                print("\(file)\tframes\t\(count)")
            } catch let error as VideoError {
                print("error: \(error.description)")
                failed = true
            }
        }
        if failed { throw ExitCode(ToolExit.someInputsFailed) }
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

/// One line of `probe --json`: a file's stream facts, or why it could not be read.
enum ProbeRow: Encodable {
    case read(VideoInfo)
    case failed(path: String, error: String)

    enum Key: String, CodingKey {
        case path, ok, container, codec, pixelFormat, width, height, rotation, mirrored, averageFrameRate, nominalFrameRate, duration, frames,
             framesEstimated, still, framesPastEndOfFile, cutShort, decoder, exifOrientation, error
    }

    func encode(to encoder: Encoder) throws {
        var o = encoder.container(keyedBy: Key.self)
        switch self {
        case .failed(let path, let error):
            try o.encode(path, forKey: .path); try o.encode(false, forKey: .ok); try o.encode(error, forKey: .error)
        case .read(let i):
            try o.encode(i.path, forKey: .path); try o.encode(i.cutShort == nil, forKey: .ok)
            try o.encode(i.container, forKey: .container); try o.encode(i.codec, forKey: .codec); try o.encode(i.pixelFormat, forKey: .pixelFormat)
            try o.encode(i.width, forKey: .width); try o.encode(i.height, forKey: .height); try o.encode(i.rotation, forKey: .rotation)
            try o.encode(i.mirrored, forKey: .mirrored)
            try o.encode(i.averageFrameRate, forKey: .averageFrameRate); try o.encode(i.nominalFrameRate, forKey: .nominalFrameRate)
            try o.encode(i.duration, forKey: .duration); try o.encode(i.frameCount, forKey: .frames)
            try o.encode(i.frameCountIsEstimate, forKey: .framesEstimated); try o.encode(i.isStillImage, forKey: .still)
            try o.encode(i.framesPastEndOfFile, forKey: .framesPastEndOfFile); try o.encode(i.decoder, forKey: .decoder)
            try o.encode(i.exifOrientation, forKey: .exifOrientation)   // null when the file has none
            try o.encode(i.cutShort, forKey: .cutShort)   // null when nothing says the file was cut
        }
    }
}

extension Probe {
    /// `--cpu`: the CPU, as a table of facts or (`--json`) one object.
    func printCPU() throws {
        let host = CPUDescription.host
        let isa: ISA
        do { isa = try KernelSelection.best() } catch { throw RuntimeFailure("\(error)") }
        let kernelSet: any KernelSet
        do { kernelSet = try KernelSelection.kernels(isa) } catch { throw RuntimeFailure("\(error)") }
        let kernels = kernelSet.microKernels.map(\.name)
        let tiling = kernelSet.gemmTiling
        let peak = try Bench.measuring { () throws(BenchmarkError) in try KernelTiming().peakGflops(isa) }
        let report = CPUReport(vendor: host.vendor, brand: host.brand, family: host.family, model: host.model, stepping: host.stepping,
                               microarchitecture: host.microarchitecture, l1dKib: host.l1dKiB, l2Kib: host.l2KiB, l3Kib: host.l3KiB,
                               x86_64V3: host.x86_64v3, x86_64V4: host.x86_64v4, kernels: isa.rawValue, microKernels: kernels,
                               gemmTiling: tiling?.rawValue,
                               peakGflops: (peak * 10).rounded() / 10)
        if json {
            print(try JSONText.pretty(report))
            return
        }
        print(Table.render([
            ["vendor", host.vendor], ["brand", host.brand],
            ["family / model / stepping", "\(host.family) / \(host.model) / \(host.stepping) (0x\(String(host.family, radix: 16)) / 0x\(String(host.model, radix: 16)))"],
            ["microarchitecture", host.microarchitecture ?? "not in handpose's table"],
            ["caches", "L1d \(host.l1dKiB) KiB, L2 \(host.l2KiB) KiB, L3 \(host.l3KiB) KiB"],
            ["x86-64-v3 (AVX2, FMA)", host.x86_64v3 ? "yes" : "no"], ["x86-64-v4 (AVX-512)", host.x86_64v4 ? "yes" : "no"],
            ["kernels", isa.rawValue + (ProcessInfo.processInfo.environment[KernelSelection.capVariable].map { " (\(KernelSelection.capVariable)=\($0))" } ?? "")],
            ["micro-kernels", kernels.joined(separator: ", ")],
            ["matrix-product tiles", tiling.map { tilingLine($0) } ?? "6x16 (one tiling in \(isa.rawValue))"],
            ["multiply-add peak, one core", String(format: "%.1f GFLOP/s (measured)", peak)],
        ]))
    }
}

/// The tiling and why: set by the environment or suited to the CPU.
func tilingLine(_ tiling: GemmTiling) -> String {
    if let set = ProcessInfo.processInfo.environment[KernelSelection.tilingVariable], !set.isEmpty {
        return "\(tiling.rawValue) (\(KernelSelection.tilingVariable)=\(set))"
    }
    return "\(tiling.rawValue) (suited to \(CPUDescription.host.microarchitecture ?? "this CPU"))"
}

/// `probe --cpu --json`.
struct CPUReport: Encodable {
    var vendor: String
    var brand: String
    var family: Int, model: Int, stepping: Int
    var microarchitecture: String?
    var l1dKib: Int, l2Kib: Int, l3Kib: Int
    var x86_64V3: Bool, x86_64V4: Bool
    var kernels: String
    var microKernels: [String]
    /// The AVX-512 matrix-product tiling (`12x16` or `6x32`); absent for the other kernels.
    var gemmTiling: String?
    var peakGflops: Double
}
