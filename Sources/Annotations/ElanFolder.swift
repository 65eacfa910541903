import FileSystem
import Foundation
import VideoIO

/// Segments written as ELAN files: one `.eaf` for one clip, or a folder of one `.eaf` per clip named by the
/// clip's path, built beside its place and moved there whole (`StagedFolder`), so a replaced folder keeps no
/// `.eaf` of an earlier run and a failure part-way leaves the old one as it was. Segments without an end
/// end with their clip.
public enum ElanFolder {
    /// Why the segments cannot be written.
    public enum WriteError: Error, CustomStringConvertible, Equatable {
        /// An `.eaf` describes one clip; the segments name `count`.
        case severalClips(path: String, count: Int)
        /// A segment has no end, and its clip's duration cannot be read.
        case noDuration(clip: String, reason: String)

        public var description: String {
            switch self {
            case .severalClips(let p, let n):
                return "\(p): an ELAN file describes one clip, and these segments name \(n); give a folder (one .eaf per clip)"
            case .noDuration(let clip, let r):
                return "\(clip): cannot open it for its duration (a segment has no end): \(r)"
            }
        }
    }

    /// Writes `segments` at `out`: the file itself when it is named `.eaf`, else a folder, which replaces an
    /// earlier folder of `.eaf` files only with `overwrite`.
    public static func write(_ segments: [Segment], to out: URL, overwrite: Bool) throws {
        if out.pathExtension.lowercased() == "eaf" {
            try writeFiles(segments, into: out, single: true)
            return
        }
        let staged = try StagedFolder(out, replace: overwrite, whatIsReplaced: "an earlier folder of ELAN files",
                                      notReplaceable: "holds files other than .eaf, so it is not a folder of ELAN files") { folder in
            let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey])
            while let url = files?.nextObject() as? URL {
                let regular = (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) ?? false
                // Hidden files (a file manager's .DS_Store) are not what makes a folder someone's other work.
                if regular && !url.lastPathComponent.hasPrefix(".") && url.pathExtension.lowercased() != "eaf" { return false }
            }
            return true
        }
        do { try writeFiles(segments, into: staged.staging, single: false) } catch { staged.discard(); throw error }
        try staged.commit()
    }

    /// One `.eaf` per clip under `folder` (or the file `folder` itself, for one clip), each written atomically.
    static func writeFiles(_ segments: [Segment], into folder: URL, single: Bool) throws {
        var byClip: [PathKey: [Segment]] = [:]
        for s in segments { byClip[PathKey(s.videoPath), default: []].append(s) }
        if single && byClip.count > 1 { throw WriteError.severalClips(path: folder.path, count: byClip.count) }
        for (key, list) in byClip.sorted(by: { $0.key < $1.key }) {
            let path = key.path
            var list = list
            if list.contains(where: { $0.start == nil || $0.end == nil }) {
                let duration: Double
                do { duration = try VideoReader(url: list[0].video).info.duration } catch {
                    throw WriteError.noDuration(clip: list[0].videoFile, reason: "\(error)")
                }
                for k in list.indices { list[k].start = list[k].start ?? 0; list[k].end = list[k].end ?? duration }
            }
            let eaf = single ? folder : folder.appendingPathComponent(path + ".eaf")
            try FileManager.default.createDirectory(at: eaf.deletingLastPathComponent(), withIntermediateDirectories: true)
            try AtomicFile.write(Data(ElanWriter.document(list, clip: list[0].videoFile, savedAt: eaf).utf8), to: eaf)
        }
    }
}
