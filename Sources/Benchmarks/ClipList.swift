import Foundation
import VideoIO

/// The clips a bench command measures: the playable files among its inputs, stills left out.
enum ClipList {
    /// The clips under `inputs` (folders searched to any depth when `recursive`), or an error when there is none.
    static func collect(_ inputs: [String], recursive: Bool) throws(BenchmarkError) -> [InputFiles.Item] {
        let clips = try attempt(BenchmarkError.inputs) { try InputFiles.collect(inputs, recursive: recursive) }.items
            .filter { !InputFiles.isStillImage($0.url) }
        guard !clips.isEmpty else { throw .noClips(inputs: inputs) }
        return clips
    }
}
