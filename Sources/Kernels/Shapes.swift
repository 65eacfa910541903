public enum Padding: Sendable { case same, valid }

/// Fused activations, numbered as in the TFLite schema.
public enum Activation: Int, Sendable {
    case none = 0, relu = 1, reluN1To1 = 2, relu6 = 3, tanh = 4
}

/// Height, width and channels of an NHWC activation with batch 1.
public struct HWC: Equatable, Sendable, CustomStringConvertible {
    public var h: Int, w: Int, c: Int
    public init(_ h: Int, _ w: Int, _ c: Int) { self.h = h; self.w = w; self.c = c }
    public var count: Int { h * w * c }
    public var description: String { "\(h)x\(w)x\(c)" }
}

/// Output size and leading padding of a window op, as TFLite computes them: SAME gives
/// `ceil(in / stride)` outputs with the odd padding pixel at the end; VALID gives none.
public struct Window: Equatable, Sendable {
    public var kh: Int, kw: Int, sh: Int, sw: Int, dh: Int, dw: Int
    public var outH: Int, outW: Int, padTop: Int, padLeft: Int

    public init(input: HWC, kh: Int, kw: Int, sh: Int, sw: Int, dh: Int = 1, dw: Int = 1, padding: Padding) {
        self.kh = kh; self.kw = kw; self.sh = sh; self.sw = sw; self.dh = dh; self.dw = dw
        let ekh = (kh - 1) * dh + 1, ekw = (kw - 1) * dw + 1
        switch padding {
        case .same:
            outH = (input.h + sh - 1) / sh
            outW = (input.w + sw - 1) / sw
            padTop = max((outH - 1) * sh + ekh - input.h, 0) / 2
            padLeft = max((outW - 1) * sw + ekw - input.w, 0) / 2
        case .valid:
            outH = (input.h - ekh + sh) / sh
            outW = (input.w - ekw + sw) / sw
            padTop = 0
            padLeft = 0
        }
    }
}
