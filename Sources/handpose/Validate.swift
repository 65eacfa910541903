import Annotations
import ArgumentParser
import FileSystem
import Foundation

/// `handpose validate`: check annotations against the clips on disk before a long run.
struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check annotations (Create ML CSV/JSON, ELAN, Label Studio, or labelled folders) against the clips and images on disk.",
        discussion: """
        Reports every problem in one run as FILE:LINE[:FIELD]: error|warning: message, with a hint, then a summary. \
        Every clip named is opened and every image decoded; --deep decodes every frame of every clip. \
        Past --max-diagnostics of one kind, problems are counted, not printed; the totals count them all. \
        Exit code 0 when clean, 2 with errors, 1 with warnings only when --strict.
        """
    )

    @Argument(help: "An annotation file (Create ML CSV or JSON, ELAN .eaf, Label Studio JSON export; told apart by content) or a folder of labelled folders / labelled files.", completion: .file())
    var annotations: String

    @OptionGroup(title: "ELAN and Label Studio") var formatFlags: AnnotationFlags

    @Option(help: "Folder the video paths are relative to (Create ML's directoryWithVideosAndAnnotation). Default: the annotation file's folder.", completion: .directory)
    var root: String?

    @Flag(help: "Labelled folders hold images (hand poses), not clips.")
    var poses = false

    @Option(help: "Warn about segments shorter than this many frames (with --fps).")
    var window: Int?

    @Option(help: "Frame rate the window is counted at.")
    var fps: Double = 30

    @Option(help: "Name of the video column.") var videoColumn = "video"
    @Option(help: "Name of the label column.") var labelColumn = "label"
    @Option(help: "Name of the start column.") var startColumn = "start"
    @Option(help: "Name of the end column.") var endColumn = "end"

    @Flag(help: "Exit 1 when there are warnings.")
    var strict = false

    @Option(help: "Print at most this many diagnostics of each kind, then how many more there are (0: all). Totals count every one.")
    var maxDiagnostics = 50

    @Flag(help: "Decode every frame of every clip (slow): finds clips cut short or damaged after their first frames.")
    var deep = false

    @Flag(help: "Print JSON: diagnostics and summary.")
    var json = false

    func validate() throws {
        // A window is counted in frames of a clip: past the frames any clip holds it is no window.
        if let window, !(1...Int(InputRange.frames.upperBound)).contains(window) {
            throw ValidationError("--window must be from 1 to \(Int(InputRange.frames.upperBound)) frames")
        }
        try checkFrameRate(fps, flag: "--fps")
        guard maxDiagnostics >= 0 else { throw ValidationError("--max-diagnostics must be 0 (all) or more") }
    }

    func run() throws {
        var columns = AnnotationColumns()
        columns.video = videoColumn; columns.label = labelColumn; columns.start = startColumn; columns.end = endColumn
        guard var set = AnnotationSource.load(fileOrFolder: URL(fileURLWithPath: annotations), poses: poses, root: root.map { URL(fileURLWithPath: $0) },
                                              columns: columns, options: formatFlags.options, maxDiagnosticsPerKind: maxDiagnostics) else {
            throw RuntimeFailure("\(annotations): no such file or folder")
        }
        var validator = Validator(window: window, fps: fps)
        validator.openImages = true
        validator.deep = deep
        let facts = validator.check(&set)
        let diagnostics = set.diagnostics.sorted { ($0.file, $0.line ?? 0) < ($1.file, $1.line ?? 0) }
        let omitted = set.log.omitted

        let (totals, clips) = set.classTotals(durations: facts.mapValues(\.duration))
        let classes = set.classes

        if json {
            struct Row: Encodable { var severity: String; var kind: String; var file: String; var message: String; var line: Int?; var column: Int?; var hint: String? }
            struct Omitted: Encodable { var kind: String; var severity: String; var count: Int }
            struct Summary: Encodable { var clips: Int; var segments: Int; var images: Int; var classes: [ClassTotals]; var errors: Int; var warnings: Int }
            struct Out: Encodable { var diagnostics: [Row]; var omitted: [Omitted]; var summary: Summary }
            let out = Out(diagnostics: diagnostics.map { Row(severity: $0.severity.rawValue, kind: $0.kind.name, file: $0.file, message: $0.message,
                                                              line: $0.line, column: $0.column, hint: $0.hint) },
                          omitted: omitted.map { Omitted(kind: $0.kind.name, severity: $0.severity.rawValue, count: $0.count) },
                          summary: Summary(clips: clips, segments: set.segments.count, images: set.poses.count, classes: totals,
                                           errors: set.errorCount, warnings: set.warningCount))
            print(try JSONText.pretty(out))
        } else {
            for d in diagnostics { print(d) }
            for o in omitted { print(o.description) }
            if !diagnostics.isEmpty { print("") }
            print(set.poses.isEmpty ? "\(clips) clips, \(set.segments.count) segments, \(classes.count) classes"
                                    : "\(set.poses.count) images, \(classes.count) classes")
            var table = [["class", "examples", set.poses.isEmpty ? "seconds" : ""]]
            let shownClasses = maxDiagnostics == 0 ? classes.count : 200
            for c in totals.prefix(shownClasses) {
                // A label is a value from the file: shown short, like every value in a message.
                table.append([Diagnostic.elided(c.label), "\(c.count)", set.poses.isEmpty ? String(format: "%.1f", c.seconds) : ""])
            }
            print(Table.render(table).split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
            if classes.count > shownClasses { print("  ... and \(Diagnostic.grouped(classes.count - shownClasses)) more classes") }
            print("\(set.errorCount) errors, \(set.warningCount) warnings")
        }
        if set.errorCount > 0 { throw ExitCode(ToolExit.dataErrors) }
        if strict && set.warningCount > 0 { throw ExitCode(ToolExit.someInputsFailed) }
    }
}
