import Foundation
import XCTest
import Inference

/// The micro-kernels (Sources/KernelsBaseline/MicroKernels.generated.swift), each alone, through one
/// table-driven tester: every tile of every variant this machine runs, on odd sizes and every edge (one
/// row to all of its rows, a panel one column wide to full, k from 1, the epilogue's every part, the
/// first and last rows of a padded convolution), against a plain loop that forms each sum as the tiles
/// promise: the bias, then the products in k order, fused where the variant fuses. Equality is exact.
final class MicroKernelTests: XCTestCase {
    /// The committed tiles are what the generator writes from its tables (they cannot drift apart).
    func testGeneratedTilesAreWhatTheScriptWrites() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", root.appendingPathComponent("scripts/generate-kernels.py").path, "--check"]
        let errors = Pipe()
        p.standardError = errors
        try p.run()
        p.waitUntilExit()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(p.terminationStatus, 0, message)
    }

    /// Every variant lists its tiles, and the tiles a variant lists are the ones it runs.
    func testEveryVariantListsTheTilesItRuns() {
        for kernels in TestedKernels.all {
            let names = kernels.microKernels.map(\.name)
            let label = TestedKernels.label(kernels)
            XCTAssertTrue(names.contains("gemm6x16") && names.contains("gemm2x16") && names.contains("gemm6x8"), "\(label): \(names)")
            switch label {
            case "baseline": XCTAssertFalse(names.contains { $0.hasPrefix("direct") }, "the baseline reads every convolution through im2col")
            case "avx2": XCTAssertEqual(Set(names.filter { $0.hasPrefix("direct") }), ["direct8x8", "direct6x16", "direct4x24", "direct2x32"])
            default: XCTAssertEqual(Set(names.filter { $0.hasPrefix("direct") }), ["direct8x8", "direct8x16", "direct4x24", "direct4x32", "direct8x32"], label)
            }
            XCTAssertEqual(names.contains("gemm12x16"), label.hasPrefix("avx512"), label)
            XCTAssertEqual(names.contains("gemm6x32"), label.hasPrefix("avx512"), label)
            XCTAssertTrue(names.contains("dot8"), label)
            var c: [Float] = [0]
            let refused = c.withUnsafeMutableBufferPointer { cp in
                kernels.runGemmTile("gemm99x16", a: [0], lda: 1, rows: 0..<1, weights: PackedWeights(k: 1, n: 1, bias: nil) { _, _ in 0 },
                                    panel: 0, c: cp.baseAddress!, ldc: 1, epilogue: Epilogue())
            }
            XCTAssertFalse(refused, "an unknown tile is refused")
        }
    }

    /// The epilogues every tile is tried with: none; ReLU6; a residual with its activation; PReLU; all three.
    private static let epilogueKinds = ["none", "relu6", "residual", "prelu", "all"]

    private func epilogue(_ kind: String, residual: UnsafePointer<Float>, alpha: UnsafePointer<Float>) -> Epilogue {
        var e = Epilogue(activation: kind == "relu6" || kind == "all" ? .relu6 : .none)
        if kind == "residual" || kind == "all" { e.residual = residual; e.residualActivation = .reluN1To1 }
        if kind == "prelu" || kind == "all" { e.alpha = alpha }
        return e
    }

    /// The plain epilogue: activation, then the residual and its activation, then PReLU.
    private func reference(_ sum: Float, _ e: Epilogue, index: Int, column: Int) -> Float {
        func clamp(_ v: Float, _ a: Activation) -> Float {
            switch a {
            case .relu: return max(v, 0)
            case .relu6: return min(max(v, 0), 6)
            case .reluN1To1: return min(max(v, -1), 1)
            case .none, .tanh: return v
            }
        }
        var v = clamp(sum, e.activation)
        if let r = e.residual { v = clamp(v + r[index], e.residualActivation) }
        if let alpha = e.alpha, v < 0 { v *= alpha[column] }
        return v
    }

    /// Whether a variant fuses multiply-adds: on x86-64 all but the baseline (built for the first x86-64, without
    /// FMA); on arm64 every one (FMA is in the base instruction set; Package.swift).
    private static func fuses(_ kernels: any KernelSet) -> Bool {
        #if arch(x86_64)
        return kernels.isa != .baseline
        #else
        return true
        #endif
    }

    /// `acc + a * b` as the variant forms it.
    private func step(_ acc: Float, _ a: Float, _ b: Float, fused: Bool) -> Float {
        fused ? acc.addingProduct(a, b) : acc + a * b
    }

    func testEveryGemmTileMatchesThePlainLoop() {
        var rng = SeededRandom(47)
        var cases = 0
        for kernels in TestedKernels.all {
            let fused = Self.fuses(kernels), label = TestedKernels.label(kernels)
            for tile in kernels.microKernels where tile.strategy == .gemm {
                // Widths of the panel's used columns: one, odd, a vector, past a vector, full; and a second panel.
                // A 32-column tile spans two panels, the second of them one column, odd, a vector or full; and
                // panels 1 and 2 of three (the second of 7 or 12 columns) and of four. Nine to fifteen columns of a
                // panel store their last eight over the first eight (BlazeFace's 28-channel layer: 16 + 12).
                let widths = [8: [1, 3, 8, 16 + 8], 16: [1, 7, 8, 9, 15, 16, 16 + 5], 32: [17, 23, 24, 28, 32, 16 + 24, 32 + 7, 32 + 12, 48 + 7]][tile.columns] ?? []
                XCTAssertFalse(widths.isEmpty, "\(tile.name): no widths for \(tile.columns) columns")
                for k in [1, 2, 5, 17, 64] {
                    for n in widths {
                        let panel = n > max(16, tile.columns) ? 1 : 0
                        let rowCounts = Array(Set([1, 2, 3, tile.rows - 1, tile.rows].filter { $0 >= 1 && $0 <= tile.rows })).sorted()
                        for rowCount in rowCounts {
                            for kind in Self.epilogueKinds {
                                cases += 1
                                let first = 3, lda = k + 3, ldc = n + 5, rows = first + rowCount + 2
                                let a = rng.floats(rows * lda), wv = rng.floats(k * n), bias = rng.floats(n)
                                let residual = Floats(rng.floats(rows * ldc)), alpha = Floats(rng.floats(64, in: 0...1))
                                let weights = PackedWeights(k: k, n: n, bias: bias) { kk, j in wv[kk * n + j] }
                                var c = [Float](repeating: .nan, count: rows * ldc)
                                let e = epilogue(kind, residual: residual.pointer, alpha: alpha.pointer)
                                let ran = c.withUnsafeMutableBufferPointer { cp in
                                    kernels.runGemmTile(tile.name, a: a, lda: lda, rows: first..<(first + rowCount), weights: weights,
                                                        panel: panel, c: cp.baseAddress!, ldc: ldc, epilogue: e)
                                }
                                XCTAssertTrue(ran, "\(label) \(tile.name) did not run")
                                let columns = (panel * 16)..<min(n, panel * 16 + tile.columns)
                                var wrong = 0, outside = 0
                                for i in 0..<rows {
                                    for j in 0..<ldc {
                                        let inside = (first..<(first + rowCount)).contains(i) && columns.contains(j)
                                        if !inside { if !c[i * ldc + j].isNaN { outside += 1 }; continue }
                                        var sum = bias[j]
                                        for kk in 0..<k { sum = step(sum, a[i * lda + kk], wv[kk * n + j], fused: fused) }
                                        let expected = reference(sum, e, index: i * ldc + j, column: j)
                                        if c[i * ldc + j] != expected { wrong += 1 }
                                    }
                                }
                                XCTAssertEqual(wrong, 0, "\(label) \(tile.name) k \(k) n \(n) rows \(rowCount) \(kind): values differ from the plain loop")
                                XCTAssertEqual(outside, 0, "\(label) \(tile.name) k \(k) n \(n) rows \(rowCount) \(kind): wrote outside its rows and columns")
                                withExtendedLifetime((residual, alpha)) {}
                            }
                        }
                    }
                }
            }
        }
        print("gemm tile cases: \(cases)")
    }

    /// Direct tiles: each output's sum is the bias, then the products in k order (ky, kx, ci). Dot tiles (one
    /// output channel): each pixel's products in eight lanes by input channel, tap after tap, the lanes summed in
    /// the tiles' tree, the bias last. Both are run alone from the first pixel whose taps lie inside the input,
    /// on the first, a middle and the last output row (taps above and below the input skipped).
    func testEveryConvolutionTileMatchesThePlainLoop() {
        var rng = SeededRandom(53)
        var cases: [MicroKernel.Strategy: Int] = [:]
        for kernels in TestedKernels.all {
            let fused = Self.fuses(kernels), label = TestedKernels.label(kernels)
            for tile in kernels.microKernels where tile.strategy != .gemm {
                let dot = tile.strategy == .dot
                let widths = dot ? [1] : [8: [1, 5, 8], 16: [9, 13, 16], 24: [17, 20, 24], 32: [17, 24, 25, 32]][tile.columns] ?? []
                XCTAssertFalse(widths.isEmpty, "\(tile.name): no widths for \(tile.columns) columns")
                // (input, kernel, stride, dilation, padding): the models' first layers (direct) or the segmentation
                // head (dot), and odd ones.
                let shapes: [(HWC, Int, Int, Int, Padding)] = dot ? [
                    (HWC(7, tile.rows + 6, 8), 3, 1, 1, .same), (HWC(6, tile.rows + 5, 16), 3, 1, 1, .same),
                    (HWC(9, 2 * tile.rows + 9, 8), 5, 2, 1, .same), (HWC(6, tile.rows + 8, 8), 3, 1, 2, .valid),
                ] : [
                    (HWC(9, 2 * tile.rows + 9, 3), 3, 2, 1, .same), (HWC(7, tile.rows + 8, 3), 5, 1, 1, .same),
                    (HWC(6, tile.rows + 6, 1), 3, 1, 2, .same), (HWC(5, tile.rows + 4, 4), 1, 1, 1, .valid),
                    (HWC(8, 2 * tile.rows + 7, 2), 3, 2, 1, .valid),
                    // Eight channels, 2x2 stride 2 (hand_recrop's 128x128x8 to 64x64x8 layers).
                    (HWC(5, 2 * tile.rows + 4, 8), 2, 2, 1, .valid),
                ]
                for (s, kk, stride, dilation, padding) in shapes {
                    for n in widths {
                        for kind in Self.epilogueKinds {
                            let win = Window(input: s, kh: kk, kw: kk, sh: stride, sw: stride, dh: dilation, dw: dilation, padding: padding)
                            let x = rng.floats(s.count), w = rng.floats(n * kk * kk * s.c), bias = rng.floats(n)
                            let conv = Conv2D(input: s, outputChannels: n, window: win, weights: w, bias: bias)
                            let outW = win.outW
                            // The first output column whose taps all lie inside the input; tiles start there.
                            let ox = (win.padLeft + stride - 1) / stride
                            guard ox + tile.rows <= outW, (ox + tile.rows - 1) * stride - win.padLeft + (kk - 1) * dilation < s.w else {
                                XCTFail("\(label) \(tile.name): shape \(s) k\(kk) s\(stride) too narrow for the tile"); continue
                            }
                            for oy in Set([0, win.outH / 2, win.outH - 1]).sorted() {
                                cases[tile.strategy, default: 0] += 1
                                let pixel = oy * outW + ox
                                let residual = Floats(rng.floats(conv.output.count)), alpha = Floats(rng.floats(64, in: 0...1))
                                let e = epilogue(kind, residual: residual.pointer, alpha: alpha.pointer)
                                var y = [Float](repeating: .nan, count: conv.output.count)
                                let ran = y.withUnsafeMutableBufferPointer { yp in
                                    kernels.runDirectTile(tile.name, conv: conv, input: x, output: yp.baseAddress!, pixel: pixel, epilogue: e)
                                }
                                XCTAssertTrue(ran, "\(label) \(tile.name) did not run")
                                /// Output channel j of pixel p as the tile promises to form it.
                                func plain(_ p: Int, _ j: Int) -> Float {
                                    var lanes = [Float](repeating: 0, count: dot ? 8 : 1)
                                    if !dot { lanes[0] = bias[j] }
                                    for ky in 0..<kk {
                                        let iy = oy * stride - win.padTop + ky * dilation
                                        guard iy >= 0, iy < s.h else { continue }
                                        for kx in 0..<kk {
                                            let ix = (p % outW) * stride - win.padLeft + kx * dilation
                                            for ci in 0..<s.c {
                                                let l = dot ? ci % 8 : 0
                                                lanes[l] = step(lanes[l], x[(iy * s.w + ix) * s.c + ci], w[((j * kk + ky) * kk + kx) * s.c + ci], fused: fused)
                                            }
                                        }
                                    }
                                    guard dot else { return lanes[0] }
                                    return ((lanes[0] + lanes[4]) + (lanes[2] + lanes[6])) + ((lanes[1] + lanes[5]) + (lanes[3] + lanes[7])) + bias[0]
                                }
                                var wrong = 0, outside = 0
                                for p in 0..<(outW * win.outH) {
                                    for j in 0..<n {
                                        guard (pixel..<(pixel + tile.rows)).contains(p) else {
                                            if !y[p * n + j].isNaN { outside += 1 }
                                            continue
                                        }
                                        if y[p * n + j] != reference(plain(p, j), e, index: p * n + j, column: j) { wrong += 1 }
                                    }
                                }
                                XCTAssertEqual(wrong, 0, "\(label) \(tile.name) \(s) k\(kk) s\(stride) d\(dilation) n \(n) row \(oy) \(kind): values differ from the plain loop")
                                XCTAssertEqual(outside, 0, "\(label) \(tile.name) \(s) k\(kk) n \(n) row \(oy) \(kind): wrote outside its pixels")
                                withExtendedLifetime((residual, alpha)) {}
                            }
                        }
                    }
                }
            }
        }
        print("convolution tile cases: direct \(cases[.direct] ?? 0), dot \(cases[.dot] ?? 0)")
        XCTAssertGreaterThan(cases[.dot] ?? 0, 0, "every variant has a dot tile")
    }
}

/// Floats at a fixed address for as long as the value lives (an epilogue keeps raw pointers to them).
private final class Floats {
    let pointer: UnsafeMutablePointer<Float>
    init(_ values: [Float]) {
        pointer = .allocate(capacity: values.count)
        pointer.initialize(from: values, count: values.count)
    }
    deinit { pointer.deallocate() }
}
