import Foundation
import Keypoints
import TestSupport
import XCTest

/// What users run where there is no Swift toolchain, built and run here as they would run it:
/// `make image` loaded into podman and run as the Kubernetes Job runs it (its user, arguments,
/// environment and read-only root) and by hand over a mixed folder, stopped with SIGTERM and resumed;
/// `make dist` unpacked into a bare Debian root holding no package but minbase's, without /proc.
/// Needs root, debootstrap, buildah and podman (make setup installs them); skips, saying why, without.
final class DistributionTests: XCTestCase {
    static let root = ToolRunner.root
    static let podman = root.appendingPathComponent("scripts/podman-local.sh").path

    /// The version the built binary reports: the image's tag and the file names carry it.
    static func version() throws -> String {
        let (code, text) = try ToolRunner.run(["--version"])
        XCTAssertEqual(code, 0, text)
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func requireTools(_ tools: [String]) throws {
        guard getuid() == 0 else {
            print("SKIP: building the image and the bare root needs root (debootstrap, chroot, buildah)")
            throw XCTSkip("not root")
        }
        for tool in tools where !["/usr/bin", "/usr/sbin"].contains(where: { FileManager.default.isExecutableFile(atPath: "\($0)/\(tool)") }) {
            print("SKIP: \(tool) is absent; make setup installs it")
            throw Prerequisite.missing("\(tool) absent")
        }
    }

    /// `make TARGET`, once per test run: its output (the last line names what was written).
    /// Unsafe: XCTest runs this class's tests one after another, so one test at a time fills it.
    nonisolated(unsafe) static var made: [String: (Int32, String)] = [:]
    static func make(_ target: String) throws -> String {
        if made[target] == nil { made[target] = try ToolRunner.process("/usr/bin/make", ["--no-print-directory", target]) }
        let (code, text) = made[target]!
        XCTAssertEqual(code, 0, "make \(target): \(text)")
        guard code == 0 else { throw MakeFailed(description: "make \(target) failed") }
        return text
    }

    /// The packages of a Debian root that the self-contained binary must run without: FFmpeg's libraries,
    /// libjpeg-turbo, anything of Swift's, any -dev package.
    static func packagesHandposeMustNotNeed(in root: URL) throws -> [String] {
        let (_, packages) = try ToolRunner.process("/usr/sbin/chroot", [root.path, "dpkg-query", "-W", "-f", "${Package}\n"])
        return packages.split(separator: "\n").map(String.init).filter {
            $0.hasSuffix("-dev") || $0.hasPrefix("libav") || $0.hasPrefix("libswscale") || $0.hasPrefix("libturbojpeg") || $0.contains("swift")
        }
    }

    /// A `make` target failed: the test stops (the assertion above says why).
    struct MakeFailed: Error, CustomStringConvertible { var description: String }

    /// The image built and loaded into the checkout's podman storage, by its name.
    static func loadedImage() throws -> String {
        _ = try make("image")
        let version = try version()
        let archive = root.appendingPathComponent("out/handpose-\(version).oci.tar")
        XCTAssertTrue(FileManager.default.fileExists(atPath: archive.path), "make image names its file by the version: \(archive.path)")
        let (code, text) = try ToolRunner.process(podman, ["load", "-i", archive.path])
        XCTAssertEqual(code, 0, text)
        XCTAssertTrue(text.contains("handpose:\(version)"), text)
        // The image an earlier run loaded under this name, now untagged, would stay in storage.
        _ = try? ToolRunner.process(podman, ["image", "prune", "-f"])
        return "localhost/handpose:\(version)"
    }

    /// Samples' 27 clips and stills (as a user's tree: sub-folders), `copies` times over (in copy-N/
    /// folders when more than once), plus a file of random bytes named .mp4.
    static func mixedFolder(in dir: URL, bad: Bool, copies: Int = 1) throws -> URL {
        let input = dir.appendingPathComponent("in")
        let samples = root.appendingPathComponent("Samples")
        for case let url as URL in FileManager.default.enumerator(at: samples, includingPropertiesForKeys: nil)!
        where ["mp4", "png"].contains(url.pathExtension) {
            let relative = String(url.standardizedFileURL.path.dropFirst(samples.standardizedFileURL.path.count + 1))
            for copy in 0..<copies {
                let target = input.appendingPathComponent(copies == 1 ? relative : "copy-\(copy)/\(relative)")
                try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                try FileManager.default.copyItem(at: url, to: target)
            }
        }
        if bad {
            var noise = SystemRandomNumberGenerator()
            try Data((0..<20_000).map { _ in UInt8.random(in: 0...255, using: &noise) }).write(to: input.appendingPathComponent("actions/bad.mp4"))
        }
        return input
    }

    /// An output folder the image's user (uid 10001) can write into.
    static func outputFolder(_ url: URL) throws -> URL {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o777])
        return url
    }

    /// `podman run` of the image as a container with no network, inputs read-only at /data/input and the
    /// outputs at /data/output.
    static func run(_ image: String, input: URL, output: URL, _ options: [String] = [], _ command: [String]) throws -> (Int32, String) {
        try ToolRunner.process(podman, ["run", "--rm", "--network", "none", "-v", "\(input.path):/data/input:ro",
                                        "-v", "\(output.path):/data/output"] + options + [image] + command)
    }

    /// Each keypoint file's frames, by relative path.
    static func frames(in folder: URL) throws -> [String: NSArray] {
        var out: [String: NSArray] = [:]
        for (path, data) in try ToolRunner.files(in: folder) where path.hasSuffix(".hands.json") {
            let object = try JSONSerialization.jsonObject(with: data) as! [String: Any]
            out[path] = object["frames"] as? NSArray
        }
        return out
    }

    /// The Kubernetes Job's container, read from the manifest with PyYAML (in .venv with kubernetes-validate).
    struct JobContainer: Decodable {
        var image: String, pullPolicy: String, args: [String], env: [String: String], user: Int, group: Int
        var readOnlyRoot: Bool, emptyDirs: [String], completions: Int
    }
    static func jobContainer() throws -> JobContainer {
        let python = root.appendingPathComponent(".venv/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            print("SKIP: .venv is absent; run make setup"); throw Prerequisite.missing(".venv absent")
        }
        let script = """
        import json, sys, yaml
        job = yaml.safe_load(open("deploy/kubernetes/extract-job.yaml"))
        pod = job["spec"]["template"]["spec"]; c = pod["containers"][0]
        empty = {v["name"] for v in pod["volumes"] if "emptyDir" in v}
        print(json.dumps({"image": c["image"], "pullPolicy": c.get("imagePullPolicy", ""), "args": c["args"],
          "env": {e["name"]: e["value"] for e in c.get("env", [])}, "user": pod["securityContext"]["runAsUser"],
          "group": pod["securityContext"]["runAsGroup"], "readOnlyRoot": c["securityContext"]["readOnlyRootFilesystem"],
          "emptyDirs": [m["mountPath"] for m in c["volumeMounts"] if m["name"] in empty], "completions": job["spec"]["completions"]}))
        """
        let (code, text) = try ToolRunner.process(python, ["-c", script])
        XCTAssertEqual(code, 0, text)
        return try JSONDecoder().decode(JobContainer.self, from: Data(text.utf8))
    }

    /// The image as `make image` labels it, run by hand over a mixed folder (exit 1, the bad file named,
    /// the same frames as the host's binary) and as the Kubernetes Job runs it, index by index (each
    /// index exits 0 with --failed-inputs-ok, and together they write what one run writes, byte for byte).
    func testImageRunsExtractAsTheJobRunsIt() throws {
        try Self.requireTools(["debootstrap", "buildah", "podman", "runc"])
        _ = try ToolRunner.models()
        let image = try Self.loadedImage()
        let version = try Self.version()

        // Labels: the version, the source commit and the models' SHA-256; user and process 1.
        let (code, text) = try ToolRunner.process(Self.podman, ["image", "inspect", image, "--format", "{{json .Config}}"])
        XCTAssertEqual(code, 0, text)
        let config = try JSONSerialization.jsonObject(with: Data(text.utf8)) as! [String: Any]
        let labels = config["Labels"] as? [String: String] ?? [:]
        XCTAssertEqual(labels["org.opencontainers.image.version"], version)
        let (_, head) = try ToolRunner.process("/usr/bin/git", ["rev-parse", "HEAD"])
        XCTAssertTrue(labels["org.opencontainers.image.revision"]?.hasPrefix(head.trimmingCharacters(in: .whitespacesAndNewlines)) == true, "\(labels)")
        let sums = try String(contentsOf: Self.root.appendingPathComponent("scripts/models.sha256"), encoding: .utf8)
        for line in sums.split(separator: "\n") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            let name = parts[1].replacingOccurrences(of: ".tflite", with: "")
            XCTAssertEqual(labels["io.handpose.model.\(name).sha256"], String(parts[0]), "label of \(name)")
        }
        XCTAssertEqual(config["User"] as? String, "10001:10001")
        XCTAssertEqual(config["Entrypoint"] as? [String], ["/usr/bin/tini", "--"])

        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("image-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = try Self.mixedFolder(in: dir, bad: true)

        // By hand, against the host's binary.
        let host = dir.appendingPathComponent("host")
        let (hostCode, hostText) = try ToolRunner.run(["extract", input.path, "-r", "-o", host.path])
        XCTAssertEqual(hostCode, 1, hostText)
        let plain = try Self.outputFolder(dir.appendingPathComponent("plain"))
        let (plainCode, plainText) = try Self.run(image, input: input, output: plain, [], ["handpose", "extract", "/data/input", "-r", "-o", "/data/output"])
        XCTAssertEqual(plainCode, 1, "finished, one input failed: \(plainText)")
        XCTAssertTrue(plainText.contains("failed actions/bad.mp4"), plainText)
        let hostFrames = try Self.frames(in: host), imageFrames = try Self.frames(in: plain)
        XCTAssertEqual(hostFrames.count, 27, "every clip and still but the bad file")
        XCTAssertEqual(Set(hostFrames.keys), Set(imageFrames.keys))
        for (path, frames) in hostFrames { XCTAssertEqual(frames, imageFrames[path], "\(path): the image's frames differ from the host's") }

        // As the Job runs it: image, arguments, environment, user, read-only root (no tmpfs podman would
        // add), its emptyDirs; one container per index.
        let job = try Self.jobContainer()
        XCTAssertEqual(job.image, "handpose:\(version)", "the manifest names the image make image builds")
        XCTAssertEqual(job.pullPolicy, "IfNotPresent", "a loaded image must start without a registry")
        XCTAssertTrue(job.readOnlyRoot)
        let indexed = try Self.outputFolder(dir.appendingPathComponent("indexed"))
        var named = 0
        for index in 0..<job.completions {
            var options = ["--user", "\(job.user):\(job.group)", "-e", "JOB_COMPLETION_INDEX=\(index)"]
            if job.readOnlyRoot { options += ["--read-only", "--read-only-tmpfs=false"] }
            options += job.env.sorted { $0.key < $1.key }.flatMap { ["-e", "\($0.key)=\($0.value)"] }
            options += job.emptyDirs.flatMap { ["--tmpfs", "\($0):rw,mode=1777"] }
            let (c, t) = try Self.run(image, input: input, output: indexed, options, job.args)
            XCTAssertEqual(c, 0, "index \(index): \(t)")
            if t.contains("failed actions/bad.mp4") { named += 1; XCTAssertTrue(t.contains("1 failed"), t) }
        }
        XCTAssertEqual(named, 1, "exactly one index meets the bad file, and names it")
        // Keypoint files byte for byte; failure records by input and reason (they also name the host and time).
        let one = try ToolRunner.files(in: plain), union = try ToolRunner.files(in: indexed)
        XCTAssertEqual(Set(one.keys), Set(union.keys))
        func record(_ data: Data?) -> [String]? {
            (data.flatMap { try? JSONSerialization.jsonObject(with: $0) } as? [String: Any]).map { ["\($0["input"] ?? "")", "\($0["reason"] ?? "")"] }
        }
        for (path, data) in one {
            if path.hasSuffix(".failed.json") { XCTAssertEqual(record(data), record(union[path]), path); continue }
            XCTAssertEqual(data, union[path], "\(path) differs between one run and the Job's indexes")
        }
    }

    /// SIGTERM to the container (podman stop: tini passes it on) keeps every finished file whole, exits
    /// 130, and a rerun keeps those files and does the rest.
    func testStoppedContainerKeepsWhatIsDoneAndResumes() throws {
        try Self.requireTools(["debootstrap", "buildah", "podman", "runc"])
        _ = try ToolRunner.models()
        let image = try Self.loadedImage()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("image-term-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let copies = 4, total = 27 * copies
        let input = try Self.mixedFolder(in: dir, bad: false, copies: copies)
        let output = try Self.outputFolder(dir.appendingPathComponent("out"))
        let name = "handpose-term-\(getpid())"
        let command = ["handpose", "extract", "/data/input", "-r", "-o", "/data/output", "--jobs", "1"]
        // Detached: the container's monitor keeps podman's standard output, so no pipe (ToolRunner.spawn).
        let (started, startText) = try ToolRunner.spawn([Self.podman, "run", "-d", "--name", name, "--network", "none", "-v", "\(input.path):/data/input:ro",
                                                         "-v", "\(output.path):/data/output", image] + command)
        XCTAssertEqual(started, 0, startText)
        defer { _ = try? ToolRunner.process(Self.podman, ["rm", "-f", name]) }
        // SIGTERM once the first keypoint files are in place (a guard of two minutes, not a timing test).
        func written() -> Int {
            ((try? FileManager.default.subpathsOfDirectory(atPath: output.path)) ?? []).filter { $0.hasSuffix(".hands.json") }.count
        }
        let deadline = Date().addingTimeInterval(120)
        while written() < 2, Date() < deadline { usleep(10_000) }
        let (stopped, stopText) = try ToolRunner.process(Self.podman, ["kill", "--signal", "TERM", name])
        XCTAssertEqual(stopped, 0, stopText)
        let (_, exitText) = try ToolRunner.process(Self.podman, ["wait", name])
        let (_, log) = try ToolRunner.process(Self.podman, ["logs", name])
        XCTAssertEqual(exitText.trimmingCharacters(in: .whitespacesAndNewlines), "130", "interrupted: \(log)")
        XCTAssertTrue(log.contains("\(total) files:"), "the summary is printed: \(log)")

        let kept = try ToolRunner.files(in: output)
        XCTAssertFalse(kept.keys.contains { $0.hasSuffix(".partial") }, "no half-written file is left: \(kept.keys.sorted())")
        let done = kept.keys.filter { $0.hasSuffix(".hands.json") }
        XCTAssertGreaterThan(done.count, 0)
        XCTAssertLessThan(done.count, total, "stopped before the end: \(log)")
        for path in done { XCTAssertNoThrow(try KeypointFile.load(output.appendingPathComponent(path)), path) }
        let (rerun, rerunText) = try Self.run(image, input: input, output: output, [], command)
        XCTAssertEqual(rerun, 0, rerunText)
        XCTAssertTrue(rerunText.contains("\(total - done.count) done, \(done.count) skipped"), rerunText)
        let after = try ToolRunner.files(in: output)
        for path in done { XCTAssertEqual(after[path], kept[path], "\(path) was kept as it was") }
        XCTAssertEqual(after.keys.filter { $0.hasSuffix(".hands.json") }.count, total)
    }

    /// The dist tarball in a bare Debian 12 root that has no package but minbase's (no FFmpeg, no toolchain, no
    /// -dev package) and no /proc: extract over Samples/, then export actions and poses.
    func testDistTarballRunsInABareRoot() throws {
        try Self.requireTools(["debootstrap", "chroot"])
        _ = try ToolRunner.models()
        let made = try Self.make("dist")
        let version = try Self.version()
        let name = "handpose-\(version)-linux-x86_64"
        let tarball = Self.root.appendingPathComponent("out/\(name).tar.gz")
        XCTAssertTrue(made.contains(tarball.lastPathComponent), made)

        let bare = Self.root.appendingPathComponent(".build-image/test-root-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: bare) }
        let (made2, rootText) = try ToolRunner.process(Self.root.appendingPathComponent("scripts/runtime-root.sh").path, [bare.path])
        XCTAssertEqual(made2, 0, rootText)
        guard made2 == 0 else { return }
        // No FFmpeg, libjpeg-turbo, compiler, Swift or -dev package; no /proc.
        XCTAssertEqual(try Self.packagesHandposeMustNotNeed(in: bare), [], "no FFmpeg, libjpeg-turbo, Swift or -dev package")
        for tool in ["usr/bin/swift", "usr/bin/gcc", "usr/bin/cc", "usr/bin/clang"] {
            XCTAssertFalse(FileManager.default.fileExists(atPath: bare.appendingPathComponent(tool).path), tool)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: bare.appendingPathComponent("proc").path), [], "no /proc")

        let (untar, untarText) = try ToolRunner.process("/bin/tar", ["-xzf", tarball.path, "-C", bare.appendingPathComponent("opt").path])
        XCTAssertEqual(untar, 0, untarText)
        let readme = try String(contentsOf: bare.appendingPathComponent("opt/\(name)/README.txt"), encoding: .utf8)
        XCTAssertTrue(readme.contains("glibc 2.34"), readme)
        for notice in ["NOTICE", "SOURCES", "FFMPEG-COMPONENTS", "ffmpeg.copyright", "Apache-2.0", "GPL-2"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: bare.appendingPathComponent("opt/\(name)/share/handpose/licenses/\(notice)").path), notice)
        }
        try FileManager.default.copyItem(at: Self.root.appendingPathComponent("Samples"), to: bare.appendingPathComponent("data/Samples"))
        let tool = "/opt/\(name)/bin/handpose"
        func inRoot(_ arguments: [String]) throws -> (Int32, String) {
            try ToolRunner.process("/usr/sbin/chroot", [bare.path, tool] + arguments, environment: ["HANDPOSE_CACHE": "/tmp/cache"])
        }
        let (extracted, extractText) = try inRoot(["extract", "/data/Samples", "-r", "-o", "/data/keypoints"])
        XCTAssertEqual(extracted, 0, extractText)
        XCTAssertTrue(extractText.contains("27 files: 27 done"), extractText)
        let (actions, actionsText) = try inRoot(["export", "actions", "/data/Samples/annotations.csv", "--keypoints", "/data/keypoints",
                                                 "-o", "/data/actions", "--fps", "15", "--window", "15", "--split", "train=0.75,val=0.25", "--seed", "1"])
        XCTAssertEqual(actions, 0, actionsText)
        let (poses, posesText) = try inRoot(["export", "poses", "/data/Samples/poses", "--keypoints", "/data/keypoints/poses", "-o", "/data/poses"])
        XCTAssertEqual(poses, 0, posesText)
        for file in ["actions/train/X.npy", "actions/val/X.npy", "actions/dataset.json", "poses/dataset.json"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: bare.appendingPathComponent("data/\(file)").path), file)
        }
        // The same frames and hands as the host's binary, bit for bit: the static FFmpeg decodes as Debian's
        // does, and the kernels are chosen by CPUID, which needs no /proc.
        let host = FileManager.default.temporaryDirectory.appendingPathComponent("dist-host-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: host) }
        let (hostCode, hostText) = try ToolRunner.run(["extract", "Samples", "-r", "-o", host.path])
        XCTAssertEqual(hostCode, 0, hostText)
        let ours = try Self.frames(in: bare.appendingPathComponent("data/keypoints")), theirs = try Self.frames(in: host)
        XCTAssertEqual(Set(ours.keys), Set(theirs.keys))
        for (path, frames) in theirs { XCTAssertEqual(frames, ours[path], "\(path): the tarball's frames differ from the host's") }
    }
}
