import Foundation

/// A baseline that says whether a dataset is learnable before any GPU is spent: multinomial logistic
/// regression on standardised features, trained by full-batch gradient descent with L2 (deterministic:
/// zero start, fixed steps, so there is nothing to seed), scored on held-out examples. Written here:
/// it is forty lines and no package on this machine offers it; swift-numerics would add nothing the
/// standard library lacks for this.
public struct BaselineClassifier: Sendable {
    public let classes: Int
    public let features: Int
    var mean: [Float]
    var scale: [Float]
    var weights: [Float]   // classes x (features + 1), bias last

    /// Trains on `x` (`n` rows of `features`) with labels `y` in `0..<classes`.
    public init(x: [Float], y: [Int], features: Int, classes: Int, steps: Int = 300, rate: Float = 0.5, l2: Float = 1e-3) {
        precondition(features > 0 && classes > 0 && x.count == y.count * features)
        self.classes = classes
        self.features = features
        let n = y.count
        mean = [Float](repeating: 0, count: features)
        scale = [Float](repeating: 1, count: features)
        if n > 0 {
            for i in 0..<n { for j in 0..<features { mean[j] += x[i * features + j] } }
            for j in 0..<features { mean[j] /= Float(n) }
            var variance = [Float](repeating: 0, count: features)
            for i in 0..<n { for j in 0..<features { let d = x[i * features + j] - mean[j]; variance[j] += d * d } }
            for j in 0..<features { let s = (variance[j] / Float(n)).squareRoot(); scale[j] = s > 1e-6 ? 1 / s : 0 }
        }
        let stride = features + 1
        weights = [Float](repeating: 0, count: classes * stride)
        guard n > 0 else { return }
        var z = [Float](repeating: 1, count: n * stride)
        for i in 0..<n {
            for j in 0..<features { z[i * stride + j] = (x[i * features + j] - mean[j]) * scale[j] }
        }
        var gradient = [Float](repeating: 0, count: weights.count)
        var scores = [Float](repeating: 0, count: classes)
        for _ in 0..<steps {
            for k in gradient.indices { gradient[k] = 0 }
            for i in 0..<n {
                let row = i * stride
                for c in 0..<classes {
                    var s: Float = 0
                    for j in 0..<stride { s += z[row + j] * weights[c * stride + j] }
                    scores[c] = s
                }
                let p = Self.softmax(scores)
                for c in 0..<classes {
                    let e = p[c] - (y[i] == c ? 1 : 0)
                    if e == 0 { continue }
                    for j in 0..<stride { gradient[c * stride + j] += e * z[row + j] }
                }
            }
            for k in weights.indices {
                let isBias = k % stride == features
                weights[k] -= rate * (gradient[k] / Float(n) + (isBias ? 0 : l2 * weights[k]))
            }
        }
    }

    func standardised(_ row: [Float]) -> [Float] { (0..<features).map { (row[$0] - mean[$0]) * scale[$0] } }

    static func softmax(_ v: [Float]) -> [Float] {
        let m = v.max() ?? 0
        let e = v.map { Foundation.exp($0 - m) }
        let s = e.reduce(0, +)
        return e.map { $0 / s }
    }

    /// The most likely class of one example.
    public func predict(_ row: [Float]) -> Int {
        let z = standardised(row) + [1]
        let stride = features + 1
        var scores = [Float](repeating: 0, count: classes)
        for c in 0..<classes {
            for j in 0..<stride { scores[c] += z[j] * weights[c * stride + j] }
        }
        return scores.indices.max { scores[$0] < scores[$1] } ?? 0
    }

    /// Accuracy, recall per class and the confusion matrix (rows: true class, columns: predicted).
    public struct Score: Codable, Sendable, Equatable {
        public var examples: Int
        public var accuracy: Double
        public var recall: [Double?]
        public var confusion: [[Int]]
        /// Accuracy of always answering the most common training class.
        public var chance: Double
    }

    public func score(x: [Float], y: [Int], chance: Double) -> Score {
        var confusion = [[Int]](repeating: [Int](repeating: 0, count: classes), count: classes)
        for i in y.indices {
            let p = predict(Array(x[i * features..<(i + 1) * features]))
            confusion[y[i]][p] += 1
        }
        let right = (0..<classes).reduce(0) { $0 + confusion[$1][$1] }
        let recall: [Double?] = confusion.enumerated().map { c, row in
            let total = row.reduce(0, +)
            return total == 0 ? nil : Double(row[c]) / Double(total)
        }
        return Score(examples: y.count, accuracy: y.isEmpty ? 0 : Double(right) / Double(y.count), recall: recall,
                     confusion: confusion, chance: chance)
    }
}
