import FileSystem
import Foundation
import Keypoints
import ZIPFoundation

/// NumPy `.npz`: a zip of `.npy` members, built with ZIPFoundation (stored, no compression, fixed
/// dates so equal inputs give equal bytes).
public enum NpzArchive {
    static let date = Date(timeIntervalSince1970: 315_532_800)  // 1980-01-01, zip's epoch

    /// An archive of whole members, in memory.
    public static func make(_ members: [(String, Data)]) throws -> Data {
        let archive = try Archive(accessMode: .create)
        for (name, data) in members {
            try archive.addEntry(with: name, type: .file, uncompressedSize: Int64(data.count), modificationDate: date,
                                 compressionMethod: .none) { position, size in
                data.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        guard let out = archive.data else { throw KeypointError.unwritable(path: "npz", reason: "archive has no data") }
        return out
    }

    /// A member written in order, chunk by chunk: `size` bytes that `next(n)` hands out up to `n` at a
    /// time, so a member larger than memory can be stored.
    public struct StreamedMember {
        public var name: String
        public var size: Int
        public var next: (Int) throws -> Data
        public init(name: String, size: Int, next: @escaping (Int) throws -> Data) {
            self.name = name; self.size = size; self.next = next
        }
    }

    /// Writes an archive of streamed members to `url` (a new file).
    public static func write(_ members: [StreamedMember], to url: URL) throws {
        let archive = try Archive(url: url, accessMode: .create)
        for member in members {
            var written = 0
            try archive.addEntry(with: member.name, type: .file, uncompressedSize: Int64(member.size), modificationDate: date,
                                 compressionMethod: .none, bufferSize: 1 << 16) { position, size in
                precondition(Int(position) == written, "zip members are read in order")
                let chunk = try member.next(size)
                precondition(chunk.count == size, "a member gave \(chunk.count) bytes where \(size) were asked")
                written += size
                return chunk
            }
        }
    }
}

extension NpzArchive {
    /// Bytes of memory reading a member takes for each byte it unpacks to, at most: the bytes, `Npy.read`'s copy
    /// of them, and a float for each value of a one-byte type.
    public static let memoryPerByte: UInt64 = 6

    /// The members of an `.npz` file, by name (without `.npy`). The archive is read only when its members'
    /// declared sizes, `memoryPerByte` times over, fit in `memory` (the process's, `CGroup.memoryLimit`), and
    /// no member is unpacked past its declared size: a few megabytes of deflated zeros can declare, or unpack
    /// to, more than the machine holds, where the bytes on disk say nothing of it.
    public static func read(_ url: URL, memory: UInt64 = CGroup.memoryLimit) throws -> [String: Npy.Loaded] {
        // Only a regular file, the one checked: ZIPFoundation would wait on a FIFO for ever.
        let archive: Archive
        do {
            archive = try RegularFile.pinned(url.path) { name in try Archive(url: URL(fileURLWithPath: name), accessMode: .read) }
        } catch let refusal as RegularFile.Refusal {
            throw KeypointError.unreadable(path: url.path, reason: refusal.reason)
        } catch {
            throw KeypointError.unreadable(path: url.path, reason: "not a zip archive (\(describe(error)))")
        }
        let members = archive.filter { $0.type == .file && $0.path.hasSuffix(".npy") }
        var total: UInt64 = 0
        for entry in members {
            let (sum, overflow) = total.addingReportingOverflow(entry.uncompressedSize)
            guard !overflow, sum <= memory / memoryPerByte else {
                throw KeypointError.unreadable(path: url.path, reason: "its members unpack to more than \(memory / memoryPerByte) bytes, and reading "
                                               + "them would take more than the \(memory) bytes of memory this process may use")
            }
            total = sum
        }
        var out: [String: Npy.Loaded] = [:]
        for entry in members {
            let declared = entry.uncompressedSize
            var data = Data()
            do {
                _ = try archive.extract(entry, skipCRC32: false) { chunk in
                    guard UInt64(data.count) + UInt64(chunk.count) <= declared else {
                        throw KeypointError.invalid(path: url.path, reason: "member \(entry.path) unpacks to more than the \(declared) bytes its entry declares")
                    }
                    data.append(chunk)
                }
            } catch let error as KeypointError {
                throw error
            } catch {
                throw KeypointError.invalid(path: url.path, reason: "member \(entry.path) cannot be unpacked (\(describe(error)))")
            }
            guard UInt64(data.count) == declared else {
                throw KeypointError.invalid(path: url.path, reason: "member \(entry.path) unpacks to \(data.count) bytes, not the \(declared) its entry declares")
            }
            out[String(entry.path.dropLast(4))] = try Npy.read(data, name: "\(url.path):\(entry.path)")
        }
        return out
    }
}
