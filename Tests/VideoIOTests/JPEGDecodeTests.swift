import Foundation
import TestSupport
import VideoIO
import XCTest

/// JPEG stills are decoded as MediaPipe's users decode them: the pixels equal OpenCV's `cv2.imread`
/// (libjpeg-turbo, EXIF orientation applied) exactly, for every chroma subsampling, odd sizes and all
/// eight EXIF orientations; PNGs still go through FFmpeg.
final class JPEGDecodeTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL

    func testJPEGStillsMatchOpenCVPixelForPixel() throws {
        let python = Self.root.appendingPathComponent(".venv/bin/python")
        let dir = ClipFactory.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Pillow writes the JPEGs (libjpeg-turbo's encoder) with EXIF orientations; OpenCV reads them back.
        let script = #"""
        import sys, os, numpy as np, cv2
        from PIL import Image
        out = sys.argv[1]
        rng = np.random.default_rng(7)
        def picture(w, h):
            y, x = np.mgrid[0:h, 0:w]
            base = np.stack([(x * 255 // max(w - 1, 1)), (y * 255 // max(h - 1, 1)), ((x + y) * 7) % 256], -1)
            return np.clip(base + rng.integers(-40, 40, (h, w, 3)), 0, 255).astype(np.uint8)
        cases = []
        for (w, h) in [(200, 200), (683, 384), (33, 17), (1, 9)]:
            for sub, name in [(2, '420'), (1, '422'), (0, '444')]:
                cases.append(('jpeg%s_%dx%d' % (name, w, h), Image.fromarray(picture(w, h)), dict(subsampling=sub, quality=90)))
            cases.append(('grey_%dx%d' % (w, h), Image.fromarray(picture(w, h)[:, :, 0]), dict(quality=85)))
        for o in range(1, 9):
            exif = Image.Exif(); exif[0x0112] = o
            cases.append(('orient%d_40x24' % o, Image.fromarray(picture(40, 24)), dict(quality=92, exif=exif.tobytes())))
        for name, img, kw in cases:
            path = os.path.join(out, name + '.jpg')
            img.save(path, 'JPEG', **kw)
            bgr = cv2.imread(path, cv2.IMREAD_COLOR)
            rgb = np.ascontiguousarray(bgr[:, :, ::-1])
            open(path + '.rgb', 'wb').write(rgb.tobytes())
            open(path + '.size', 'w').write('%d %d' % (rgb.shape[1], rgb.shape[0]))
        print(len(cases))
        """#
        let (code, text) = try runPython(python, script, dir.path)
        guard code != 127 else { print("SKIP: \(text)"); throw Prerequisite.missing("no .venv with OpenCV") }
        XCTAssertEqual(code, 0, text)
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".jpg") }.sorted()
        XCTAssertEqual(names.count, 24, text)
        for name in names {
            let url = dir.appendingPathComponent(name)
            let size = try String(contentsOf: URL(fileURLWithPath: url.path + ".size"), encoding: .utf8).split(separator: " ").map { Int($0)! }
            let expected = try Data(contentsOf: URL(fileURLWithPath: url.path + ".rgb"))
            let reader = try VideoReader(url: url)
            XCTAssertEqual(reader.info.decoder, "libjpeg-turbo", name)
            XCTAssertEqual([reader.info.width, reader.info.height], size, "\(name): size as displayed")
            if name.hasPrefix("orient") { XCTAssertEqual(reader.info.exifOrientation, Int(name.dropFirst(6).prefix(1)), name) }
            let frame = try XCTUnwrap(reader.nextFrame(), name)
            XCTAssertEqual([frame.width, frame.height], size, name)
            XCTAssertNil(try reader.nextFrame(), "\(name): one frame")
            let differing = zip(frame.pixels, expected).filter { $0 != $1 }.count
            XCTAssertEqual(frame.pixels.count, expected.count, name)
            XCTAssertEqual(differing, 0, "\(name): \(differing) bytes differ from cv2.imread")
        }
        // Other stills keep FFmpeg.
        let png = try VideoReader(url: Self.root.appendingPathComponent("Samples/poses/fist/fist_0.png"))
        XCTAssertEqual(png.info.decoder, "ffmpeg")
    }

    /// Every still format that carries an EXIF orientation is turned upright by it, not only the JPEGs
    /// libjpeg-turbo decodes: PNG (`eXIf`), lossless WebP (`EXIF`), TIFF (its own Orientation tag) in all
    /// eight orientations, against the upright picture the orientation defines (numpy, EXIF 2.3's table);
    /// a CMYK JPEG (FFmpeg decodes it) against `cv2.imread`, and a JPEG with a fill byte before a marker.
    func testEveryStillFormatIsTurnedUprightByItsOrientation() throws {
        let python = Self.root.appendingPathComponent(".venv/bin/python")
        let dir = ClipFactory.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let script = #"""
        import sys, os, numpy as np, cv2
        from PIL import Image
        out = sys.argv[1]
        y, x = np.mgrid[0:24, 0:40]
        stored = np.stack([x * 6, y * 10, (x * 3 + y * 5) % 256], -1).astype(np.uint8)
        upright = {1: stored, 2: stored[:, ::-1], 3: stored[::-1, ::-1], 4: stored[::-1],
                   5: stored.transpose(1, 0, 2), 6: np.rot90(stored, -1), 7: stored[::-1, ::-1].transpose(1, 0, 2),
                   8: np.rot90(stored, 1)}
        def save(name, image, **kw):
            path = os.path.join(out, name)
            image.save(path, **kw)
            return path
        def expect(path, rgb):
            rgb = np.ascontiguousarray(rgb)
            open(path + '.rgb', 'wb').write(rgb.tobytes())
            open(path + '.size', 'w').write('%d %d' % (rgb.shape[1], rgb.shape[0]))
        for o in range(1, 9):
            exif = Image.Exif(); exif[0x0112] = o
            image = Image.fromarray(stored)
            expect(save('o%d.png' % o, image, exif=exif.tobytes()), upright[o])
            expect(save('o%d.webp' % o, image, lossless=True, exif=exif.tobytes()), upright[o])
            expect(save('o%d.tif' % o, image, tiffinfo={0x0112: o}), upright[o])
        exif = Image.Exif(); exif[0x0112] = 6
        path = save('cmyk6.jpg', Image.fromarray(stored).convert('CMYK'), quality=95, exif=exif.tobytes())
        expect(path, cv2.imread(path, cv2.IMREAD_COLOR)[:, :, ::-1])
        data = open(save('plain6.jpg', Image.fromarray(stored), quality=95, exif=exif.tobytes()), 'rb').read()
        path = os.path.join(out, 'fill6.jpg')
        open(path, 'wb').write(data[:2] + bytes([0xFF]) + data[2:])   # a fill byte before the first marker (T.81 B.1.1.2)
        expect(path, cv2.imread(os.path.join(out, 'plain6.jpg'), cv2.IMREAD_COLOR)[:, :, ::-1])
        """#
        let (code, text) = try runPython(python, script, dir.path)
        guard code != 127 else { print("SKIP: \(text)"); throw Prerequisite.missing("no .venv with OpenCV") }
        XCTAssertEqual(code, 0, text)
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path)
            .filter { !$0.hasSuffix(".rgb") && !$0.hasSuffix(".size") && $0 != "plain6.jpg" }.sorted()
        XCTAssertEqual(names.count, 26, "\(names)")
        for name in names {
            let url = dir.appendingPathComponent(name)
            let size = try String(contentsOf: URL(fileURLWithPath: url.path + ".size"), encoding: .utf8).split(separator: " ").map { Int($0)! }
            let expected = try Data(contentsOf: URL(fileURLWithPath: url.path + ".rgb"))
            let reader = try VideoReader(url: url)
            let orientation = name.hasPrefix("o") ? Int(name.dropFirst().prefix(1))! : 6
            XCTAssertEqual(reader.info.exifOrientation, orientation, name)
            XCTAssertEqual([reader.info.width, reader.info.height], size, "\(name): size as displayed")
            let frame = try XCTUnwrap(reader.nextFrame(), name)
            XCTAssertEqual([frame.width, frame.height], size, name)
            XCTAssertEqual(frame.pixels.count, expected.count, name)
            let worst = zip(frame.pixels, expected).map { abs(Int($0) - Int($1)) }.max() ?? 0
            // Lossless formats exactly; the JPEGs within CMYK's and FFmpeg's rounding (turned wrong, a picture is off by 100s).
            XCTAssertLessThanOrEqual(worst, name.hasSuffix(".jpg") ? 24 : 0, name)
        }
    }

    func runPython(_ python: URL, _ script: String, _ arg: String) throws -> (Int32, String) {
        guard FileManager.default.isExecutableFile(atPath: python.path) else { return (127, ".venv absent; run `make setup`") }
        guard try ClipFactory.run(python.path, ["-c", "import cv2, PIL, numpy"]).status == 0 else {
            return (127, ".venv lacks OpenCV or Pillow; run `make setup`")
        }
        return try ClipFactory.run(python.path, ["-c", script, arg])
    }
}
