import Foundation

/// TFLite's MUL: `a * b` element by element, `b` a tensor of the same shape or one value (broadcast), either
/// of them possibly a constant. The face mesh with attention scales its landmarks and matrices with it.
struct MulStep: Step {
    enum Operand {
        case tensor(Int)
        case constant(FloatBuffer)
    }
    let a: Operand, b: Operand
    let output: Int, count: Int
    /// `b` holds one value, multiplied into every element of `a`.
    let broadcast: Bool
    var reads: [Int] { [a, b].compactMap { if case .tensor(let t) = $0 { return t } else { return nil } } }
    var writes: [Int] { [output] }
    var constants: [FloatBuffer] { [a, b].compactMap { if case .constant(let c) = $0 { return c } else { return nil } } }

    func run(_ ctx: RunContext) {
        func pointer(_ o: Operand) -> UnsafePointer<Float> {
            switch o {
            case .tensor(let t): return UnsafePointer(ctx.pointer(t))
            case .constant(let c): return UnsafePointer(c.pointer)
            }
        }
        let x = pointer(a), z = pointer(b), y = ctx.pointer(output)
        if broadcast {
            let s = z[0]
            for i in 0..<count { y[i] = x[i] * s }
        } else {
            for i in 0..<count { y[i] = x[i] * z[i] }
        }
    }
}

/// MediaPipe's `Landmarks2TransformMatrix` (v2, mediapipe/util/tflite/operations/landmarks_to_transform_matrix.cc):
/// from the mesh's points (x, y of `[1, N, 3]`), the matrix of a `width` x `height` crop around a subset of them
/// (lips, an eye), turned so the line from point `left` to point `right` lies at `targetAngle`, `scale` times the
/// subset's extent. Output `[1, 4, 4]`, row-major: crop pixel to landmark coordinates.
struct LandmarksToMatrixStep: Step {
    let input: Int, output: Int
    let subset: [Int]
    let left: Int, right: Int
    let width: Int, height: Int
    let scale: SIMD2<Float>
    let targetAngle: Float
    var reads: [Int] { [input] }
    var writes: [Int] { [output] }
    var description: String { "landmarks to matrix (\(subset.count) points) -> \(width)x\(height)" }

    func run(_ ctx: RunContext) {
        let p = UnsafePointer(ctx.pointer(input))
        func point(_ i: Int) -> SIMD2<Float> { SIMD2(p[3 * i], p[3 * i + 1]) }
        let l = point(left), r = point(right)
        let rotation = targetAngle - atan2(r.y - l.y, r.x - l.x)
        let c = cos(rotation), s = sin(rotation)
        func rotate(_ q: SIMD2<Float>, _ c: Float, _ s: Float) -> SIMD2<Float> { SIMD2(c * q.x - s * q.y, s * q.x + c * q.y) }
        var lo = rotate(point(subset[0]), c, s), hi = lo
        for i in subset {
            let q = rotate(point(i), c, s)
            lo = pointwiseMin(lo, q)
            hi = pointwiseMax(hi, q)
        }
        let extent = hi - lo
        let centre = rotate((lo + hi) / 2, cos(-rotation), sin(-rotation))
        let w = Float(width), h = Float(height)
        // T(centre) · R(-rotation) · S(sx, sy) · T(-w/2, -h/2), in float as MediaPipe's Mat4 products compute it
        // (the third and fourth rows are the identity's).
        let sx = scale.x * extent.x / w, sy = scale.y * extent.y / h
        let cr = cos(-rotation), sr = sin(-rotation)
        let r00 = cr * sx, r01 = -sr * sy, r10 = sr * sx, r11 = cr * sy
        let y = ctx.pointer(output)
        y.update(repeating: 0, count: 16)
        (y[0], y[1], y[3]) = (r00, r01, r00 * (-w / 2) + r01 * (-h / 2) + centre.x)
        (y[4], y[5], y[7]) = (r10, r11, r10 * (-w / 2) + r11 * (-h / 2) + centre.y)
        (y[10], y[15]) = (1, 1)
    }
}

/// MediaPipe's `TransformTensorBilinear` (v2, transform_tensor_bilinear.cc): an `outH` x `outW` crop of an NHWC
/// map, each output pixel's centre mapped through the matrix's first two rows to the map, read bilinearly; a
/// centre outside the map (not within its first and last pixel centres) is zeros, never clamped.
struct TransformTensorStep: Step {
    let input: Int, matrix: Int, output: Int
    let shape: HWC
    let outH: Int, outW: Int
    var reads: [Int] { [input, matrix] }
    var writes: [Int] { [output] }
    var description: String { "transform tensor \(shape) -> \(outH)x\(outW)" }

    func run(_ ctx: RunContext) {
        let x = UnsafePointer(ctx.pointer(input)), m = UnsafePointer(ctx.pointer(matrix)), y = ctx.pointer(output)
        let C = shape.c
        // Pixel centres: (u + 1/2, v + 1/2) in, minus 1/2 out, folded into the translation; in double, rounded
        // once, as the C++ (`x_transform[3] += x_transform[0] * 0.5 + ...` with double literals) does.
        func centred(_ t: Float, _ a: Float, _ b: Float) -> Float { Float(Double(t) + (Double(a) * 0.5 + Double(b) * 0.5 - 0.5)) }
        let a0 = m[0], a1 = m[1], a3 = centred(m[3], a0, a1)
        let b0 = m[4], b1 = m[5], b3 = centred(m[7], b0, b1)
        let maxX = Float(shape.w - 1), maxY = Float(shape.h - 1)
        for v in 0..<outH {
            for u in 0..<outW {
                let fu = Float(u), fv = Float(v)
                let X = a0 * fu + a1 * fv + a3, Y = b0 * fu + b1 * fv + b3
                let out = y + (v * outW + u) * C
                guard X >= 0, X <= maxX, Y >= 0, Y <= maxY else {
                    out.update(repeating: 0, count: C)
                    continue
                }
                let fx0 = X.rounded(.down), fy0 = Y.rounded(.down)
                let x0 = Int(fx0), y0 = Int(fy0)
                let dx = X - fx0, dy = Y - fy0
                // A tap past the last row or column (a centre exactly on it) reads zero with weight zero.
                let hasRight = x0 + 1 < shape.w, hasBelow = y0 + 1 < shape.h
                let q11 = x + (y0 * shape.w + x0) * C
                let q21 = q11 + C, q12 = q11 + shape.w * C, q22 = q12 + C
                for k in 0..<C {
                    let v11 = q11[k], v21 = hasRight ? q21[k] : 0
                    let v12 = hasBelow ? q12[k] : 0, v22 = hasRight && hasBelow ? q22[k] : 0
                    // `1.0 - contrib` is a double in the C++, so each blend is summed in double and rounded once.
                    let upper = Float((1 - Double(dx)) * Double(v11) + Double(dx * v21))
                    let lower = Float((1 - Double(dx)) * Double(v12) + Double(dx * v22))
                    out[k] = Float(Double(dy * lower) + (1 - Double(dy)) * Double(upper))
                }
            }
        }
    }
}

/// MediaPipe's `TransformLandmarks` (v2, transform_landmarks.cc): each point's x, y through the matrix's first
/// two rows (z, when there is one, kept).
struct TransformLandmarksStep: Step {
    let input: Int, matrix: Int, output: Int
    let points: Int, dimensions: Int
    var reads: [Int] { [input, matrix] }
    var writes: [Int] { [output] }
    var description: String { "transform landmarks (\(points) points)" }

    func run(_ ctx: RunContext) {
        let x = UnsafePointer(ctx.pointer(input)), m = UnsafePointer(ctx.pointer(matrix)), y = ctx.pointer(output)
        let d = dimensions
        for i in 0..<points {
            let px = x[i * d], py = x[i * d + 1]
            y[i * d] = m[0] * px + m[1] * py + m[3]
            y[i * d + 1] = m[4] * px + m[5] * py + m[7]
            if d == 3 { y[i * d + 2] = x[i * d + 2] }
        }
    }
}
