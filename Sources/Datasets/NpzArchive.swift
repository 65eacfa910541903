import Foundation
import ZIPFoundation

/// NumPy `.npz`: a zip of `.npy` members, built with ZIPFoundation (stored, no compression, fixed
/// dates so equal inputs give equal bytes).
enum NpzArchive {
    static func make(_ members: [(String, Data)]) throws -> Data {
        let archive = try Archive(accessMode: .create)
        let date = Date(timeIntervalSince1970: 315_532_800)  // 1980-01-01, zip's epoch
        for (name, data) in members {
            try archive.addEntry(with: name, type: .file, uncompressedSize: Int64(data.count), modificationDate: date,
                                 compressionMethod: .none) { position, size in
                data.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        guard let out = archive.data else { throw DatasetError.unwritable(path: "npz", reason: "archive has no data") }
        return out
    }
}
