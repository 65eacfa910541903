import Rendering
import XCTest

final class ContactSheetTests: XCTestCase {
    func testPicksSpanTheClipAndTheGridIsNearSquare() {
        XCTAssertEqual(ContactSheet.picks(total: 101, count: 5), [0, 25, 50, 75, 100])
        XCTAssertEqual(ContactSheet.picks(total: 1, count: 12), [0])
        let tiles = (0..<5).map { Canvas(width: 64, height: 32, fill: SIMD3(repeating: Float($0) * 40)) }
        let (sheet, cols, rows) = ContactSheet.compose(tiles, frameWidth: 64, frameHeight: 32, tileWidth: 100)
        XCTAssertEqual([cols, rows], [3, 2])
        XCTAssertEqual([sheet.width, sheet.height], [3 * 100 + 4 * 4, 2 * 50 + 3 * 4])
        // Tile 4 (second row, second column) keeps its colour; the gap stays dark.
        XCTAssertEqual(sheet.pixels[(4 + 50 + 4 + 10) * sheet.width + 4 + 100 + 4 + 10], SIMD3(repeating: 160))
        XCTAssertEqual(sheet.pixels[2 * sheet.width + 2], SIMD3(repeating: 30))
    }

    /// A container may state any frame count: the picks of a clip claiming Int.max frames are formed without
    /// overflow, and a count past the sheet's size is held to it.
    func testPicksOfAnyFrameCountNeverOverflow() {
        let huge = ContactSheet.picks(total: Int.max, count: 3)
        XCTAssertEqual(huge, [0, (Int.max - 1) / 2, Int.max - 1])
        XCTAssertEqual(ContactSheet.picks(total: 1_000_000, count: 1_000_000).count, ContactSheet.maxFrames)
        XCTAssertEqual(ContactSheet.picks(total: 10, count: 0), [0])
    }

    /// Tiles scaled as the clip is read make the sheet that the frames at full size made.
    func testTilesScaledAsReadMakeTheSameSheet() {
        let frames = (0..<4).map { k -> Canvas in
            var c = Canvas(width: 97, height: 61)
            for i in c.pixels.indices { c.pixels[i] = SIMD3(Float((i * 7 + k * 13) % 256), Float(i % 251), Float(k * 60)) }
            return c
        }
        let whole = ContactSheet.compose(frames, frameWidth: 97, frameHeight: 61, tileWidth: 40).sheet
        let tiled = ContactSheet.compose(frames.map { ContactSheet.tile($0, tileWidth: 40) }, frameWidth: 97, frameHeight: 61, tileWidth: 40).sheet
        XCTAssertEqual([tiled.width, tiled.height], [whole.width, whole.height])
        XCTAssertEqual(tiled.pixels, whole.pixels)
    }
}
