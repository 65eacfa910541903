import Foundation
import TestSupport
import XCTest

/// Runs the built `handpose` beside the tests, as a user would.
enum ToolRunner {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL

    /// Exit code and standard output + error of `handpose ARGUMENTS`, run from the checkout.
    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> (Int32, String) {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("handpose")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            print("SKIP: handpose binary not found beside the tests")
            throw Prerequisite.missing("handpose binary not found beside the tests")
        }
        return try process(binary.path, arguments, environment: environment)
    }

    static let cache = FileManager.default.temporaryDirectory.appendingPathComponent("handpose-tests-cache-\(getpid())")

    /// Exit code and standard output + error of any program, run from the checkout.
    static func process(_ tool: String, _ arguments: [String], environment: [String: String] = [:]) throws -> (Int32, String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = arguments
        p.currentDirectoryURL = root
        // Shared weights go to a folder of the test run's, not the user's cache, unless a test names one.
        p.environment = ProcessInfo.processInfo.environment.merging(["HANDPOSE_CACHE": cache.path]) { $1 }.merging(environment) { $1 }
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = pipe
        try p.run()
        let out = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: out, as: UTF8.self))
    }

    /// The models folder, or a skip saying how to get it.
    static func models() throws -> String {
        let m = root.appendingPathComponent("Models")
        guard FileManager.default.fileExists(atPath: m.appendingPathComponent("hand_landmark_full.tflite").path) else {
            print("SKIP: models absent; run `make setup`")
            throw Prerequisite.missing("models absent")
        }
        return m.path
    }

    /// Every regular file under `folder` by relative path, except what `status` and sharded runs add
    /// (index.jsonl, .handpose-shards).
    static func files(in folder: URL) throws -> [String: Data] {
        var out: [String: Data] = [:]
        let base = folder.standardizedFileURL.path + "/"
        for case let url as URL in FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)! {
            let path = url.standardizedFileURL.path
            guard !path.hasSuffix("index.jsonl"), !path.hasSuffix(".handpose-shards"), (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true else { continue }
            out[String(path.dropFirst(base.count))] = try Data(contentsOf: url)
        }
        return out
    }

    /// Exit code and output of a command run with its output in a file, reaped with waitpid: for commands
    /// that leave processes behind (Slurm's daemons, a detached container's monitor), which must not hold
    /// a pipe the test reads to its end; Foundation's Process was also seen to miss such a command's exit.
    static func spawn(_ arguments: [String], environment: [String: String] = [:]) throws -> (Int32, String) {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("slurm-shell-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: log) }
        let pid = try launch(["/usr/bin/env"] + arguments, log: log, environment: environment)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return (code, (try? String(contentsOf: log, encoding: .utf8)) ?? "")
    }

    /// Starts `argv` (its first element the executable's path) with standard input from /dev/null and
    /// standard output and error into `log`; its process id.
    static func launch(_ argv: [String], log: URL, environment: [String: String] = [:]) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let env = ProcessInfo.processInfo.environment.merging(environment) { $1 }.map { "\($0.key)=\($0.value)" }
        let cArgs = argv.map { strdup($0) } + [nil]
        let envp = env.map { strdup($0) } + [nil]
        defer { for p in cArgs + envp { free(p) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, argv[0], &actions, nil, cArgs, envp)
        guard rc == 0 else { throw POSIXError(POSIXErrorCode(rawValue: rc) ?? .EINVAL) }
        return pid
    }
}
