/// A contact sheet: evenly spaced frames of a clip, drawn over, on one image.
public enum ContactSheet {
    /// Indices of `count` evenly spaced frames of a `total`-frame clip (first and last included).
    public static func picks(total: Int, count: Int) -> Set<Int> {
        Set((0..<count).map { $0 * max(total - 1, 0) / max(count - 1, 1) })
    }

    /// Tiles laid out in a near-square grid, each scaled to `tileWidth` wide at the frames' aspect ratio.
    public static func compose(_ tiles: [Canvas], frameWidth: Int, frameHeight: Int, tileWidth: Int = 320) -> (sheet: Canvas, columns: Int, rows: Int) {
        let cols = max(1, Int(Double(tiles.count).squareRoot().rounded(.up))), rows = (tiles.count + cols - 1) / cols
        let tw = tileWidth, th = max(1, tileWidth * frameHeight / max(frameWidth, 1))
        var board = Canvas(width: cols * tw + (cols + 1) * 4, height: rows * th + (rows + 1) * 4, fill: SIMD3(30, 30, 30))
        for (i, t) in tiles.enumerated() { board.paste(t, x: 4 + (i % cols) * (tw + 4), y: 4 + (i / cols) * (th + 4), w: tw, h: th) }
        return (board, cols, rows)
    }
}
