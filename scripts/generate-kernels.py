#!/usr/bin/env python3
"""Writes the engine's micro-kernels, Sources/KernelsBaseline/MicroKernels.generated.swift, from one
template per strategy with the tile as parameters (as XNNPACK's src/f32-gemm/*.c.in are expanded).

    scripts/generate-kernels.py            write the file
    scripts/generate-kernels.py --check    exit 1 when the committed file differs from what this writes

Why a generator: a tile keeps its accumulators in registers only when each is a variable of its own
(an array of them is memory; a tuple cannot be indexed in a loop), so every tile shape is straight-line
code. Swift generics cannot vary the number of variables, and macros would need a compiler plug-in
package; a short Python script writing plain Swift keeps the output readable and reviewable. The
committed output is what the compiler sees; MicroKernelTests runs `--check`, so the two cannot drift.

Strategies:
- gemm (broadcast): rows x columns of C = A * W. Each step of k loads columns/lanes weight vectors and
  broadcasts one A value per row against them; the accumulators start at the bias. Rows past `rowCount`
  repeat the last valid row and are not stored. A tile of 32 columns spans two 16-column panels, the
  second of which must exist (`gemmTile` refuses it otherwise).
- direct (broadcast): `pixels` output pixels of one row of a convolution with few input channels, read
  in place: every tap (ky, kx, ci) broadcasts one input value per pixel against the tap's weight
  vectors. The sums are formed in the packed weights' k order, as the gemm tiles form them over
  im2col patches, so both give the same floats.
- dot: `pixels` output pixels of a convolution into one channel (the pose landmark model's
  segmentation head: 3x3, 8 channels into 1, where a 16-column gemm panel would compute 15 zero columns).
  Each pixel's products go into 8 lanes by input channel (a multiple of 8), tap after tap; the lanes are
  then summed in a fixed tree, ((0+4)+(2+6))+((1+5)+(3+7)), and the bias added last. The results of
  the pixels form one vector, stored contiguously (one output channel).
In gemm and direct tiles every sum is bias + products in k order, one fused multiply-add each (a + b * c
without FMA), so a tile of 16-wide vectors gives the 8-wide tiles' results bit for bit; dot tiles are
8-wide in every variant.
"""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "Sources/KernelsBaseline/MicroKernels.generated.swift"
TABLE = ROOT / "Sources/Kernels/MicroKernelTable.generated.swift"

AVX512 = "HANDPOSE_AVX512"
AVX2_ONLY = "HANDPOSE_AVX2"
FMA_X86 = "HANDPOSE_AVX512 || HANDPOSE_AVX2"

# name, rows, columns, lanes, prefetch of the next panel, inlining, the builds that have it (None: all)
GEMM = [
    ("gemm6x16", 6, 16, 8, True, "always", None),
    ("gemm6x8", 6, 8, 8, False, "never", None),
    ("gemm2x16", 2, 16, 8, False, "never", None),
    ("gemm12x16", 12, 16, 16, True, "always", AVX512),
    ("gemm6x32", 6, 32, 16, True, "always", AVX512),
]
# name, pixels (every build has them)
DOT = [("dot8", 8)]
# name, pixels, columns, lanes, the builds that have it
DIRECT = [
    ("direct8x8", 8, 8, 8, FMA_X86),
    ("direct8x16", 8, 16, 16, AVX512),
    ("direct6x16", 6, 16, 8, AVX2_ONLY),
    ("direct4x32", 4, 32, 16, AVX512),
    ("direct8x32", 8, 32, 16, AVX512),
    ("direct4x24", 4, 24, 8, FMA_X86),
    ("direct2x32", 2, 32, 8, AVX2_ONLY),
]


def vec(lanes):
    return "Float8" if lanes == 8 else "SIMD16<Float>"


def load(lanes):
    return "load8" if lanes == 8 else "load16"


def fma(lanes):
    return "fma8" if lanes == 8 else "fma16"


def halves8(name, lanes):
    """The 8-wide halves of an accumulator, as Swift expressions."""
    return [name] if lanes == 8 else [f"halves({name}).0", f"halves({name}).1"]


def store_panel(halves, row, col, width, out):
    """Stores the 8-wide vectors `halves` (one or two) of one row of one 16-column panel, `width` of its
    columns kept: full panels and 8-wide ones straight-line, others through the partial store."""
    lo = halves[0]
    hi = halves[1] if len(halves) > 1 else "Float8()"
    full = f"Tile.storeFull({lo}, {hi}, row: {row}, col: {col}, c: {out}, ldc: ldc, epilogue: epilogue)"
    eight = f"Tile.storeEight({lo}, row: {row}, col: {col}, c: {out}, ldc: ldc, epilogue: epilogue)"
    partial = f"Tile.store({lo}, {hi}, row: {row}, col: {col}, width: {width}, c: {out}, ldc: ldc, epilogue: epilogue)"
    return {"full": full, "eight": eight, "partial": partial}


def gemm(name, rows, columns, lanes, prefetch, inline, _):
    vectors = columns // lanes
    panels = (columns + 15) // 16
    acc = lambda r, v: f"c{r}_{v}"
    def weight_at(v):
        """Where vector v's weights lie in a step: its panel's stride (pk floats) and its offset in the panel."""
        panel, offset = divmod(v * lanes, 16)
        if panel == 0:
            return f"wp + {offset}"
        stride = "pk" if panel == 1 else f"{panel} &* pk"
        return f"wp + {stride}" if offset == 0 else f"wp + ({stride} &+ {offset})"
    out = []
    w = out.append
    w(f"    /// {rows} rows x {columns} columns, {lanes}-wide vectors: {rows * vectors} accumulators, {vectors} weight load{'s' if vectors > 1 else ''} and")
    w(f"    /// {rows} broadcasts a step{'; the next panel fetched a line a step' if prefetch and panels == 1 else '; the next two panels fetched a line each a step' if prefetch else ''}.")
    w("    @inline(__always)" if inline == "always" else "    @inline(never)")
    w(f"    static func {name}(a: UnsafePointer<Float>, lda: Int, row: Int, rowCount: Int, w: PackedWeights, panel: Int,")
    w(f"                       next: UnsafePointer<Float>, c: UnsafeMutablePointer<Float>, ldc: Int, epilogue: VectorEpilogue) {{")
    w(f"        let k = w.k, col = panel &* 16, last = rowCount &- 1" + (", pk = k &* 16" if panels > 1 else ""))
    if rows > 1:
        w("        let " + ", ".join(f"o{r} = smaller({r}, last) &* lda" for r in range(1, rows)))
    w("        let " + ", ".join(f"b{v} = {load(lanes)}(w.bias.pointer + (col &+ {v * lanes}))" for v in range(vectors)))
    for r in range(rows):
        w("        var " + ", ".join(f"{acc(r, v)} = b{v}" for v in range(vectors)))
    w("        var wp = UnsafePointer(w.data.pointer + panel &* k &* 16), ap = a + row &* lda")
    if prefetch:
        w("        var ahead = next")
    w("        for _ in 0..<k {")
    w("            let " + ", ".join(f"w{v} = {load(lanes)}({weight_at(v)})" for v in range(vectors)))
    if prefetch:
        w("            handpose_prefetch(ahead)")
        for pn in range(1, panels):
            w(f"            handpose_prefetch(ahead + {'pk' if pn == 1 else f'{pn} &* pk'})")
        w("            ahead += 16")
    for r in range(rows):
        index = "0" if r == 0 else f"o{r}"
        line = f"v = {vec(lanes)}(repeating: ap[{index}]); " + "; ".join(f"{acc(r, v)} = {fma(lanes)}({acc(r, v)}, v, w{v})" for v in range(vectors))
        w(f"            {'var ' if r == 0 else ''}{line}")
    w("            wp += 16")
    w("            ap += 1")
    w("        }")
    w(f"        let width = smaller({columns}, w.n &- col)")
    # 8-wide halves of each row's accumulators, by 16-column panel
    def panel_halves(r):
        hs = []
        for v in range(vectors):
            hs += halves8(acc(r, v), lanes)
        return [hs[j:j + 2] for j in range(0, len(hs), 2)]
    full_kind = "full" if columns >= 16 else "eight"
    w(f"        if width == {columns} && rowCount == {rows} {{")
    for r in range(rows):
        if lanes == 16:
            for v in range(vectors):
                column = "col" if v == 0 else f"col &+ {v * 16}"
                w(f"            store16(epilogue.apply({acc(r, v)}, row: row &+ {r}, column: {column}, ldc: ldc), c + ((row &+ {r}) &* ldc &+ {column}))")
        else:
            w("            " + store_panel(panel_halves(r)[0], f"row &+ {r}", "col", "width", "c")[full_kind])
    w("            return")
    w("        }")
    if lanes == 16 and columns == 32:
        # A second panel eight wide (24 outputs, or 88's last pair): straight-line too, where the partial
        # store's call for every row spilled the accumulators still to be stored.
        w(f"        if width == 24 && rowCount == {rows} {{")
        for r in range(rows):
            w(f"            store16(epilogue.apply({acc(r, 0)}, row: row &+ {r}, column: col, ldc: ldc), c + ((row &+ {r}) &* ldc &+ col))")
            w("            " + store_panel([f"halves({acc(r, 1)}).0"], f"row &+ {r}", "col &+ 16", "8", "c")["eight"])
        w("            return")
        w("        }")
    for pn in range(panels):
        column = "col" if pn == 0 else f"col &+ {pn * 16}"
        width = "width" if panels == 1 else ("smaller(width, 16)" if pn == 0 else f"width &- {pn * 16}")
        stores = []
        for r in range(rows):
            st = store_panel(panel_halves(r)[pn], f"row &+ {r}", column, width, "c")["partial"]
            stores.append(st if r == 0 else f"if rowCount > {r} {{ {st} }}")
        if pn == 0:
            for st in stores:
                w(f"        {st}")
        else:
            w(f"        if width > {pn * 16} {{")
            for st in stores:
                w(f"            {st}")
            w("        }")
    w("    }")
    return out


def direct(name, pixels, columns, lanes, _):
    vectors = columns // lanes
    acc = lambda p, v: f"c{p}_{v}"
    # where vector v's weights lie: panel (v * lanes) // 16, offset (v * lanes) % 16
    def weight_at(v):
        panel, offset = divmod(v * lanes, 16)
        parts = (["panel"] if panel else []) + ([str(offset)] if offset else [])
        return "q" if not parts else "q + (" + " &+ ".join(parts) + ")"
    out = []
    w = out.append
    w(f"    /// {pixels} pixels x {columns} output channels, {lanes}-wide vectors: {pixels * vectors} accumulators; each broadcast feeds {vectors} FMA{'s' if vectors > 1 else ''}.")
    w("    /// Every tap of the pixels lies inside the input horizontally; rows outside it are not in `kys`.")
    w("    @inline(__always)")
    w(f"    static func {name}(_ conv: Conv2D, x: UnsafePointer<Float>, y: UnsafeMutablePointer<Float>, epilogue: VectorEpilogue,")
    w("                       pixel p: Int, ox: Int, iy0: Int, ky kys: Range<Int>, kw: Int, cin: Int) {")
    w("        let window = conv.window, inW = conv.input.w" + (", panel = conv.weights.k &* 16" if columns > 16 else ""))
    w("        let wp = UnsafePointer(conv.weights.data.pointer), bias = UnsafePointer(conv.weights.bias.pointer)")
    w("        // Wrapping index arithmetic and advancing pointers: checked arithmetic put an overflow test beside")
    w("        // every index of the inner loop (kw and cin are constants only where the caller's literals inline).")
    w("        let step = window.sw &* cin, tapStep = window.dw &* cin, ix0 = ox &* window.sw &- window.padLeft")
    if pixels > 2:
        w("        let " + ", ".join(f"s{i} = step &* {i}" for i in range(2, pixels)))
    w("        let " + ", ".join(f"b{v} = {load(lanes)}(bias + {v * lanes})" for v in range(vectors)))
    for i in range(pixels):
        w("        var " + ", ".join(f"{acc(i, v)} = b{v}" for v in range(vectors)))
    w("        for ky in kys {")
    w("            var tap = x + ((iy0 &+ ky &* window.dh) &* inW &+ ix0) &* cin")
    w("            var q = wp + (ky &* kw &* cin) &* 16")
    w("            for _ in 0..<kw {")
    w("                for ci in 0..<cin {")
    w("                    let " + ", ".join(f"w{v} = {load(lanes)}({weight_at(v)})" for v in range(vectors)))
    for i in range(pixels):
        index = "ci" if i == 0 else ("step &+ ci" if i == 1 else f"s{i} &+ ci")
        line = f"v = {vec(lanes)}(repeating: tap[{index}]); " + "; ".join(f"{acc(i, v)} = {fma(lanes)}({acc(i, v)}, v, w{v})" for v in range(vectors))
        w(f"                    {'var ' if i == 0 else ''}{line}")
    w("                    q += 16")
    w("                }")
    w("                tap += tapStep")
    w("            }")
    w("        }")
    w("        let ldc = conv.output.c, n = conv.weights.n")
    # each pixel's 8-wide halves, split by panel
    def panels_of(i):
        hs = []
        for v in range(vectors):
            hs += halves8(acc(i, v), lanes)
        return [hs[j:j + 2] for j in range(0, len(hs), 2)]
    npanels = (columns + 15) // 16
    for pn in range(npanels):
        last_panel = pn == npanels - 1
        col = pn * 16
        width = "n" if col == 0 else f"n &- {col}"
        if not last_panel:
            for i in range(pixels):
                w("        " + store_panel(panels_of(i)[pn], f"p &+ {i}", str(col), width, "y")["full"])
            continue
        w(f"        let width{pn} = {width}")
        kinds = [("full", 16)] if len(panels_of(0)[pn]) > 1 else []
        kinds.append(("eight", 8))
        first = True
        for kind, wd in kinds:
            w(f"        {'if' if first else '} else if'} width{pn} == {wd} {{")
            first = False
            for i in range(pixels):
                w("            " + store_panel(panels_of(i)[pn], f"p &+ {i}", str(col), f"width{pn}", "y")[kind])
        w("        } else {")
        for i in range(pixels):
            w("            " + store_panel(panels_of(i)[pn], f"p &+ {i}", str(col), f"width{pn}", "y")["partial"])
        w("        }")
    w("    }")
    return out


def dot(name, pixels):
    out = []
    w = out.append
    w(f"    /// {pixels} pixels of a convolution into one channel: {pixels} accumulators of 8 input channels; each tap's")
    w("    /// weight vector feeds one FMA a pixel. Every tap of the pixels lies inside the input horizontally; rows outside")
    w("    /// it are not in `kys`. `cin` is a multiple of 8.")
    w("    @inline(__always)")
    w(f"    static func {name}(_ conv: Conv2D, taps: UnsafePointer<Float>, x: UnsafePointer<Float>, y: UnsafeMutablePointer<Float>,")
    w("                       epilogue: VectorEpilogue, pixel p: Int, ox: Int, iy0: Int, ky kys: Range<Int>, kw: Int, cin: Int) {")
    w("        let window = conv.window, inW = conv.input.w")
    w("        let step = window.sw &* cin, tapStep = window.dw &* cin, ix0 = ox &* window.sw &- window.padLeft")
    if pixels > 2:
        w("        let " + ", ".join(f"s{i} = step &* {i}" for i in range(2, pixels)))
    w("        var " + ", ".join(f"c{i} = Float8()" for i in range(pixels)))
    w("        for ky in kys {")
    w("            var tap = x + ((iy0 &+ ky &* window.dh) &* inW &+ ix0) &* cin")
    w("            var q = taps + ky &* kw &* cin")
    w("            for _ in 0..<kw {")
    w("                var ci = 0")
    w("                while ci < cin {")
    w("                    let wv = load8(q + ci)")
    for i in range(pixels):
        off = "ci" if i == 0 else ("step &+ ci" if i == 1 else f"s{i} &+ ci")
        w(f"                    c{i} = fma8(c{i}, load8(tap + ({off})), wv)")
    w("                    ci &+= 8")
    w("                }")
    w("                q += cin")
    w("                tap += tapStep")
    w("            }")
    w("        }")
    assert pixels == 8, "the lanes of eight pixels are summed as one vector"
    w("        let sums = Tile.lanes(" + ", ".join(f"c{i}" for i in range(pixels)) + ")")
    w("        Tile.storeOneChannel(sums + Float8(repeating: conv.weights.bias.pointer[0]), pixel: p, y: y, epilogue: epilogue)")
    w("    }")
    return out


def guarded(condition, lines):
    return ([f"    #if {condition}"] + lines + ["    #endif"]) if condition else lines


def main():
    lines = [
        "// Generated by scripts/generate-kernels.py from its tile tables; edit the script, not this file.",
        "// MicroKernelTests checks that this file is what the script writes.",
        "import CPrefetch",
        "import Kernels",
        "",
        "/// The matrix-product tiles (`Gemm.run` chooses them).",
        "enum GemmTiles {",
    ]
    for t in GEMM:
        lines += guarded(t[6], gemm(*t)) + [""]
    lines[-1] = "}"
    lines += ["", "/// The one-output-channel convolution tiles (`DotConv.run` chooses them).", "enum DotTiles {"]
    for t in DOT:
        lines += dot(*t) + [""]
    lines[-1] = "}"
    lines += ["", "#if HANDPOSE_AVX512 || HANDPOSE_AVX2", "/// The direct-convolution tiles (`DirectConv.run` chooses them).", "enum DirectTiles {"]
    for t in DIRECT:
        cond = t[4] if t[4] != FMA_X86 else None
        if cond == AVX2_ONLY:
            cond = "!HANDPOSE_AVX512"
        lines += guarded(cond, direct(*t)) + [""]
    lines[-1] = "}"
    lines += ["#endif", ""]
    # The table the tester and `bench kernels` read, in Kernels (an array built in a variant module would
    # emit standard-library specialisations under names every variant shares: KernelVariantBuildTests).
    def entries(isa):
        has = {"baseline": lambda c: c is None, "avx2": lambda c: c in (None, FMA_X86, AVX2_ONLY),
               "avx512": lambda c: c in (None, FMA_X86, AVX512)}[isa]
        rows = [f'MicroKernel(name: "{t[0]}", strategy: .gemm, rows: {t[1]}, columns: {t[2]}, lanes: {t[3]})' for t in GEMM if has(t[6])]
        rows += [f'MicroKernel(name: "{t[0]}", strategy: .direct, rows: {t[1]}, columns: {t[2]}, lanes: {t[3]})' for t in DIRECT if isa != "baseline" and has(t[4])]
        rows += [f'MicroKernel(name: "{t[0]}", strategy: .dot, rows: {t[1]}, columns: 1, lanes: 8)' for t in DOT]
        return rows
    table = [
        "// Generated by scripts/generate-kernels.py from its tile tables; edit the script, not this file.",
        "",
        "extension MicroKernel {",
        "    /// The micro-kernels of the variant built for `isa`, as Sources/KernelsBaseline/MicroKernels.generated.swift defines them.",
        "    public static func table(_ isa: ISA) -> [MicroKernel] {",
        "        switch isa {",
    ]
    for isa in ["baseline", "avx2", "avx512"]:
        table += [f"        case .{isa}: return ["] + [f"            {e}," for e in entries(isa)] + ["        ]"]
    table += ["        }", "    }", "}", ""]
    # Running one tile by name: the tester's and the benchmark's entry point.
    lines += [
        "/// Runs the gemm tile `name` on rows `row..<row + rowCount` of panel `panel`; false when this build has no such tile",
        "/// or it has fewer rows.",
        "func gemmTile(_ name: String, a: UnsafePointer<Float>, lda: Int, row: Int, rowCount: Int, w: PackedWeights, panel: Int,",
        "              c: UnsafeMutablePointer<Float>, ldc: Int, epilogue: VectorEpilogue) -> Bool {",
        "    let next = UnsafePointer(w.data.pointer)",
        "    switch name {",
    ]
    for (name, rows, columns, lanes, _, _, cond) in GEMM:
        spans = f" && panel &+ {columns // 16} <= w.panels" if columns > 16 else ""
        case = [f"    case \"{name}\" where rowCount >= 1 && rowCount <= {rows}{spans}:",
                f"        GemmTiles.{name}(a: a, lda: lda, row: row, rowCount: rowCount, w: w, panel: panel, next: next, c: c, ldc: ldc, epilogue: epilogue)"]
        lines += ([f"    #if {cond}"] + case + ["    #endif"]) if cond else case
    lines += ["    default: return false", "    }", "    return true", "}", ""]
    lines += [
        "/// Runs the dot tile `name` on the pixels from `pixel` (all in one output row, every tap inside the input",
        "/// horizontally); false when this build has no such tile or `conv` is not one it covers.",
        "func dotTile(_ name: String, conv: Conv2D, x: UnsafePointer<Float>, y: UnsafeMutablePointer<Float>, epilogue: VectorEpilogue,",
        "             pixel: Int, ox: Int, iy0: Int, ky: Range<Int>) -> Bool {",
        "    guard let taps = conv.taps else { return false }",
        "    let (kw, cin) = (conv.window.kw, conv.input.c)",
        "    switch name {",
    ]
    for (name, pixels) in DOT:
        lines += [f"    case \"{name}\": DotTiles.{name}(conv, taps: taps.pointer, x: x, y: y, epilogue: epilogue, pixel: pixel, ox: ox, iy0: iy0, ky: ky, kw: kw, cin: cin)"]
    lines += ["    default: return false", "    }", "    return true", "}", ""]
    lines += [
        "/// Runs the direct tile `name` on the pixels from `pixel` (all in one output row, every tap inside the input",
        "/// horizontally); false when this build has no such tile or `conv` has more output channels than it computes.",
        "func directTile(_ name: String, conv: Conv2D, x: UnsafePointer<Float>, y: UnsafeMutablePointer<Float>, epilogue: VectorEpilogue,",
        "                pixel: Int, ox: Int, iy0: Int, ky: Range<Int>) -> Bool {",
        "    #if HANDPOSE_AVX512 || HANDPOSE_AVX2",
        "    let (kw, cin) = (conv.window.kw, conv.input.c)",
        "    switch name {",
    ]
    for (name, pixels, columns, lanes, cond) in DIRECT:
        # A tile wider than one panel reads the second panel, which exists only past 16 outputs.
        guard = f"conv.weights.n > 16 && conv.weights.n <= {columns}" if columns > 16 else f"conv.weights.n <= {columns}"
        case = [f"    case \"{name}\" where {guard}:",
                f"        DirectTiles.{name}(conv, x: x, y: y, epilogue: epilogue, pixel: pixel, ox: ox, iy0: iy0, ky: ky, kw: kw, cin: cin)"]
        c = None if cond == FMA_X86 else ("HANDPOSE_AVX512" if cond == AVX512 else "!HANDPOSE_AVX512")
        lines += ([f"    #if {c}"] + case + ["    #endif"]) if c else case
    lines += ["    default: return false", "    }", "    return true", "    #else", "    return false", "    #endif", "}", ""]
    outputs = {OUT: "\n".join(lines), TABLE: "\n".join(table)}
    if sys.argv[1:] == ["--check"]:
        stale = [str(path) for path, text in outputs.items() if not path.exists() or path.read_text() != text]
        if stale:
            print(f"{', '.join(stale)}: not what scripts/generate-kernels.py writes: run it and commit the result", file=sys.stderr)
            sys.exit(1)
        return
    for path, text in outputs.items():
        path.write_text(text)


if __name__ == "__main__":
    main()
