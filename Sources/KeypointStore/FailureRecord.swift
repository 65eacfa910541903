import FileSystem
import Foundation

/// Why an input has no keypoints: written beside where its keypoint file would be
/// (`OUT/<relative path>.failed.json`) when extraction fails or crashes, removed when a later run
/// succeeds, so `handpose status` can name the reason from another machine or a later day.
public struct FailureRecord: Codable, Equatable, Sendable {
    public static let schemaName = "handpose/failure@1"
    public var schema = schemaName
    /// The input's path relative to the input folder given.
    public var input: String
    public var reason: String
    /// When it failed (ISO 8601) and on which machine.
    public var time: String
    public var host: String

    public init(input: String, reason: String, time: Date = Date(), host: String = ProcessInfo.processInfo.hostName) {
        self.input = input
        self.reason = reason
        self.time = ISO8601DateFormatter().string(from: time)
        self.host = host
    }

    /// Writes the record atomically; a record that cannot be written is not an error of its own: the
    /// run's summary already names the failure.
    public func write(in folder: KeypointFolder) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self) else { return }
        try? AtomicFile.write(data, to: folder.failureURL(for: input))
    }

    public static func load(for relative: String, in folder: KeypointFolder) -> FailureRecord? {
        guard let data = try? RegularFile.read(folder.failureURL(for: relative).path) else { return nil }
        return try? JSONDecoder().decode(FailureRecord.self, from: data)
    }

    public static func remove(for relative: String, in folder: KeypointFolder) {
        try? FileManager.default.removeItem(at: folder.failureURL(for: relative))
    }
}
