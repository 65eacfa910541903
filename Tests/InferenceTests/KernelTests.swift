import Foundation
import XCTest
import Inference

/// Every kernel of every variant this machine runs (baseline, AVX2, AVX-512; the AVX-512 code built for
/// AVX2 where the CPU has AVX2 only) against a plain scalar loop written from TFLite's definition, on
/// seeded random shapes.
final class KernelTests: XCTestCase {
    /// The kernel sets this CPU can execute, whatever HANDPOSE_MAX_ISA says, and the AVX-512 code built
    /// for AVX2 where the CPU has no AVX-512 (`TestedKernels`); the variants not run are named as skipped.
    static let variants: [any KernelSet] = {
        let skipped = ISA.allCases.filter { !KernelSelection.runnable.contains($0) }
        if !skipped.isEmpty { print("kernel variants not run as built (this CPU cannot run them): \(skipped.map(\.rawValue).joined(separator: ", "))") }
        print("kernel sets tested: \(TestedKernels.all.map(TestedKernels.label).joined(separator: ", "))")
        return TestedKernels.all
    }()

    /// The variants tested are the ones the kernel's own report of the CPU (/proc/cpuinfo) allows, so a
    /// detection that failed quietly (everything on the baseline) fails here.
    func testEveryVariantThisCPURunsIsTested() throws {
        #if arch(x86_64) && os(Linux)
        let cpuinfo = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
        guard let line = cpuinfo.split(separator: "\n").first(where: { $0.hasPrefix("flags") }) else {
            print("SKIP: /proc/cpuinfo has no flags line")
            throw XCTSkip("no CPU flags")
        }
        let flags = Set(line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == ":" }).map(String.init))
        var expected: [ISA] = [.baseline]
        if flags.isSuperset(of: ["avx", "avx2", "fma", "bmi1", "bmi2", "f16c", "abm", "movbe"]) {
            expected.append(.avx2)
            if flags.isSuperset(of: ["avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"]) { expected.append(.avx512) }
        }
        XCTAssertEqual(KernelSelection.runnable, expected, "flags: \(flags.sorted().joined(separator: " "))")
        XCTAssertEqual(Self.variants.map(TestedKernels.label), TestedKernels.expectedLabels(runnable: expected))
        #endif
    }

    /// What CPUID says (CPUDescription) is what the kernel says: /proc/cpuinfo's vendor, family, model,
    /// stepping and model name, and sysfs's cache sizes for cpu0, where they are there to read.
    func testTheCPUDescriptionIsTheKernelsReport() throws {
        #if arch(x86_64) && os(Linux)
        let cpuinfo = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
        var fields: [String: String] = [:]
        for line in cpuinfo.split(separator: "\n") {
            if line.isEmpty { break }
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2, fields[parts[0]] == nil { fields[parts[0]] = parts[1] }
        }
        let host = CPUDescription.host
        XCTAssertEqual(host.vendor, fields["vendor_id"])
        XCTAssertEqual("\(host.family)", fields["cpu family"])
        XCTAssertEqual("\(host.model)", fields["model"])
        XCTAssertEqual("\(host.stepping)", fields["stepping"])
        XCTAssertEqual(host.brand, fields["model name"])
        let flags = Set((cpuinfo.split(separator: "\n").first { $0.hasPrefix("flags") } ?? "").split(separator: " ").map(String.init))
        XCTAssertEqual(host.x86_64v4, flags.isSuperset(of: ["avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"]))
        XCTAssertEqual(host.x86_64v3, flags.isSuperset(of: ["avx", "avx2", "fma", "bmi1", "bmi2", "f16c", "abm", "movbe"]))
        var compared = 0
        for index in 0..<8 {
            let dir = "/sys/devices/system/cpu/cpu0/cache/index\(index)"
            guard let level = try? String(contentsOfFile: dir + "/level", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines),
                  let type = try? String(contentsOfFile: dir + "/type", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines),
                  let size = try? String(contentsOfFile: dir + "/size", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines),
                  type != "Instruction", size.hasSuffix("K"), let kib = Int(size.dropLast()) else { continue }
            let ours = level == "1" ? host.l1dKiB : (level == "2" ? host.l2KiB : host.l3KiB)
            XCTAssertEqual(ours, kib, "L\(level) \(type) cache: CPUID says \(ours) KiB, sysfs \(size)")
            compared += 1
        }
        print("CPU: \(host.summary); caches compared with sysfs: \(compared)")
        #endif
    }

    func act(_ v: Float, _ a: Activation) -> Float {
        switch a {
        case .none, .tanh: return v
        case .relu: return max(v, 0)
        case .relu6: return min(max(v, 0), 6)
        case .reluN1To1: return min(max(v, -1), 1)
        }
    }

    /// TFLite's convolution, one output at a time, padding read as zero.
    func referenceConv(_ x: [Float], _ s: HWC, _ w: [Float], _ b: [Float], cout: Int, _ win: Window, _ a: Activation) -> [Float] {
        var y = [Float](repeating: 0, count: win.outH * win.outW * cout)
        for oy in 0..<win.outH { for ox in 0..<win.outW { for co in 0..<cout {
            var acc = b[co]
            for ky in 0..<win.kh { for kx in 0..<win.kw {
                let iy = oy * win.sh - win.padTop + ky * win.dh, ix = ox * win.sw - win.padLeft + kx * win.dw
                guard iy >= 0, iy < s.h, ix >= 0, ix < s.w else { continue }
                for ci in 0..<s.c { acc += x[(iy * s.w + ix) * s.c + ci] * w[((co * win.kh + ky) * win.kw + kx) * s.c + ci] }
            } }
            y[(oy * win.outW + ox) * cout + co] = act(acc, a)
        } } }
        return y
    }

    /// Outputs start as NaN, so a value never written stays NaN: `max()` skips NaN, hence the separate check.
    func assertClose(_ a: [Float], _ b: [Float], _ message: String, tolerance: Float = 1e-4) {
        XCTAssertEqual(a.count, b.count, message)
        let unwritten = zip(a, b).filter { $0.isNaN && !$1.isNaN }.count
        XCTAssertEqual(unwritten, 0, "\(message): \(unwritten) outputs not written")
        let diff = zip(a, b).map { abs($0 - $1) }.max() ?? 0
        XCTAssertLessThan(diff, tolerance, message)
    }

    /// Convolutions of few input channels read in place (`DirectConv`) form each sum in the order the
    /// im2col + GEMM path does, so both give the same floats, in every variant and tiling; cases cover 1 to 4
    /// input channels, and 5 to 8 into at most 8, up to 8 and 17 to 32 outputs (partial panels, the eight-pixel
    /// groups, AVX2's four- and two-pixel groups, rows narrower than a group), strides, dilation and row ends.
    func testDirectConvEqualsIm2colAndGemmExactly() {
        var rng = SeededRandom(17)
        let cases: [(HWC, Int, Int, Int, Int, Padding)] = [
            (HWC(12, 19, 3), 3, 24, 2, 1, .same), (HWC(10, 21, 3), 5, 32, 2, 1, .same), (HWC(9, 14, 1), 3, 17, 1, 1, .same),
            (HWC(9, 15, 2), 5, 27, 1, 1, .same), (HWC(11, 13, 4), 3, 31, 2, 1, .valid), (HWC(13, 17, 3), 3, 20, 1, 2, .same),
            (HWC(8, 23, 3), 5, 25, 2, 1, .same),
            // At most eight outputs (hand_recrop's first layer: 3x3/2, RGB to 8), eight pixels a group.
            (HWC(12, 29, 3), 3, 8, 2, 1, .same), (HWC(9, 19, 3), 3, 5, 1, 1, .same), (HWC(7, 12, 2), 3, 8, 1, 1, .valid),
            // 9 to 16 outputs (face_landmark's first layer: 3x3/2, RGB to 16).
            (HWC(12, 31, 3), 3, 16, 2, 1, .same), (HWC(9, 20, 4), 3, 11, 1, 1, .same),
            // Eight channels into eight (hand_recrop's 2x2/2 layers) and six into seven.
            (HWC(16, 38, 8), 2, 8, 2, 1, .valid), (HWC(9, 11, 6), 3, 7, 1, 1, .same),
            // 17 to 32 outputs in rows of 5 and 9 pixels (5 and 7 of them inside), narrower than the `wide`
            // tiling's eight-pixel group, so every pixel goes alone; and a row of 40, five groups and a last one
            // moved back.
            (HWC(6, 9, 3), 3, 24, 2, 1, .same), (HWC(7, 9, 3), 3, 30, 1, 1, .same), (HWC(5, 40, 3), 3, 24, 1, 1, .same),
        ]
        for (i, (s, k, cout, stride, dilation, padding)) in cases.enumerated() {
            let win = Window(input: s, kh: k, kw: k, sh: stride, sw: stride, dh: dilation, dw: dilation, padding: padding)
            let x = rng.floats(s.count), w = rng.floats(cout * k * k * s.c), b = rng.floats(cout)
            let conv = Conv2D(input: s, outputChannels: cout, window: win, weights: w, bias: b)
            // The patches, in the packed weights' k order (ky, kx, ci), zeros outside the input.
            let kk = k * k * s.c, pixels = win.outH * win.outW
            var patches = [Float](repeating: 0, count: pixels * kk)
            for oy in 0..<win.outH { for ox in 0..<win.outW { for ky in 0..<k { for kx in 0..<k {
                let iy = oy * stride - win.padTop + ky * dilation, ix = ox * stride - win.padLeft + kx * dilation
                guard iy >= 0, iy < s.h, ix >= 0, ix < s.w else { continue }
                for ci in 0..<s.c { patches[(oy * win.outW + ox) * kk + (ky * k + kx) * s.c + ci] = x[(iy * s.w + ix) * s.c + ci] }
            } } } }
            for kernels in Self.variants {
                var direct = [Float](repeating: .nan, count: conv.output.count), gemm = direct
                var scratch = [Float](repeating: 0, count: max(1, conv.scratchCount))
                // In two parts split mid-row, as threads split the pixels, each into a buffer of its own: a part
                // writes its own pixels only (a row's last group of four may be moved back, never past the
                // part's first pixel).
                for part in [0..<pixels / 3 + 1, pixels / 3 + 1..<pixels] {
                    var own = [Float](repeating: .nan, count: conv.output.count)
                    x.withUnsafeBufferPointer { xp in own.withUnsafeMutableBufferPointer { yp in scratch.withUnsafeMutableBufferPointer { sp in
                        kernels.conv(conv, input: xp.baseAddress!, output: yp.baseAddress!, pixels: part, scratch: sp.baseAddress!,
                                     epilogue: Epilogue(activation: .relu6))
                    } } }
                    let outside = own.indices.filter { !part.contains($0 / cout) && !own[$0].isNaN }.count
                    XCTAssertEqual(outside, 0, "\(TestedKernels.label(kernels)) case \(i): pixels \(part) wrote outside them")
                    for j in own.indices where part.contains(j / cout) { direct[j] = own[j] }
                }
                patches.withUnsafeBufferPointer { ap in gemm.withUnsafeMutableBufferPointer { cp in
                    kernels.gemm(a: ap.baseAddress!, lda: kk, rows: 0..<pixels, weights: conv.weights, c: cp.baseAddress!, ldc: cout,
                                 epilogue: Epilogue(activation: .relu6))
                } }
                let differing = zip(direct, gemm).filter { !($0 == $1) }.count
                XCTAssertEqual(differing, 0, "\(TestedKernels.label(kernels)) case \(i) \(s) k\(k) -> \(cout) s\(stride) d\(dilation): \(differing) of \(direct.count) outputs differ")
            }
        }
    }

    func testConv2DMatchesReference() {
        var rng = SeededRandom(11)
        let cases: [(HWC, Int, Int, Int, Padding)] = [
            (HWC(7, 9, 3), 5, 5, 2, .same), (HWC(8, 8, 3), 3, 3, 2, .same), (HWC(11, 6, 17), 1, 1, 1, .same),
            (HWC(5, 13, 24), 1, 1, 1, .valid), (HWC(9, 9, 5), 3, 3, 1, .valid), (HWC(6, 7, 8), 3, 3, 2, .valid),
            (HWC(1, 1, 33), 1, 1, 1, .same), (HWC(10, 3, 2), 5, 5, 1, .same),
            // Few input channels (read in place): four-pixel groups, row ends, partial panels.
            (HWC(12, 19, 3), 3, 24, 2, .same), (HWC(10, 21, 3), 5, 32, 2, .same), (HWC(9, 14, 4), 3, 20, 1, .valid), (HWC(9, 14, 4), 3, 40, 1, .valid),
        ]
        for (i, (s, k, cout, stride, padding)) in cases.enumerated() {
            for a in [Activation.none, .relu, .relu6, .reluN1To1] {
                let win = Window(input: s, kh: k, kw: k, sh: stride, sw: stride, padding: padding)
                let x = rng.floats(s.count), w = rng.floats(cout * k * k * s.c), b = rng.floats(cout)
                let conv = Conv2D(input: s, outputChannels: cout, window: win, weights: w, bias: b)
                var y = [Float](repeating: .nan, count: conv.output.count)
                var scratch = [Float](repeating: 0, count: max(1, conv.scratchCount))
                // In two uneven parts, as threads split the pixels.
                let pixels = win.outH * win.outW, cut = pixels / 3 + 1
                let expected = referenceConv(x, s, w, b, cout: cout, win, a)
                for kernels in Self.variants {
                    y.withUnsafeMutableBufferPointer { $0.update(repeating: .nan) }
                    x.withUnsafeBufferPointer { xp in y.withUnsafeMutableBufferPointer { yp in scratch.withUnsafeMutableBufferPointer { sp in
                        for part in [0..<min(cut, pixels), min(cut, pixels)..<pixels] {
                            kernels.conv(conv, input: xp.baseAddress!, output: yp.baseAddress!, pixels: part,
                                         scratch: sp.baseAddress!, epilogue: Epilogue(activation: a))
                        }
                    } } }
                    assertClose(y, expected, "\(TestedKernels.label(kernels)) case \(i) \(s) k\(k) s\(stride) \(padding) \(a)")
                }
            }
        }
    }

    /// A PAD folded into the convolution after it (PlanBuilder.foldingPads) gives a window of explicit padding,
    /// any of the four sides alone: the kernels on the unpadded input equal a VALID convolution of the input
    /// padded with zeros. Conv (im2col, direct and dot paths) and depthwise, strides 1 and 2.
    func testFoldedPaddingEqualsConvolvingThePaddedInput() {
        var rng = SeededRandom(23)
        // (input, kernel, stride, output channels (0: depthwise), top, bottom, left, right)
        let cases: [(HWC, Int, Int, Int, Int, Int, Int, Int)] = [
            (HWC(9, 12, 3), 3, 2, 24, 0, 1, 0, 1), (HWC(9, 12, 3), 3, 2, 8, 1, 1, 1, 1), (HWC(8, 14, 3), 3, 2, 16, 1, 0, 1, 0),
            (HWC(7, 11, 8), 3, 1, 1, 1, 1, 0, 2), (HWC(6, 9, 5), 3, 2, 20, 0, 2, 2, 0), (HWC(9, 10, 16), 5, 2, 0, 1, 2, 2, 1),
            (HWC(8, 8, 24), 3, 2, 0, 0, 1, 0, 1), (HWC(6, 13, 32), 3, 1, 0, 1, 0, 0, 1),
        ]
        for (i, (s, k, stride, cout, top, bottom, left, right)) in cases.enumerated() {
            let padded = HWC(s.h + top + bottom, s.w + left + right, s.c)
            var xp = [Float](repeating: 0, count: padded.count)
            let x = rng.floats(s.count)
            for y in 0..<s.h { for xx in 0..<s.w { for c in 0..<s.c {
                xp[((y + top) * padded.w + xx + left) * s.c + c] = x[(y * s.w + xx) * s.c + c]
            } } }
            let valid = Window(input: padded, kh: k, kw: k, sh: stride, sw: stride, padding: .valid)
            var folded = valid
            folded.padTop = top
            folded.padLeft = left
            let channels = cout == 0 ? s.c : cout
            let w = rng.floats((cout == 0 ? 1 : cout) * k * k * s.c), b = rng.floats(channels)
            for kernels in Self.variants {
                let label = "\(TestedKernels.label(kernels)) case \(i) \(s) k\(k) s\(stride) pads \(top) \(bottom) \(left) \(right)"
                var got = [Float](repeating: .nan, count: valid.outH * valid.outW * channels), want = got
                if cout == 0 {
                    let a = DepthwiseConv2D(input: s, window: folded, weights: w, bias: b, activation: .none)
                    let r = DepthwiseConv2D(input: padded, window: valid, weights: w, bias: b, activation: .none)
                    got.withUnsafeMutableBufferPointer { kernels.depthwise(a, input: x, output: $0.baseAddress!, rows: 0..<valid.outH) }
                    want.withUnsafeMutableBufferPointer { kernels.depthwise(r, input: xp, output: $0.baseAddress!, rows: 0..<valid.outH) }
                } else {
                    let a = Conv2D(input: s, outputChannels: cout, window: folded, weights: w, bias: b)
                    let r = Conv2D(input: padded, outputChannels: cout, window: valid, weights: w, bias: b)
                    var scratch = [Float](repeating: 0, count: max(a.scratchCount, r.scratchCount, 1))
                    let pixels = valid.outH * valid.outW
                    scratch.withUnsafeMutableBufferPointer { sp in
                        got.withUnsafeMutableBufferPointer { kernels.conv(a, input: x, output: $0.baseAddress!, pixels: 0..<pixels, scratch: sp.baseAddress!, epilogue: Epilogue()) }
                        want.withUnsafeMutableBufferPointer { kernels.conv(r, input: xp, output: $0.baseAddress!, pixels: 0..<pixels, scratch: sp.baseAddress!, epilogue: Epilogue()) }
                    }
                }
                assertClose(got, want, label, tolerance: 1e-5)
            }
        }
    }

    /// A convolution's weights packed from TFLite's `[N, K]` row-major layout are the panels the per-value
    /// packing makes, zeros past N included, for column counts on and off the 16-column panels.
    func testRowMajorPackingIsThePerValuePacking() {
        var rng = SeededRandom(31)
        for (k, n) in [(1, 1), (3, 16), (27, 24), (144, 40), (7, 33), (192, 1152)] {
            let w = rng.floats(n * k), b = rng.floats(n)
            let fast = PackedWeights(k: k, n: n, bias: b, rowMajor: w)
            let each = PackedWeights(k: k, n: n, bias: b) { kk, j in w[j * k + kk] }
            XCTAssertEqual(fast.panels, each.panels)
            XCTAssertEqual(Array(UnsafeBufferPointer(start: fast.data.pointer, count: fast.data.count)),
                           Array(UnsafeBufferPointer(start: each.data.pointer, count: each.data.count)), "k \(k), n \(n)")
            XCTAssertEqual(Array(UnsafeBufferPointer(start: fast.bias.pointer, count: fast.bias.count)),
                           Array(UnsafeBufferPointer(start: each.bias.pointer, count: each.bias.count)), "k \(k), n \(n)")
        }
    }

    func testGemmEpilogueAddsResidualThenPReLU() {
        var rng = SeededRandom(12)
        let activations: [(Activation, Activation)] = [(.relu6, .none), (.none, .relu), (.reluN1To1, .reluN1To1), (.relu, .relu6), (.relu6, .relu)]
        // Row counts leave tails of 1, 0, 1, 1 and 2 rows after six-row tiles (the two-row tail kernel).
        for ((m, k, n), (activation, residualActivation)) in zip([(13, 7, 5), (6, 16, 16), (25, 33, 40), (1, 3, 17), (20, 19, 33)], activations) {
            let a = rng.floats(m * k), w = rng.floats(k * n), b = rng.floats(n), r = rng.floats(m * n)
            let alpha = rng.floats(n, in: 0...0.5)
            let packed = PackedWeights(k: k, n: n, bias: b) { kk, j in w[kk * n + j] }
            let slopes = FloatBuffer(count: (n + 15) / 16 * 16)
            for (j, v) in alpha.enumerated() { slopes.pointer[j] = v }
            var results: [(String, [Float])] = []
            for kernels in Self.variants {
                // The product of panels `panels` into a buffer of NaN.
                func product(panels: Range<Int>) -> [Float] {
                    var c = [Float](repeating: .nan, count: m * n)
                    r.withUnsafeBufferPointer { rp in
                        a.withUnsafeBufferPointer { ap in c.withUnsafeMutableBufferPointer { cp in
                            var e = Epilogue(activation: activation)
                            e.residual = rp.baseAddress!
                            e.residualActivation = residualActivation
                            e.alpha = UnsafePointer(slopes.pointer)
                            kernels.gemm(a: ap.baseAddress!, lda: k, rows: 0..<m, panels: panels, weights: packed, c: cp.baseAddress!,
                                         ldc: n, epilogue: e)
                        } }
                    }
                    return c
                }
                let c = product(panels: 0..<packed.panels)
                results.append((TestedKernels.label(kernels), c))
                // As threads split the columns of a layer with few rows: each panel range alone writes its own
                // columns only, the same bits as the whole.
                let panels = packed.panels
                for part in [0..<1, 1..<panels, 0..<panels / 2, panels / 2..<panels] where !part.isEmpty {
                    let own = product(panels: part)
                    let wrong = own.indices.filter { j in
                        part.contains((j % n) / 16) ? own[j].bitPattern != c[j].bitPattern : !own[j].isNaN
                    }.count
                    XCTAssertEqual(wrong, 0, "\(TestedKernels.label(kernels)) gemm \(m)x\(k)x\(n) panels \(part)")
                }
            }
            var expected = [Float](repeating: 0, count: m * n)
            for i in 0..<m { for j in 0..<n {
                var v = b[j]
                for kk in 0..<k { v += a[i * k + kk] * w[kk * n + j] }
                v = act(act(v, activation) + r[i * n + j], residualActivation)
                expected[i * n + j] = v < 0 ? v * alpha[j] : v
            } }
            for (isa, c) in results { assertClose(c, expected, "\(isa) gemm \(m)x\(k)x\(n) \(activation) \(residualActivation)") }
        }
    }

    func testDepthwiseMatchesReference() {
        var rng = SeededRandom(13)
        let cases: [(HWC, Int, Int, Padding)] = [
            (HWC(12, 12, 32), 5, 1, .same), (HWC(12, 11, 24), 5, 2, .same), (HWC(7, 9, 13), 3, 1, .same),
            (HWC(8, 8, 8), 3, 2, .valid), (HWC(3, 17, 20), 5, 1, .same), (HWC(2, 2, 9), 3, 1, .same),
            (HWC(6, 13, 48), 3, 1, .same), (HWC(9, 15, 40), 5, 2, .same), (HWC(5, 10, 16), 5, 1, .valid),
            // Stride 1 with border groups of four (reading zeros outside): both sides of a 7-wide map, a
            // right side of two, a map narrower than the padding, a 3x3 right side of three, a valid
            // window whose group runs past the input.
            (HWC(7, 7, 24), 5, 1, .same), (HWC(3, 14, 16), 5, 1, .same), (HWC(4, 1, 8), 5, 1, .same),
            (HWC(4, 8, 16), 3, 1, .same), (HWC(6, 6, 8), 5, 1, .valid), (HWC(3, 3, 8), 5, 1, .same),
            // 64 channels and more: the 16-wide kernels' four channel blocks a pixel at the borders.
            (HWC(6, 9, 72), 5, 2, .same), (HWC(5, 7, 64), 3, 1, .same),
            // Stride 1 with AVX-512: a pair of 16-channel blocks, a single block and eight channels, in the
            // interior and the border groups alike.
            (HWC(5, 16, 56), 5, 1, .same), (HWC(4, 13, 56), 3, 1, .same),
            // A border group of three with a pair of 16-channel blocks and eight channels.
            (HWC(3, 7, 40), 5, 1, .same),
            // 24 channels left after the pairs (the landmark models' 112x112x24 and 128x128x24 layers): with
            // AVX-512 a block of sixteen and one of eight at once, sliding (3x3 and 5x5) and whole windows.
            (HWC(6, 20, 24), 3, 1, .same), (HWC(7, 12, 88), 3, 2, .same), (HWC(5, 18, 88), 5, 1, .same),
            // Channels past a multiple of eight, as face_detection_short_range has them: the last block of
            // eight repeats some channels. Split by sixteens below, a part of 12, 10 or 11 does the same, and
            // a part of 4 or 2 goes channel by channel, the same bit for bit.
            (HWC(9, 10, 28), 3, 2, .same), (HWC(6, 9, 36), 3, 1, .same), (HWC(7, 6, 42), 3, 2, .same),
            (HWC(5, 11, 26), 5, 1, .same), (HWC(4, 9, 11), 5, 2, .same), (HWC(6, 12, 34), 3, 2, .same),
            // 1x1 at stride 1 (the recrop model's per-channel scale and shift): every channel in one flat run
            // (8, 16, 24), a part from channel 16 or a tail past a multiple of eight pixel by pixel (11, 40), and
            // fewer than eight channels by the general path (4).
            (HWC(5, 7, 8), 1, 1, .same), (HWC(4, 6, 16), 1, 1, .valid), (HWC(3, 5, 11), 1, 1, .same),
            (HWC(4, 5, 24), 1, 1, .same), (HWC(3, 6, 40), 1, 1, .valid), (HWC(3, 4, 4), 1, 1, .same),
            (HWC(3, 5, 28), 1, 1, .same),
        ]
        for (i, (s, k, stride, padding)) in cases.enumerated() {
            for a in [Activation.none, .relu, .relu6] {
                let win = Window(input: s, kh: k, kw: k, sh: stride, sw: stride, padding: padding)
                let x = rng.floats(s.count), w = rng.floats(k * k * s.c), b = rng.floats(s.c)
                let dw = DepthwiseConv2D(input: s, window: win, weights: w, bias: b, activation: a)
                var expected = [Float](repeating: 0, count: dw.output.count)
                for oy in 0..<win.outH { for ox in 0..<win.outW { for c in 0..<s.c {
                    var acc = b[c]
                    for ky in 0..<k { for kx in 0..<k {
                        let iy = oy * stride - win.padTop + ky, ix = ox * stride - win.padLeft + kx
                        if iy >= 0, iy < s.h, ix >= 0, ix < s.w { acc += x[(iy * s.w + ix) * s.c + c] * w[(ky * k + kx) * s.c + c] }
                    } }
                    expected[(oy * win.outW + ox) * s.c + c] = act(acc, a)
                } } }
                // The first variant with fused multiply-add: every other one forms each sum the same way (AVX2 with
                // pairs of eight channels, AVX-512 with sixteens), so gives the same bits.
                var fused: (label: String, y: [Float])?
                for kernels in Self.variants {
                    var y = [Float](repeating: .nan, count: dw.output.count)
                    x.withUnsafeBufferPointer { xp in y.withUnsafeMutableBufferPointer { yp in
                        // In two parts, as threads split the rows.
                        kernels.depthwise(dw, input: xp.baseAddress!, output: yp.baseAddress!, rows: 0..<win.outH / 2)
                        kernels.depthwise(dw, input: xp.baseAddress!, output: yp.baseAddress!, rows: win.outH / 2..<win.outH)
                    } }
                    assertClose(y, expected, "\(TestedKernels.label(kernels)) depthwise case \(i) \(s) k\(k) s\(stride) \(a)")
                    if k == 1 {
                        // One tap: each value is the bias plus one product, fused where the variant fuses (as the
                        // general path forms it), then the clamp. Exactly.
                        let exact = (0..<dw.output.count).map { j in
                            let c = j % s.c
                            return act(kernels.isa == .baseline ? b[c] + x[j] * w[c] : b[c].addingProduct(x[j], w[c]), a)
                        }
                        XCTAssertEqual(y.map(\.bitPattern), exact.map(\.bitPattern), "\(TestedKernels.label(kernels)) depthwise 1x1 case \(i) \(s)")
                    }
                    if kernels.isa != .baseline {
                        if let fused {
                            let differ = y.indices.filter { y[$0].bitPattern != fused.y[$0].bitPattern }.count
                            XCTAssertEqual(differ, 0, "\(TestedKernels.label(kernels)) against \(fused.label): depthwise case \(i) \(s) k\(k) s\(stride) \(a)")
                        } else {
                            fused = (TestedKernels.label(kernels), y)
                        }
                    }
                    // As threads split the channels of a small map: blocks of 16 (the last one partial where
                    // the channels are not a multiple of 16), each into a buffer of NaN: its channels the same
                    // values bit for bit, no other channel written.
                    for lower in Swift.stride(from: 0, to: s.c, by: 16) {
                        let block = lower..<min(s.c, lower + 16)
                        var part = [Float](repeating: .nan, count: dw.output.count)
                        x.withUnsafeBufferPointer { xp in part.withUnsafeMutableBufferPointer { yp in
                            kernels.depthwise(dw, input: xp.baseAddress!, inputFirstRow: 0, output: yp.baseAddress!, outputFirstRow: 0,
                                              rows: 0..<win.outH, channels: block)
                        } }
                        let wrong = part.indices.filter { j in
                            block.contains(j % s.c) ? part[j].bitPattern != y[j].bitPattern : !part[j].isNaN
                        }.count
                        XCTAssertEqual(wrong, 0, "\(TestedKernels.label(kernels)) depthwise case \(i) channels \(block)")
                    }
                    // As a fused block runs it: each third of the output rows (top edge, middle, bottom
                    // edge) into a band of its own, from a copy of only the input rows it reads, both with
                    // `k` rows of NaN before and after; the same values bit for bit, the guards untouched.
                    let rowFloats = s.w * s.c, outFloats = win.outW * s.c
                    let cuts = [0, win.outH / 3, 2 * win.outH / 3, win.outH]
                    for part in zip(cuts, cuts.dropFirst()).map({ $0.0..<$0.1 }) where !part.isEmpty {
                        let first = max(0, part.lowerBound * stride - win.padTop)
                        let last = min(s.h, (part.upperBound - 1) * stride - win.padTop + k)
                        let inGuard = [Float](repeating: .nan, count: k * rowFloats), outGuard = [Float](repeating: .nan, count: k * outFloats)
                        let held = inGuard + x[(first * rowFloats)..<(max(first, last) * rowFloats)] + inGuard
                        var band = outGuard + [Float](repeating: .nan, count: part.count * outFloats) + outGuard
                        held.withUnsafeBufferPointer { hp in band.withUnsafeMutableBufferPointer { bp in
                            kernels.depthwise(dw, input: hp.baseAddress! + inGuard.count, inputFirstRow: first,
                                              output: bp.baseAddress! + outGuard.count, outputFirstRow: part.lowerBound, rows: part)
                        } }
                        let label = "\(TestedKernels.label(kernels)) depthwise case \(i) rows \(part) from rows \(first)..<\(last)"
                        let whole = y[(part.lowerBound * outFloats)..<(part.upperBound * outFloats)]
                        let differing = zip(band[outGuard.count...], whole).filter { $0.bitPattern != $1.bitPattern }.count
                        XCTAssertEqual(differing, 0, label)
                        let guards = band[..<outGuard.count] + band[(band.count - outGuard.count)...]
                        XCTAssertTrue(guards.allSatisfy(\.isNaN), "\(label): wrote outside its rows")
                    }
                }
            }
        }
    }

    func testSamePaddingIsAsymmetricLikeTFLite() {
        // 8 wide, kernel 3, stride 2: 4 outputs, total padding 1, all of it after the input.
        let w = Window(input: HWC(8, 8, 1), kh: 3, kw: 3, sh: 2, sw: 2, padding: .same)
        XCTAssertEqual(w.outW, 4)
        XCTAssertEqual(w.padLeft, 0)
        let w5 = Window(input: HWC(96, 96, 1), kh: 5, kw: 5, sh: 2, sw: 2, padding: .same)
        XCTAssertEqual(w5.outW, 48)
        XCTAssertEqual(w5.padLeft, 1)
        XCTAssertEqual(Window(input: HWC(7, 7, 1), kh: 3, kw: 3, sh: 2, sw: 2, padding: .valid).outW, 3)
    }

    /// Max pooling keeps the first of equal values (-0 before +0) in vector lanes and the scalar tail alike, as
    /// TFLite's std::max does.
    func testPoolingTiesMatchTheVectors() {
        // One 2x2 window over 11 channels (eight in a vector, three in the tail) and over 16 (whole vectors, the
        // 2x2 stride-2 path): -0, then +0, then -1 twice.
        for s in [HWC(2, 2, 11), HWC(2, 2, 16)] {
            let pixels: [Float] = [-0.0, 0.0, -1, -1].flatMap { [Float](repeating: $0, count: s.c) }
            let win = Window(input: s, kh: 2, kw: 2, sh: 2, sw: 2, padding: .valid)
            for kernels in Self.variants {
                var out = [Float](repeating: 1, count: s.c)
                pixels.withUnsafeBufferPointer { xp in out.withUnsafeMutableBufferPointer { yp in
                    kernels.maxPool(input: xp.baseAddress!, shape: s, window: win, activation: .none, output: yp.baseAddress!, rows: 0..<1)
                } }
                XCTAssertEqual(out.map(\.bitPattern), [UInt32](repeating: (-0.0 as Float).bitPattern, count: s.c), "\(TestedKernels.label(kernels)) max pool tie: \(out)")
            }
        }
    }

    func testMaxPoolAndMean() {
        var rng = SeededRandom(14)
        // Same padding over 11 channels (the general loop), and 2x2 stride-2 windows inside the input over whole
        // vectors of channels (the path of their own), an odd row and column left out, an activation after.
        // (Same padding on 7x9: windows past the bottom and right edges, with no padding before them, go by the
        // general loop too.)
        for (s, padding, activation) in [(HWC(6, 5, 11), Padding.same, Activation.none), (HWC(7, 9, 8), .valid, .none),
                                         (HWC(6, 4, 24), .valid, .relu6), (HWC(7, 9, 8), .same, .none)] {
            let x = rng.floats(s.count, in: -8...8)
            let win = Window(input: s, kh: 2, kw: 2, sh: 2, sw: 2, padding: padding)
            var expected = [Float](repeating: -.infinity, count: win.outH * win.outW * s.c)
            for oy in 0..<win.outH { for ox in 0..<win.outW { for c in 0..<s.c { for ky in 0..<2 { for kx in 0..<2 {
                let iy = oy * 2 + ky, ix = ox * 2 + kx
                if iy < s.h, ix < s.w { expected[(oy * win.outW + ox) * s.c + c] = max(expected[(oy * win.outW + ox) * s.c + c], x[(iy * s.w + ix) * s.c + c]) }
            } } } } }
            expected = expected.map { act($0, activation) }
            for kernels in Self.variants {
                var y = [Float](repeating: .nan, count: win.outH * win.outW * s.c)
                // In two parts, as threads split the rows.
                x.withUnsafeBufferPointer { xp in y.withUnsafeMutableBufferPointer { yp in
                    kernels.maxPool(input: xp.baseAddress!, shape: s, window: win, activation: activation, output: yp.baseAddress!, rows: 0..<1)
                    kernels.maxPool(input: xp.baseAddress!, shape: s, window: win, activation: activation, output: yp.baseAddress!, rows: 1..<win.outH)
                } }
                XCTAssertEqual(y.map(\.bitPattern), expected.map(\.bitPattern), "\(TestedKernels.label(kernels)) max pool \(s) \(padding)")
            }
            var mean = [Float](repeating: 0, count: s.c)
            x.withUnsafeBufferPointer { xp in mean.withUnsafeMutableBufferPointer { DataMovement.meanHW(input: xp.baseAddress!, shape: s, output: $0.baseAddress!) } }
            for c in 0..<s.c {
                let m = stride(from: c, to: x.count, by: s.c).map { x[$0] }.reduce(0, +) / Float(s.h * s.w)
                XCTAssertEqual(mean[c], m, accuracy: 1e-4)
            }
        }
    }

    func testResizeBilinearModes() {
        // 2x2 -> 4x4, one channel, values 0 1 / 2 3.
        let x: [Float] = [0, 1, 2, 3]
        func run(_ align: Bool, _ half: Bool) -> [Float] {
            var y = [Float](repeating: .nan, count: 16)
            x.withUnsafeBufferPointer { xp in y.withUnsafeMutableBufferPointer { yp in
                DataMovement.resizeBilinear(xp.baseAddress!, input: HWC(2, 2, 1), outH: 4, outW: 4, alignCorners: align,
                                            halfPixelCenters: half, yp.baseAddress!, rows: 0..<4)
            } }
            return y
        }
        // Legacy mode: source = out * 0.5, clamped at the far edge.
        assertClose(Array(run(false, false)[0..<4]), [0, 0.5, 1, 1], "legacy")
        // Half-pixel centres: source = (out + 0.5) * 0.5 - 0.5.
        assertClose(Array(run(false, true)[0..<4]), [0, 0.25, 0.75, 1], "half pixel")
        // Align corners: the corners map to the corners.
        assertClose(Array(run(true, false)[0..<4]), [0, 1.0 / 3, 2.0 / 3, 1], "align corners")
    }

    func testPadConcatAndFullyConnected() {
        let x: [Float] = [1, 2, 3, 4]  // [1, 2, 1, 2]
        var y = [Float](repeating: .nan, count: 2 * 1 * 5)
        x.withUnsafeBufferPointer { xp in y.withUnsafeMutableBufferPointer { yp in
            DataMovement.pad(xp.baseAddress!, shape: [1, 2, 1, 2], pads: [(0, 0), (0, 0), (0, 0), (1, 2)], yp.baseAddress!)
        } }
        XCTAssertEqual(y, [0, 1, 2, 0, 0, 0, 3, 4, 0, 0])
        // The channels-only form the plan splits over threads: two pixel ranges, each pixel written whole.
        var z = [Float](repeating: .nan, count: 2 * 1 * 5)
        x.withUnsafeBufferPointer { xp in z.withUnsafeMutableBufferPointer { zp in
            DataMovement.padChannels(xp.baseAddress!, channels: 2, before: 1, after: 2, zp.baseAddress!, pixels: 1..<2)
            DataMovement.padChannels(xp.baseAddress!, channels: 2, before: 1, after: 2, zp.baseAddress!, pixels: 0..<1)
        } }
        XCTAssertEqual(z, y)
        // The vector moves: channel counts and pads on both sides of eight, against the general pad.
        for (channels, before, after) in [(8, 0, 8), (24, 0, 4), (17, 9, 3), (3, 1, 16), (42, 0, 6)] {
            let pixels = 5
            let v = (0..<(pixels * channels)).map { Float($0) - 7.5 }
            let width = before + channels + after
            var general = [Float](repeating: .nan, count: pixels * width), vector = general
            v.withUnsafeBufferPointer { vp in
                general.withUnsafeMutableBufferPointer { gp in
                    DataMovement.pad(vp.baseAddress!, shape: [1, 1, pixels, channels], pads: [(0, 0), (0, 0), (0, 0), (before, after)], gp.baseAddress!)
                }
                vector.withUnsafeMutableBufferPointer { wp in
                    DataMovement.padChannels(vp.baseAddress!, channels: channels, before: before, after: after, wp.baseAddress!, pixels: 2..<pixels)
                    DataMovement.padChannels(vp.baseAddress!, channels: channels, before: before, after: after, wp.baseAddress!, pixels: 0..<2)
                }
            }
            XCTAssertEqual(vector, general, "\(channels) channels, \(before) before, \(after) after")
        }
        let a: [Float] = [1, 2, 3, 4], b: [Float] = [9, 8]
        var c = [Float](repeating: 0, count: 6)
        a.withUnsafeBufferPointer { ap in b.withUnsafeBufferPointer { bp in c.withUnsafeMutableBufferPointer { cp in
            DataMovement.concat([(ap.baseAddress!, 2), (bp.baseAddress!, 1)], outer: 2, inner: 1, cp.baseAddress!)
        } } }
        XCTAssertEqual(c, [1, 2, 9, 3, 4, 8])
        var rng = SeededRandom(15)
        let k = 37, n = 5
        let w = rng.floats(n * k), bias = rng.floats(n), v = rng.floats(k)
        let fc = FullyConnected(k: k, n: n, weights: w, bias: bias, activation: .relu)
        for kernels in Self.variants {
            var out = [Float](repeating: 0, count: n)
            v.withUnsafeBufferPointer { vp in out.withUnsafeMutableBufferPointer { kernels.fullyConnected(fc, vp.baseAddress!, $0.baseAddress!, batch: 1) } }
            for j in 0..<n {
                let e = max(0, (0..<k).map { w[j * k + $0] * v[$0] }.reduce(0, +) + bias[j])
                XCTAssertEqual(out[j], e, accuracy: 1e-4, "\(TestedKernels.label(kernels))")
            }
        }
    }

    func testAddAndPReLU() {
        var rng = SeededRandom(16)
        let n = 77, channels = 11
        let a = rng.floats(n), b = rng.floats(n), alpha = rng.floats(channels, in: 0...0.5)
        for kernels in Self.variants {
            for act in [Activation.none, .relu, .relu6, .reluN1To1] {
                var y = [Float](repeating: .nan, count: n)
                a.withUnsafeBufferPointer { ap in b.withUnsafeBufferPointer { bp in y.withUnsafeMutableBufferPointer { yp in
                    kernels.add(ap.baseAddress!, bp.baseAddress!, yp.baseAddress!, range: 0..<40, activation: act)
                    kernels.add(ap.baseAddress!, bp.baseAddress!, yp.baseAddress!, range: 40..<n, activation: act)
                } } }
                assertClose(y, zip(a, b).map { self.act($0 + $1, act) }, "\(TestedKernels.label(kernels)) add \(act)")
            }
            var y = [Float](repeating: .nan, count: n)
            a.withUnsafeBufferPointer { ap in alpha.withUnsafeBufferPointer { al in y.withUnsafeMutableBufferPointer { yp in
                kernels.prelu(ap.baseAddress!, alpha: al.baseAddress!, channels: channels, yp.baseAddress!, pixels: 0..<(n / channels))
            } } }
            assertClose(y, a.enumerated().map { $1 < 0 ? $1 * alpha[$0 % channels] : $1 }, "\(TestedKernels.label(kernels)) prelu")
            // Whole vectors of channels (8, 16, 24): one flat run over the pixels, a part starting mid-way; the
            // same bits as a multiply of each negative value.
            for c in [8, 16, 24] {
                let pixels = 13, v = rng.floats(pixels * c), slopes = rng.floats(c, in: 0...0.5)
                var out = [Float](repeating: .nan, count: v.count)
                v.withUnsafeBufferPointer { vp in slopes.withUnsafeBufferPointer { sp in out.withUnsafeMutableBufferPointer { op in
                    kernels.prelu(vp.baseAddress!, alpha: sp.baseAddress!, channels: c, op.baseAddress!, pixels: 5..<pixels)
                    kernels.prelu(vp.baseAddress!, alpha: sp.baseAddress!, channels: c, op.baseAddress!, pixels: 0..<5)
                } } }
                let expected = v.enumerated().map { $1 < 0 ? $1 * slopes[$0 % c] : $1 }
                XCTAssertEqual(out.map(\.bitPattern), expected.map(\.bitPattern), "\(TestedKernels.label(kernels)) prelu, \(c) channels")
            }
        }
    }

    /// Activations are clamps in every kernel, vector lanes and scalar tails alike: -0 stays -0, NaN stays NaN,
    /// infinities are clamped, as the branching form TFLite's reference kernels follow left them.
    func testActivationsAtTheEdges() {
        let x: [Float] = [-0.0, .infinity, -.infinity, .nan, 7, -2, 0.5, -0.5]
        let expected: [Activation: [Float]] = [
            .none: x, .relu: [-0.0, .infinity, 0, .nan, 7, 0, 0.5, 0], .relu6: [-0.0, 6, 0, .nan, 6, 0, 0.5, 0],
            .reluN1To1: [-0.0, 1, -1, .nan, 1, -1, 0.5, -0.5],
        ]
        for kernels in Self.variants {
            for (activation, want) in expected {
                // Eight values in a vector, then the eight again in parts under eight (scalar tails).
                let xs = x + x, zero = [Float](repeating: -0.0, count: xs.count)  // x + (-0) is x, -0 included
                var y = [Float](repeating: 1, count: xs.count)
                xs.withUnsafeBufferPointer { xp in zero.withUnsafeBufferPointer { zp in y.withUnsafeMutableBufferPointer { yp in
                    for range in [0..<8, 8..<15, 15..<16] {
                        kernels.add(xp.baseAddress!, zp.baseAddress!, yp.baseAddress!, range: range, activation: activation)
                    }
                } } }
                for (got, w) in zip(y, want + want) {
                    XCTAssertTrue(got.bitPattern == w.bitPattern || (got.isNaN && w.isNaN), "\(TestedKernels.label(kernels)) \(activation): \(y) != \(want + want)")
                }
                // The same through the GEMM's epilogue (twelve rows: the AVX-512 tile) and a depthwise layer's
                // (36 channels: a pair of 16-wide blocks and the block of eight ending at the last channel; and
                // split in sixteens, its last four channels one at a time), each value times 1 plus a bias of -0.
                let rows = 12, cols = 36
                let a = (0..<rows).map { x[$0 % x.count] }
                let packed = PackedWeights(k: 1, n: cols, bias: [Float](repeating: -0.0, count: cols)) { _, _ in 1 }
                var c = [Float](repeating: 1, count: rows * cols)
                a.withUnsafeBufferPointer { ap in c.withUnsafeMutableBufferPointer { cp in
                    kernels.gemm(a: ap.baseAddress!, lda: 1, rows: 0..<rows, weights: packed, c: cp.baseAddress!, ldc: cols,
                                 epilogue: Epilogue(activation: activation))
                } }
                let shape = HWC(1, rows, cols)
                let dw = DepthwiseConv2D(input: shape, window: Window(input: shape, kh: 1, kw: 1, sh: 1, sw: 1, padding: .valid),
                                         weights: [Float](repeating: 1, count: cols), bias: [Float](repeating: -0.0, count: cols),
                                         activation: activation)
                let pixels = (0..<rows * cols).map { x[($0 / cols) % x.count] }
                var d = [Float](repeating: 1, count: rows * cols)
                var split = [Float](repeating: 1, count: rows * cols)
                pixels.withUnsafeBufferPointer { xp in
                    d.withUnsafeMutableBufferPointer { yp in
                        kernels.depthwise(dw, input: xp.baseAddress!, output: yp.baseAddress!, rows: 0..<1)
                    }
                    split.withUnsafeMutableBufferPointer { yp in
                        for lower in stride(from: 0, to: cols, by: 16) {
                            kernels.depthwise(dw, input: xp.baseAddress!, inputFirstRow: 0, output: yp.baseAddress!, outputFirstRow: 0,
                                              rows: 0..<1, channels: lower..<min(cols, lower + 16))
                        }
                    }
                }
                for (name, out) in [("gemm", c), ("depthwise", d), ("depthwise split in sixteens", split)] {
                    let wrong = out.indices.filter { j in
                        let got = out[j], w = want[(j / cols) % x.count]
                        return !(got.bitPattern == w.bitPattern || (got.isNaN && w.isNaN))
                    }.count
                    XCTAssertEqual(wrong, 0, "\(TestedKernels.label(kernels)) \(name) \(activation)")
                }
            }
        }
    }
}
