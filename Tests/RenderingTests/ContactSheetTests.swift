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
}
