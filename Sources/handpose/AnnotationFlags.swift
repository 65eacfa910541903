import Annotations
import ArgumentParser
import Foundation

/// The flags ELAN and Label Studio files need (Create ML files ignore them), the same on every
/// subcommand that reads annotations.
struct AnnotationFlags: ParsableArguments {
    @Option(help: ArgumentHelp("ELAN: a tier holding the labels, by name or glob (repeatable). Default: the only tier with annotations.",
                               valueName: "name"))
    var tier: [String] = []

    @Option(help: ArgumentHelp("Labels to classes: old=new pairs, or a file of such lines; old= drops the label (repeatable).",
                               valueName: "old=new|file"), completion: .file())
    var labelMap: [String] = []

    @Option(help: "ELAN and Label Studio: where a clip is looked for by its file name when the file's own paths do not lead to it (sub-folders searched; default: the annotation root).",
            completion: .directory)
    var mediaRoot: String?

    @Option(help: "Label Studio: the project's labeling config (Settings > Labeling Interface > Code); its <Video frameRate> turns frames into seconds.",
            completion: .file(extensions: ["xml", "txt", "html"]))
    var labelConfig: String?

    @Option(help: "Label Studio: the frame rate the project declared, when no --label-config says it.")
    var frameRate: Double?

    func validate() throws {
        try checkFrameRate(frameRate, flag: "--frame-rate")
        do { _ = try AnnotationOptions.labelMap(labelMap) } catch { throw ValidationError("\(error)") }
        if let labelConfig, !FileManager.default.fileExists(atPath: labelConfig) { throw ValidationError("--label-config \(labelConfig): no such file") }
    }

    var options: AnnotationOptions {
        var o = AnnotationOptions()
        o.tiers = tier
        o.labelMap = (try? AnnotationOptions.labelMap(labelMap)) ?? [:]
        o.mediaRoot = mediaRoot.map { URL(fileURLWithPath: $0) }
        o.labelConfig = labelConfig.map { URL(fileURLWithPath: $0) }
        o.frameRate = frameRate
        return o
    }
}
