import Foundation
import XCTest
import Inference

/// Plans reading their packed weights from a shared file compute exactly what plans with private
/// copies compute, and a damaged or unwritable cache never changes a result.
final class SharedConstantsTests: XCTestCase {
    func outputs(_ plan: ExecutionPlan, _ input: [Float]) throws -> [[Float]] {
        try plan.run(input)
        return (0..<plan.outputs.count).map { Array(plan.output($0)) }
    }

    func testSharedPlansMatchPrivateOnesAndVerifyTheFile() throws {
        let model = try TFLiteModel(path: try Fixtures.modelPath("hand_landmark_lite"))
        var rng = SeededRandom(11)
        let input = rng.floats(model.tensors[model.inputs[0]].count, in: 0...1)
        let expected = try outputs(try ExecutionPlan(model: model, threads: 1), input)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("shared-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let sharing = SharedConstants(directory: folder)

        // The first plan writes the file, the second maps the one already there.
        let first = try ExecutionPlan(model: model, threads: 1, sharing: sharing)
        XCTAssertTrue(first.constantsShared)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        XCTAssertEqual(files.count, 1, "\(files)")
        XCTAssertTrue(files[0].hasSuffix(".f32"), files[0])
        let file = folder.appendingPathComponent(files[0])
        func inode() throws -> Int? { try FileManager.default.attributesOfItem(atPath: file.path)[.systemFileNumber] as? Int }
        let written = try inode()
        let second = try ExecutionPlan(model: model, threads: 2, sharing: sharing)
        XCTAssertTrue(second.constantsShared)
        XCTAssertEqual(try outputs(first, input), expected)
        XCTAssertEqual(try outputs(second, input), expected)
        XCTAssertEqual(try inode(), written, "a file that matches is read, not written again")

        // A file whose bytes differ (same name, same size) is not used: it is written again.
        var bytes = try Data(contentsOf: file)
        bytes[bytes.count / 2] ^= 0x40
        try FileManager.default.removeItem(at: file)   // the plans above keep their mapping of the old file
        try bytes.write(to: file)
        let third = try ExecutionPlan(model: model, threads: 1, sharing: sharing)
        XCTAssertTrue(third.constantsShared)
        XCTAssertEqual(try outputs(third, input), expected)
        XCTAssertNotEqual(try Data(contentsOf: file), bytes, "the damaged file was replaced")

        // A file of another size under the name: replaced too.
        try FileManager.default.removeItem(at: file)
        try Data(count: 4096).write(to: file)
        let fifth = try ExecutionPlan(model: model, threads: 1, sharing: sharing)
        XCTAssertTrue(fifth.constantsShared)
        XCTAssertEqual(try outputs(fifth, input), expected)
        // A file others may write is not used (it could change under the mapping); nor left as it was.
        try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: file.path)
        let sixth = try ExecutionPlan(model: model, threads: 1, sharing: sharing)
        XCTAssertTrue(sixth.constantsShared)
        XCTAssertEqual((try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int).map { $0 & 0o022 }, 0)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".tmp") }, [],
                       "no temporary file is left")

        // A folder that cannot be made (a path under a regular file): the plan keeps its own copy.
        let blocker = folder.appendingPathComponent("not-a-folder")
        try Data("x".utf8).write(to: blocker)
        let fourth = try ExecutionPlan(model: model, threads: 1, sharing: SharedConstants(directory: blocker.appendingPathComponent("weights")))
        XCTAssertFalse(fourth.constantsShared)
        XCTAssertEqual(try outputs(fourth, input), expected)
    }

    /// `HANDPOSE_CACHE` names the folder (empty: no sharing); otherwise the XDG cache folder.
    func testStandardFolder() {
        XCTAssertEqual(SharedConstants.standard(environment: ["HANDPOSE_CACHE": "/c", "HOME": "/h"])?.directory.path, "/c/weights")
        XCTAssertNil(SharedConstants.standard(environment: ["HANDPOSE_CACHE": "", "HOME": "/h"]))
        XCTAssertEqual(SharedConstants.standard(environment: ["XDG_CACHE_HOME": "/x", "HOME": "/h"])?.directory.path, "/x/handpose/weights")
        XCTAssertEqual(SharedConstants.standard(environment: ["HOME": "/h"])?.directory.path, "/h/.cache/handpose/weights")
        // Relative or empty values are ignored (XDG): the node's /tmp then.
        XCTAssertEqual(SharedConstants.standard(environment: ["XDG_CACHE_HOME": "rel", "HOME": ""])?.directory.path,
                       "/tmp/handpose-\(getuid())/weights")
    }
}
