import FileSystem
import Foundation

extension StagedFolder {
    /// An export's folder: an existing, non-empty one is replaced (with --overwrite) only if it holds a
    /// `dataset.json` written by handpose, so it is an earlier export. Refusals are `DatasetError.unwritable`,
    /// as every other failure to write an export.
    public static func export(_ destination: URL, replace: Bool) throws -> StagedFolder {
        do {
            return try StagedFolder(destination, replace: replace, whatIsReplaced: "an earlier export",
                                    notReplaceable: "holds no dataset.json written by handpose, so it is not an earlier export") { folder in
                struct Stamp: Decodable { struct Tool: Decodable { var name: String }; var tool: Tool }
                let manifest = (try? RegularFile.read(folder.appendingPathComponent("dataset.json").path))
                    .flatMap { try? JSONDecoder().decode(Stamp.self, from: $0) }
                return manifest?.tool.name == "handpose"
            }
        } catch let r as Refusal {
            throw DatasetError.unwritable(path: r.path, reason: r.reason)
        }
    }

    /// `commit`, its refusal as `DatasetError.unwritable`.
    public func commitExport() throws {
        do { try commit() } catch let r as Refusal { throw DatasetError.unwritable(path: r.path, reason: r.reason) }
    }
}
