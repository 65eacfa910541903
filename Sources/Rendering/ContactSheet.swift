/// A contact sheet: evenly spaced frames of a clip, drawn over, on one image.
public enum ContactSheet {
    /// The most frames a sheet holds: a 10x10 grid of 320-pixel tiles.
    public static let maxFrames = 100

    /// Indices of `count` (1 to `maxFrames`) evenly spaced frames of a `total`-frame clip (first and last
    /// included). The product is formed in 128 bits: `total` is the container's count, which may be any size.
    public static func picks(total: Int, count: Int) -> Set<Int> {
        let count = min(max(count, 1), maxFrames), last = max(total - 1, 0)
        return Set((0..<count).map { i in (max(count - 1, 1)).dividingFullWidth(i.multipliedFullWidth(by: last)).quotient })
    }

    /// `canvas` scaled by nearest neighbour to a tile `tileWidth` wide at its aspect ratio, as `compose` would
    /// paste it: a sheet's frames are kept at tile size while the clip is read, not each at the clip's size.
    public static func tile(_ canvas: Canvas, tileWidth: Int = 320) -> Canvas {
        let th = max(1, tileWidth * canvas.height / max(canvas.width, 1))
        var tile = Canvas(width: tileWidth, height: th)
        tile.paste(canvas, x: 0, y: 0, w: tileWidth, h: th)
        return tile
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
