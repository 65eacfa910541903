/// The picture of a dataset report: class balance, detection rate per clip and the baseline's
/// confusion matrix, side by side, labelled in the bitmap font. Takes plain values, so it knows
/// nothing of exports.
public enum ReportChart {
    public struct Input {
        /// Examples per class (all parts).
        public var classes: [(name: String, examples: Int)]
        /// Detection rate (0...1) per clip.
        public var clips: [(name: String, rate: Double)]
        /// Rows: true class, columns: predicted; nil when there is no baseline.
        public var confusion: [[Int]]?
        public var title: String

        public init(classes: [(name: String, examples: Int)], clips: [(name: String, rate: Double)], confusion: [[Int]]?, title: String) {
            self.classes = classes; self.clips = clips; self.confusion = confusion; self.title = title
        }
    }

    static let background = SIMD3<Float>(250, 250, 250)
    static let ink = SIMD3<Float>(30, 30, 30)
    static let bar = SIMD3<Float>(60, 120, 200)
    static let warn = SIMD3<Float>(220, 80, 60)

    public static func draw(_ input: Input) -> Canvas {
        let panel = 360, pad = 24, top = 56
        var c = Canvas(width: 3 * panel + 4 * pad, height: top + panel + 2 * pad, fill: background)
        c.text(input.title, x: pad, y: 12, scale: 2, color: ink, backing: false)
        balance(&c, input.classes, x: pad, y: top, size: panel)
        detection(&c, input.clips, x: 2 * pad + panel, y: top, size: panel)
        confusion(&c, input.confusion, names: input.classes.map(\.name), x: 3 * pad + 2 * panel, y: top, size: panel)
        return c
    }

    static func rect(_ c: inout Canvas, _ x: Float, _ y: Float, _ w: Float, _ h: Float, _ color: SIMD3<Float>) {
        guard w > 0, h > 0 else { return }
        c.polygon([SIMD2(x, y), SIMD2(x + w, y), SIMD2(x + w, y + h), SIMD2(x, y + h)], color: color)
    }

    /// Horizontal bars, one per class; a class under a tenth of the largest in red.
    static func balance(_ c: inout Canvas, _ classes: [(name: String, examples: Int)], x: Int, y: Int, size: Int) {
        c.text("CLASS BALANCE", x: x, y: y, scale: 1, color: ink, backing: false)
        let most = max(classes.map(\.examples).max() ?? 1, 1)
        let rows = max(classes.count, 1), rowHeight = Float(size - 20) / Float(rows)
        let labelWidth = 110
        for (i, cls) in classes.enumerated() {
            let top = Float(y + 16) + Float(i) * rowHeight
            let h = max(2, rowHeight * 0.7)
            let length = Float(size - labelWidth - 40) * Float(cls.examples) / Float(most)
            rect(&c, Float(x + labelWidth), top, length, h, cls.examples * 10 < most ? warn : bar)
            let ty = Int(top + h / 2) - 3
            c.text(String(cls.name.prefix(17)), x: x, y: ty, scale: 1, color: ink, backing: false)
            c.text("\(cls.examples)", x: x + labelWidth + Int(length) + 4, y: ty, scale: 1, color: ink, backing: false)
        }
    }

    /// Vertical bars of each clip's detection rate, lowest first, with the 50% line.
    static func detection(_ c: inout Canvas, _ clips: [(name: String, rate: Double)], x: Int, y: Int, size: Int) {
        c.text("DETECTION RATE PER CLIP", x: x, y: y, scale: 1, color: ink, backing: false)
        let sorted = clips.sorted { $0.rate < $1.rate }
        let plotTop = Float(y + 20), plotHeight = Float(size - 40)
        rect(&c, Float(x), plotTop + plotHeight, Float(size), 1, ink)
        guard !sorted.isEmpty else {
            c.text("NO KEYPOINT FILES", x: x + 8, y: y + size / 2, scale: 1, color: ink, backing: false)
            return
        }
        let w = Float(size) / Float(sorted.count)
        for (i, clip) in sorted.enumerated() {
            let h = plotHeight * Float(clip.rate)
            rect(&c, Float(x) + Float(i) * w + w * 0.1, plotTop + plotHeight - h, max(1, w * 0.8), h, clip.rate < 0.5 ? warn : bar)
        }
        let half = plotTop + plotHeight / 2
        rect(&c, Float(x), half, Float(size), 1, warn)
        c.text("50%", x: x + size - 24, y: Int(half) - 10, scale: 1, color: warn, backing: false)
        c.text("\(sorted.count) CLIPS, LOWEST \(Int((sorted[0].rate * 100).rounded()))%", x: x, y: y + size - 12, scale: 1, color: ink, backing: false)
    }

    /// The confusion matrix as shades of blue, each cell's share of its row, with counts.
    static func confusion(_ c: inout Canvas, _ matrix: [[Int]]?, names: [String], x: Int, y: Int, size: Int) {
        c.text("BASELINE CONFUSION (ROWS: TRUE)", x: x, y: y, scale: 1, color: ink, backing: false)
        guard let matrix else {
            c.text("NO BASELINE", x: x + 8, y: y + size / 2, scale: 1, color: ink, backing: false)
            c.text("EXPORT WITH --SPLIT", x: x + 8, y: y + size / 2 + 12, scale: 1, color: ink, backing: false)
            return
        }
        guard !matrix.isEmpty else {
            // A baseline over more classes than a matrix is drawn for (`BaselineClassifier.confusionClassLimit`).
            c.text("TOO MANY CLASSES", x: x + 8, y: y + size / 2, scale: 1, color: ink, backing: false)
            c.text("FOR A MATRIX", x: x + 8, y: y + size / 2 + 12, scale: 1, color: ink, backing: false)
            return
        }
        let n = matrix.count, label = 70
        let cell = Float(size - label - 10) / Float(n)
        let x0 = Float(x + label), y0 = Float(y + 20)
        for (r, row) in matrix.enumerated() {
            let total = max(row.reduce(0, +), 1)
            for (k, count) in row.enumerated() {
                let share = Float(count) / Float(total)
                let color = background + share * (SIMD3<Float>(20, 70, 170) - background)
                rect(&c, x0 + Float(k) * cell + 1, y0 + Float(r) * cell + 1, cell - 2, cell - 2, color)
                if cell >= 18 {
                    c.text("\(count)", x: Int(x0 + Float(k) * cell + cell / 2) - 6, y: Int(y0 + Float(r) * cell + cell / 2) - 3,
                           scale: 1, color: share > 0.5 ? SIMD3(255, 255, 255) : ink, backing: false)
                }
            }
            if r < names.count {
                c.text(String(names[r].prefix(11)), x: x, y: Int(y0 + Float(r) * cell + cell / 2) - 3, scale: 1, color: ink, backing: false)
            }
        }
    }
}
