import Foundation
import XCTest

/// What a test needs from the machine that `make setup` installs (the models, `.venv`'s packages, FFmpeg's
/// command, Chromium, the shared corpus beside the checkout...). Without it the test is skipped with the
/// reason printed, so a contributor without the corpus still runs the rest; under `CI=true`, where every
/// prerequisite is installed and the corpus is present, a missing one fails the test instead, so a check
/// cannot pass without running.
///
/// What the machine itself decides (the CPU's instruction sets, the architecture, root, a kernel that
/// allows namespaces) is not a prerequisite: such tests throw `XCTSkip` as before.
public enum Prerequisite {
    /// Whether missing prerequisites fail (`CI=true`, as `.ci/run` sets it) instead of skipping.
    public static var required: Bool {
        ["true", "1", "yes"].contains(ProcessInfo.processInfo.environment["CI"]?.lowercased() ?? "")
    }

    /// The error a test throws when `reason` (what is missing, and how to install it) stops it: a skip, or
    /// under `CI=true` a failure naming it.
    public static func missing(_ reason: String) -> Error {
        return required ? Missing(reason: reason) : XCTSkip(reason)
    }

    /// A prerequisite that CI must have and does not.
    public struct Missing: Error, CustomStringConvertible {
        public var reason: String
        public var description: String { "a prerequisite is missing under CI=true (make setup installs it): \(reason)" }
    }
}

/// `root`/Models when the hand models are there (`make setup` puts them), else the prerequisite missing.
public func handModelsFolder(root: URL) throws -> URL {
    let models = root.appendingPathComponent("Models")
    guard FileManager.default.fileExists(atPath: models.appendingPathComponent("hand_landmark_full.tflite").path) else {
        print("SKIP: models absent in \(models.path); run `make setup`")
        throw Prerequisite.missing("models absent")
    }
    return models
}
