import Kernels

/// `DepthwiseConv2D` run: blocks of eight channels (pairs of eight with AVX2; sixteen, and pairs of sixteen, with
/// AVX-512); four output pixels share each weight load in the interior and, at stride 1 with 3x3 and 5x5
/// windows, at the borders too, reading zeros outside the input; other border pixels go one at a time, skipping taps
/// that fall outside the input. Channels past the last multiple of eight (face_detection_short_range's
/// 28, 36 and 42) go as one more block of eight that ends at the last channel and so repeats some already
/// done: each channel's sum is its own lane's, formed in the same order, so the repeated ones are written
/// again with the same value, and no load or store leaves the range. Only a range narrower than eight
/// channels goes channel by channel. A 1x1 window at stride 1 (a scale and shift a channel) has a path of its
/// own, `scaleRows`.
enum DepthwiseKernel {
    /// Output rows `rows`, channels `channels` (from a multiple of 16); `x` starts at input row
    /// `inputFirstRow`, `y` at output row `outputFirstRow`.
    static func run(_ conv: DepthwiseConv2D, input x: UnsafePointer<Float>, inputFirstRow: Int,
                    output y: UnsafeMutablePointer<Float>, outputFirstRow: Int, rows: Range<Int>, channels: Range<Int>) {
        let input = conv.input, output = conv.output, window = conv.window, activation = conv.activation
        let bounds = activation.bounds, lo = Float8(repeating: bounds.lo), hi = Float8(repeating: bounds.hi)
        let c = input.c, chLo = channels.lowerBound, vecC = chLo + ((channels.upperBound - chLo) & ~7)
        // The block of eight that ends at the range's last channel, when channels remain past `vecC`.
        let tail = vecC < channels.upperBound && vecC > chLo ? channels.upperBound &- 8 : -1
        let w = UnsafePointer(conv.weights.pointer), b = UnsafePointer(conv.bias.pointer)
        let (kh, kw, sh, sw, dh, dw) = (window.kh, window.kw, window.sh, window.sw, window.dh, window.dw)
        let (inH, inW, outW) = (input.h, input.w, output.w)
        // Output columns whose whole window lies inside the input.
        let oxFirst = min(outW, (window.padLeft + sw - 1) / sw)
        let oxEnd = max(oxFirst, min(outW, (inW - (kw - 1) &* dw + window.padLeft - 1) / sw + 1))
        let tapStep: Int = dw &* c
        if kh == 1 && kw == 1 && sh == 1 && sw == 1 && window.padTop == 0 && window.padLeft == 0 && vecC > chLo {
            scaleRows(x: x + (rows.lowerBound &- inputFirstRow) &* inW &* c, w: w, b: b,
                      y: y + (rows.lowerBound &- outputFirstRow) &* outW &* c, pixels: rows.count &* outW, c: c, chLo: chLo,
                      vecC: vecC, tail: tail, bounds: bounds)
            return
        }
        for oy in rows {
            let iy0 = oy &* sh &- window.padTop
            let kyLo = max(0, (-iy0 + dh - 1) / dh)
            let kyHi = max(kyLo, min(kh, (inH - iy0 + dh - 1) / dh))
            let rowOffset: Int = (oy &- outputFirstRow) &* outW &* c
            let outRow = y + rowOffset
            // Rows as `x` holds them: only rows kyLo..<kyHi of the window are read, all of them in `x`.
            let heldIy0 = iy0 &- inputFirstRow
            let row = RowKernel(x: x, w: w, b: b, outRow: outRow, c: c, chLo: chLo, vecC: vecC, tail: tail, inW: inW, sw: sw, dh: dh,
                                tapStep: tapStep, padLeft: window.padLeft, iy0: heldIy0, kyLo: kyLo, kyHi: kyHi,
                                lo: lo, hi: hi, bounds: bounds)
            if sw == 1 && dw == 1 && (kw == 3 || kw == 5) {
                // Stride 1: border pixels and the interior's leftovers go in groups of four too (reading
                // zeros outside the input) where enough of them share a group: on a 7x7 or 14x14 map
                // with a 5x5 kernel most pixels touch the border. A group costs about what two 5x5 or
                // three 3x3 single pixels cost (measured), so fewer go one at a time.
                let fewest = kw == 3 ? 3 : 2
                @inline(__always) func single(_ ox: Int) {
                    let ix0 = ox &- window.padLeft
                    let kxLo = max(0, -ix0)
                    row.pixel(ox, taps: kxLo..<max(kxLo, min(kw, inW &- ix0)), kw: kw)
                }
                var ox = 0
                if oxFirst >= fewest {
                    while ox < oxFirst {
                        row.slideBorder(kw: kw, ox: ox, count: min(4, outW &- ox))
                        ox &+= 4
                    }
                } else {
                    while ox < oxFirst { single(ox); ox &+= 1 }
                }
                ox = kw == 3 ? row.interior(kw: 3, from: ox, to: oxEnd) : row.interior(kw: 5, from: ox, to: oxEnd)
                if outW &- ox >= fewest {
                    while ox < outW {
                        row.slideBorder(kw: kw, ox: ox, count: min(4, outW &- ox))
                        ox &+= 4
                    }
                } else {
                    while ox < outW { single(ox); ox &+= 1 }
                }
            } else {
                // Left and right borders: one pixel at a time with clipped taps.
                for ox in 0..<outW where ox < oxFirst || ox >= oxEnd {
                    let ix0 = ox &* sw &- window.padLeft
                    let kxLo = max(0, (-ix0 + dw - 1) / dw), kxHi = max(kxLo, min(kw, (inW - ix0 + dw - 1) / dw))
                    row.pixel(ox, taps: kxLo..<kxHi, kw: kw)
                }
                // Interior: whole windows, so no clipping. Specialised for the models' 3x3 and 5x5
                // kernels so the tap loop unrolls.
                let end: Int
                switch kw {
                case 3: end = row.interior(kw: 3, from: oxFirst, to: oxEnd)
                case 5: end = row.interior(kw: 5, from: oxFirst, to: oxEnd)
                default: end = row.interior(kw: kw, from: oxFirst, to: oxEnd)
                }
                for ox in end..<oxEnd { row.pixel(ox, taps: 0..<kw, kw: kw) }
            }
            // A range narrower than eight channels: one channel at a time.
            var ch = tail < 0 ? vecC : channels.upperBound
            while ch < channels.upperBound {
                for ox in 0..<outW {
                    let ix0 = ox * sw - window.padLeft
                    let kxLo = max(0, (-ix0 + dw - 1) / dw), kxHi = max(kxLo, min(kw, (inW - ix0 + dw - 1) / dw))
                    var acc = b[ch]
                    for ky in kyLo..<kyHi {
                        for kx in kxLo..<kxHi {
                            acc = fma1(acc, x[((heldIy0 + ky * dh) * inW + ix0 + kx * dw) * c + ch], w[(ky * kw + kx) * c + ch])
                        }
                    }
                    outRow[ox * c + ch] = activation.apply(acc)
                }
                ch += 1
            }
        }
    }
}

extension DepthwiseKernel {
    /// A 1x1 stride-1 window without padding (the recrop model's per-channel scale and shift after each
    /// convolution), `pixels` pixels from `x` to `y`: each value the bias plus input times weight in one
    /// multiply-add of eight lanes, as the general path forms it (its groups of four pixels, one tap each),
    /// then the clamp. Every channel in whole vectors goes as one flat run over the pixels; a part of the
    /// channels, or a tail past a multiple of eight, pixel by pixel. The general path spent its time in the
    /// window's loops of one step: the recrop model's 128x128x8 layers took 0.056 ms on a Zen 3 core, now 0.022.
    @inline(never)
    static func scaleRows(x: UnsafePointer<Float>, w: UnsafePointer<Float>, b: UnsafePointer<Float>, y: UnsafeMutablePointer<Float>,
                          pixels: Int, c: Int, chLo: Int, vecC: Int, tail: Int, bounds: (lo: Float, hi: Float)) {
        if chLo == 0 && vecC == c {
            // Every channel, whole vectors: one flat run, the weights' block cycling (as `Elementwise.prelu`).
            var i = 0, ch = 0
            let end = pixels &* c
            while i < end {
                Lanes8.store(Lanes8.fma(Lanes8.load(b + ch), Lanes8.load(x + i), Lanes8.load(w + ch)),
                             clampedTo: bounds.lo, bounds.hi, at: y + i)
                i &+= 8
                ch &+= 8
                if ch == c { ch = 0 }
            }
            return
        }
        var p = 0
        while p < pixels {
            let from = x + p &* c, to = y + p &* c
            var ch = chLo
            while ch < vecC {
                Lanes8.store(Lanes8.fma(Lanes8.load(b + ch), Lanes8.load(from + ch), Lanes8.load(w + ch)),
                             clampedTo: bounds.lo, bounds.hi, at: to + ch)
                ch &+= 8
            }
            if tail >= 0 {
                Lanes8.store(Lanes8.fma(Lanes8.load(b + tail), Lanes8.load(from + tail), Lanes8.load(w + tail)),
                             clampedTo: bounds.lo, bounds.hi, at: to + tail)
            }
            p &+= 1
        }
    }
}

/// A stride-1 window of `RowKernel.slide`: 3x3 or 5x5, whole (interior) or clipped at the input's sides.
protocol SlideWindow {
    static var kw: Int { get }
    static var clipped: Bool { get }
}
enum Whole3: SlideWindow { static var kw: Int { 3 }; static var clipped: Bool { false } }
enum Whole5: SlideWindow { static var kw: Int { 5 }; static var clipped: Bool { false } }
enum Border3: SlideWindow { static var kw: Int { 3 }; static var clipped: Bool { true } }
enum Border5: SlideWindow { static var kw: Int { 5 }; static var clipped: Bool { true } }

/// One output row of channels `chLo..<vecC` and, when `tail` is not -1, `tail..<tail + 8`. Interior pixels
/// go four at a time, sharing each weight load (pixel groups outside, channel blocks inside, so the cache
/// lines of one pixel serve all its channel blocks), as do stride-1 3x3 and 5x5 border pixels (`slide`);
/// other border pixels and leftovers go one at a time (`pixel`), four channel blocks at once for
/// independent accumulators.
/// With AVX-512, sixteen channels per vector (two vectors at once where 32 remain; where 24 remain, a vector
/// of sixteen and one of eight at once: eight accumulators, where one after the other each had four and
/// waited on the multiply-add's latency; docs/engine-kernels.md has the runs), then eight. With AVX2, two
/// blocks of eight at once where sixteen remain, for the same reason (on Zen 3, with four accumulators, the
/// stride-1 layers ran at 37-43% of the peak and the stride-2 ones at 20-27%; docs/engine-kernels.md, "Depthwise
/// pairs on AVX2").
private struct RowKernel {
    let x: UnsafePointer<Float>, w: UnsafePointer<Float>, b: UnsafePointer<Float>
    let outRow: UnsafeMutablePointer<Float>
    /// Channels `chLo..<vecC` go in vectors, and `tail..<tail + 8` (repeating some of them) when `tail` is not -1.
    let c: Int, chLo: Int, vecC: Int, tail: Int, inW: Int, sw: Int, dh: Int, tapStep: Int, padLeft: Int
    /// The window's first input row, counted from the row `x` starts at (negative in the top padding);
    /// rows `kyLo..<kyHi` of the window are the ones inside the input.
    let iy0: Int, kyLo: Int, kyHi: Int
    /// The activation as a clamp.
    let lo: Float8, hi: Float8
    let bounds: (lo: Float, hi: Float)

    /// Interior pixels from `oxFirst` in groups of four while a whole group fits before `oxEnd`;
    /// returns the first pixel not done.
    @inline(__always)
    func interior(kw: Int, from oxFirst: Int, to oxEnd: Int) -> Int {
        let pixelStep: Int = sw &* c
        // Stride 1, no dilation, 3x3 or 5x5: the four pixels' windows overlap (see `slide`).
        let sliding = sw == 1 && tapStep == c && (kw == 3 || kw == 5)
        var ox = oxFirst
        while ox + 4 <= oxEnd {
            let inBase: Int = (iy0 &* inW &+ ox &* sw &- padLeft) &* c
            let o = outRow + ox &* c
            var ch = chLo
            if sliding {
                if kw == 3 { slide(Whole3.self, ox: ox, count: 4) } else { slide(Whole5.self, ox: ox, count: 4) }
                ch = vecC
            }
            // Whole windows, four pixels `pixelStep` apart: with AVX-512, two blocks of sixteen channels at once
            // (eight accumulators; four leave the FMA units waiting on the latency), or sixteen and eight where
            // 24 remain, then one of sixteen; with AVX2, two blocks of eight at once; then eight.
            #if HANDPOSE_AVX512
            while ch &+ 32 <= vecC {
                windowBlocks(Lanes16.self, Lanes16.self, ch: ch, pair: true, kw: kw, inBase: inBase, pixelStep: pixelStep, o: o)
                ch &+= 32
            }
            if vecC &- ch == 24 {
                windowBlocks(Lanes16.self, Lanes8.self, ch: ch, pair: true, kw: kw, inBase: inBase, pixelStep: pixelStep, o: o)
                ch = vecC
            }
            while ch &+ 16 <= vecC {
                windowBlocks(Lanes16.self, Lanes16.self, ch: ch, pair: false, kw: kw, inBase: inBase, pixelStep: pixelStep, o: o)
                ch &+= 16
            }
            #elseif HANDPOSE_AVX2
            while ch &+ 16 <= vecC {
                windowBlocks(Lanes8.self, Lanes8.self, ch: ch, pair: true, kw: kw, inBase: inBase, pixelStep: pixelStep, o: o)
                ch &+= 16
            }
            #endif
            while ch < vecC {
                windowBlocks(Lanes8.self, Lanes8.self, ch: ch, pair: false, kw: kw, inBase: inBase, pixelStep: pixelStep, o: o)
                ch &+= 8
            }
            if tail >= 0 && !sliding {
                windowBlocks(Lanes8.self, Lanes8.self, ch: tail, pair: false, kw: kw, inBase: inBase, pixelStep: pixelStep, o: o)
            }
            ox &+= 4
        }
        return ox
    }

    /// Four interior pixels `pixelStep` apart (whole windows), one block of channels from `ch` (with `pair`, a
    /// second right after it, of `M`'s width), the taps in `pixel`'s order.
    @_transparent
    func windowBlocks<L: Lanes, M: Lanes>(_: L.Type, _: M.Type, ch: Int, pair: Bool, kw: Int, inBase: Int, pixelStep: Int,
                                          o: UnsafeMutablePointer<Float>) {
        let ba = L.load(b + ch), be = pair ? M.load(b + (ch &+ L.width)) : M.zero
        var a = (ba, ba, ba, ba), e = (be, be, be, be)
        for ky in kyLo..<kyHi {
            var p = x + (inBase &+ ky &* dh &* inW &* c &+ ch)
            var q = w + (ky &* kw &* c &+ ch)
            for _ in 0..<kw {
                var wv = L.load(q)
                a.0 = L.fma(a.0, L.load(p), wv)
                a.1 = L.fma(a.1, L.load(p + pixelStep), wv)
                a.2 = L.fma(a.2, L.load(p + 2 &* pixelStep), wv)
                a.3 = L.fma(a.3, L.load(p + 3 &* pixelStep), wv)
                if pair {
                    let wm = M.load(q + L.width)
                    let p2 = p + L.width
                    e.0 = M.fma(e.0, M.load(p2), wm)
                    e.1 = M.fma(e.1, M.load(p2 + pixelStep), wm)
                    e.2 = M.fma(e.2, M.load(p2 + 2 &* pixelStep), wm)
                    e.3 = M.fma(e.3, M.load(p2 + 3 &* pixelStep), wm)
                }
                p += tapStep
                q += c
            }
        }
        put(L.self, a, o + ch, count: 4)
        if pair { put(M.self, e, o + (ch &+ L.width), count: 4) }
    }

    /// Stride 1, 3x3 or 5x5, output pixels `ox..<ox + count` (count 1-4), all channels `chLo..<vecC` and the
    /// tail block: the four pixels' windows overlap, so each kernel row loads its kw + 3 input vectors once and
    /// every one serves up to four pixels (9 loads a row instead of 15 for 3x3, 13 instead of 25 for 5x5). With
    /// `clipped` (border groups), columns outside the input read as zero: adding 0 x w leaves a sum as it
    /// is, so the results are those of `pixel` with clipped taps (but for a sum that is exactly -0 there,
    /// which the +0 product makes +0: only all-zero products and a bias of -0 give one). Pixels past `count`
    /// are computed and not stored. The sums are formed in the order `pixel` forms them, so the results are
    /// the same to the bit.
    /// With AVX-512, two blocks of sixteen channels at once (eight accumulators: four would leave the FMA
    /// units waiting on the latency), or sixteen and eight where 24 remain, then one of sixteen, then eight; with
    /// AVX2, two blocks of eight at once, then eight. The window is a type, so that each of the four
    /// kinds compiles on its own: with the width and the border flag as run-time values (the compiler keeps
    /// this function out of line), a test and a branch stood beside every load.
    func slide<W: SlideWindow>(_: W.Type, ox: Int, count: Int) {
        let kw = W.kw, clipped = W.clipped, count = clipped ? count : 4
        let ix0 = ox &- padLeft
        let o = outRow + ox &* c
        var ch = chLo
        #if HANDPOSE_AVX512
        while ch &+ 32 <= vecC {
            slideBlocks(Lanes16.self, Lanes16.self, ch: ch, pair: true, kw: kw, ix0: ix0, o: o, count: count, clipped: clipped)
            ch &+= 32
        }
        if vecC &- ch == 24 {
            slideBlocks(Lanes16.self, Lanes8.self, ch: ch, pair: true, kw: kw, ix0: ix0, o: o, count: count, clipped: clipped)
            ch = vecC
        }
        while ch &+ 16 <= vecC {
            slideBlocks(Lanes16.self, Lanes16.self, ch: ch, pair: false, kw: kw, ix0: ix0, o: o, count: count, clipped: clipped)
            ch &+= 16
        }
        #elseif HANDPOSE_AVX2
        while ch &+ 16 <= vecC {
            slideBlocks(Lanes8.self, Lanes8.self, ch: ch, pair: true, kw: kw, ix0: ix0, o: o, count: count, clipped: clipped)
            ch &+= 16
        }
        #endif
        while ch < vecC {
            slideBlocks(Lanes8.self, Lanes8.self, ch: ch, pair: false, kw: kw, ix0: ix0, o: o, count: count, clipped: clipped)
            ch &+= 8
        }
        if tail >= 0 { slideBlocks(Lanes8.self, Lanes8.self, ch: tail, pair: false, kw: kw, ix0: ix0, o: o, count: count, clipped: clipped) }
    }

    /// A border group of `slide` (count 1-4), kw 3 or 5.
    @inline(__always)
    func slideBorder(kw: Int, ox: Int, count: Int) {
        if kw == 3 { slide(Border3.self, ox: ox, count: count) } else { slide(Border5.self, ox: ox, count: count) }
    }

    /// One block of channels from `ch` (with `pair`, a second right after it, of `M`'s width) for `slide`.
    @_transparent
    func slideBlocks<L: Lanes, M: Lanes>(_: L.Type, _: M.Type, ch: Int, pair: Bool, kw: Int, ix0: Int, o: UnsafeMutablePointer<Float>,
                                         count: Int, clipped: Bool) {
        let ba = L.load(b + ch), be = pair ? M.load(b + (ch &+ L.width)) : M.zero
        var a = (ba, ba, ba, ba), e = (be, be, be, be)
        for ky in kyLo..<kyHi {
            let rowStart = x + ((iy0 &+ ky &* dh) &* inW &* c &+ ch)
            let q = w + (ky &* kw &* c &+ ch)
            slideRow(L.self, &a, weights: q, kw: kw, rowStart: rowStart, ix0: ix0, clipped: clipped)
            if pair { slideRow(M.self, &e, weights: q + L.width, kw: kw, rowStart: rowStart + L.width, ix0: ix0, clipped: clipped) }
        }
        put(L.self, a, o + ch, count: count)
        if pair { put(M.self, e, o + (ch &+ L.width), count: count) }
    }

    /// The first `count` of four pixels' sums, clamped, stored.
    @_transparent
    func put<L: Lanes>(_: L.Type, _ v: (L.V, L.V, L.V, L.V), _ out: UnsafeMutablePointer<Float>, count: Int) {
        L.store(v.0, clampedTo: bounds.lo, bounds.hi, at: out)
        if count > 1 { L.store(v.1, clampedTo: bounds.lo, bounds.hi, at: out + c) }
        if count > 2 { L.store(v.2, clampedTo: bounds.lo, bounds.hi, at: out + 2 &* c) }
        if count > 3 { L.store(v.3, clampedTo: bounds.lo, bounds.hi, at: out + 3 &* c) }
    }

    /// Input column `ix0 + j` of a row, zero outside the input when `clipped`.
    @_transparent
    func column<L: Lanes>(_: L.Type, _ j: Int, _ rowStart: UnsafePointer<Float>, ix0: Int, clipped: Bool) -> L.V {
        let ix = ix0 &+ j
        return !clipped || (ix >= 0 && ix < inW) ? L.load(rowStart + ix &* c) : L.zero
    }

    /// One kernel row of `slide` for one block of channels.
    @_transparent
    func slideRow<L: Lanes>(_: L.Type, _ a: inout (L.V, L.V, L.V, L.V), weights q: UnsafePointer<Float>, kw: Int,
                            rowStart: UnsafePointer<Float>, ix0: Int, clipped: Bool) {
        func column(_ j: Int) -> L.V { self.column(L.self, j, rowStart, ix0: ix0, clipped: clipped) }
        let i0 = column(0), i1 = column(1), i2 = column(2), i3 = column(3), i4 = column(4), i5 = column(5)
        var wv = L.load(q)
        a.0 = L.fma(a.0, i0, wv); a.1 = L.fma(a.1, i1, wv); a.2 = L.fma(a.2, i2, wv); a.3 = L.fma(a.3, i3, wv)
        wv = L.load(q + c)
        a.0 = L.fma(a.0, i1, wv); a.1 = L.fma(a.1, i2, wv); a.2 = L.fma(a.2, i3, wv); a.3 = L.fma(a.3, i4, wv)
        wv = L.load(q + 2 &* c)
        a.0 = L.fma(a.0, i2, wv); a.1 = L.fma(a.1, i3, wv); a.2 = L.fma(a.2, i4, wv); a.3 = L.fma(a.3, i5, wv)
        if kw == 5 {
            let i6 = column(6), i7 = column(7)
            wv = L.load(q + 3 &* c)
            a.0 = L.fma(a.0, i3, wv); a.1 = L.fma(a.1, i4, wv); a.2 = L.fma(a.2, i5, wv); a.3 = L.fma(a.3, i6, wv)
            wv = L.load(q + 4 &* c)
            a.0 = L.fma(a.0, i4, wv); a.1 = L.fma(a.1, i5, wv); a.2 = L.fma(a.2, i6, wv); a.3 = L.fma(a.3, i7, wv)
        }
    }

    /// Output pixel `ox` from kernel columns `taps` (the ones inside the input).
    @inline(__always)
    func pixel(_ ox: Int, taps: Range<Int>, kw: Int) {
        let inBase: Int = (iy0 &* inW &+ ox &* sw &- padLeft) &* c
        let o = outRow + ox &* c
        var ch = chLo
        #if HANDPOSE_AVX512
        while ch &+ 64 <= vecC {
            var a0 = load16(b + ch), a1 = load16(b + (ch &+ 16)), a2 = load16(b + (ch &+ 32)), a3 = load16(b + (ch &+ 48))
            for ky in kyLo..<kyHi {
                let inRow: Int = inBase &+ ky &* dh &* inW &* c &+ ch, wRow: Int = ky &* kw &* c &+ ch
                for kx in taps {
                    let p = x + (inRow &+ kx &* tapStep), q = w + (wRow &+ kx &* c)
                    a0 = fma16(a0, load16(p), load16(q))
                    a1 = fma16(a1, load16(p + 16), load16(q + 16))
                    a2 = fma16(a2, load16(p + 32), load16(q + 32))
                    a3 = fma16(a3, load16(p + 48), load16(q + 48))
                }
            }
            store16(clamp16(a0, bounds.lo, bounds.hi), o + ch)
            store16(clamp16(a1, bounds.lo, bounds.hi), o + (ch &+ 16))
            store16(clamp16(a2, bounds.lo, bounds.hi), o + (ch &+ 32))
            store16(clamp16(a3, bounds.lo, bounds.hi), o + (ch &+ 48))
            ch &+= 64
        }
        #endif
        while ch &+ 32 <= vecC {
            var a0 = load8(b + ch), a1 = load8(b + (ch &+ 8)), a2 = load8(b + (ch &+ 16)), a3 = load8(b + (ch &+ 24))
            for ky in kyLo..<kyHi {
                let inRow: Int = inBase &+ ky &* dh &* inW &* c &+ ch, wRow: Int = ky &* kw &* c &+ ch
                for kx in taps {
                    let p = x + (inRow &+ kx &* tapStep), q = w + (wRow &+ kx &* c)
                    a0 = fma8(a0, load8(p), load8(q))
                    a1 = fma8(a1, load8(p + 8), load8(q + 8))
                    a2 = fma8(a2, load8(p + 16), load8(q + 16))
                    a3 = fma8(a3, load8(p + 24), load8(q + 24))
                }
            }
            store8(clamp8(a0, lo, hi), o + ch)
            store8(clamp8(a1, lo, hi), o + (ch &+ 8))
            store8(clamp8(a2, lo, hi), o + (ch &+ 16))
            store8(clamp8(a3, lo, hi), o + (ch &+ 24))
            ch &+= 32
        }
        @inline(__always) func block8(_ ch: Int) {
            var acc = load8(b + ch)
            for ky in kyLo..<kyHi {
                let inRow: Int = inBase &+ ky &* dh &* inW &* c &+ ch, wRow: Int = ky &* kw &* c &+ ch
                for kx in taps {
                    acc = fma8(acc, load8(x + (inRow &+ kx &* tapStep)), load8(w + (wRow &+ kx &* c)))
                }
            }
            store8(clamp8(acc, lo, hi), o + ch)
        }
        while ch < vecC {
            block8(ch)
            ch &+= 8
        }
        if tail >= 0 { block8(tail) }
    }
}
