import Kernels

/// The walk over output pixels that the in-place convolutions (`DirectConv`, `DotConv`) share: row by row
/// (the row's input rows and taps worked out once, not per group: four integer divisions a group cost as
/// much as a dot tile's products), groups of `groupSize` pixels whose taps all lie inside the input
/// horizontally, and single pixels for the rest.
/// A row's last group that would run past the end is moved back to end there: it recomputes a few pixels
/// this call already wrote, to the same bits (each pixel's sum is formed in one order, whichever group
/// forms it), rather than leave up to `groupSize - 1` of them to the single path, which is several times
/// slower a pixel. It never moves before `pixels`' first pixel: threads split a row between them.
enum ConvRows {
    @inline(__always)
    static func walk(_ conv: Conv2D, pixels: Range<Int>, groupSize: Int,
                     group: (_ pixel: Int, _ ox: Int, _ iy0: Int, _ ky: Range<Int>) -> Void,
                     single: (_ pixel: Int, _ ox: Int, _ iy0: Int, _ ky: Range<Int>) -> Void) {
        let w = conv.window, inW = conv.input.w, inH = conv.input.h, outW = conv.output.w
        // Output columns whose taps all lie inside the input horizontally.
        let oxFirst = min(outW, (w.padLeft + w.sw - 1) / w.sw)
        let oxEnd = max(oxFirst, min(outW, (inW - (w.kw - 1) * w.dw + w.padLeft - 1) / w.sw + 1))
        var rowStart = pixels.lowerBound
        while rowStart < pixels.upperBound {
            let oy = rowStart / outW, first = rowStart % outW
            let end = min(outW, first + (pixels.upperBound - rowStart))
            let iy0 = oy * w.sh - w.padTop
            let kyLo = max(0, (-iy0 + w.dh - 1) / w.dh)
            let kys = kyLo..<max(kyLo, min(w.kh, (inH - iy0 + w.dh - 1) / w.dh))
            let base = oy * outW
            let groupEnd = min(oxEnd, end), ownFirst = max(oxFirst, first)
            var ox = first
            while ox < end {
                if ox >= oxFirst && ox + groupSize <= groupEnd {
                    group(base + ox, ox, iy0, kys)
                    ox += groupSize
                } else if ox >= oxFirst && ox < groupEnd && groupEnd - groupSize >= ownFirst {
                    ox = groupEnd - groupSize
                } else {
                    single(base + ox, ox, iy0, kys)
                    ox += 1
                }
            }
            rowStart = base + end
        }
    }
}
