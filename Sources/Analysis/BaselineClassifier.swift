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

    /// Gradient steps of training unless a caller asks otherwise.
    public static let defaultSteps = 300

    /// Multiply-adds a report may spend on its baseline: about ten seconds of this loop on one core of the
    /// machine that measured it (1,000 classes, 1,000 training examples of 42 features: 2.6e10 multiply-adds,
    /// 15 s). Ordinary exports stay well inside it (10 classes of 2,000 pose examples of both hands: 3e9);
    /// the classes come from `dataset.json`, a file from outside, and the cost grows with classes times
    /// examples: a 2,000-sign vocabulary of 20,000 windows would train for half an hour, with both hands for
    /// an hour. A quick check before any GPU is spent must stay quick, so past this a dataset gets no
    /// baseline, and the report says why.
    public static let workBudget = 2e10

    /// The multiply-adds of training on `training` examples and scoring `scored` ones: every step scores
    /// each training example against every class and adds its error back into the gradient (two
    /// multiply-adds an example, class and weight), then moves every weight; scoring is one pass more.
    /// In floating point, so that no count from a file can overflow it.
    public static func work(training: Int, scored: Int, features: Int, classes: Int, steps: Int = BaselineClassifier.defaultSteps) -> Double {
        let weights = Double(classes) * (Double(features) + 1)
        return Double(steps) * (2 * Double(training) + 1) * weights + Double(scored) * weights
    }

    /// Classes past which `score` leaves the confusion matrix out (recall per class is kept): the matrix
    /// grows as the square of the classes (40,000 classes would take 13 GB), and past a few hundred no
    /// table or picture of it can be read.
    public static let confusionClassLimit = 256

    /// Trains on `x` (`n` rows of `features`) with labels `y` in `0..<classes`.
    public init(x: [Float], y: [Int], features: Int, classes: Int, steps: Int = BaselineClassifier.defaultSteps, rate: Float = 0.5,
                l2: Float = 1e-3) {
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
        /// Empty past `confusionClassLimit` classes.
        public var confusion: [[Int]]
        /// Accuracy of always answering the most common training class.
        public var chance: Double
    }

    public func score(x: [Float], y: [Int], chance: Double) -> Score {
        // Accuracy and recall are counted per class, apart from the matrix, so that they do not need it.
        var right = [Int](repeating: 0, count: classes), total = [Int](repeating: 0, count: classes)
        var confusion = classes <= Self.confusionClassLimit
            ? [[Int]](repeating: [Int](repeating: 0, count: classes), count: classes) : []
        for i in y.indices {
            let p = predict(Array(x[i * features..<(i + 1) * features]))
            total[y[i]] += 1
            if p == y[i] { right[y[i]] += 1 }
            if !confusion.isEmpty { confusion[y[i]][p] += 1 }
        }
        let recall: [Double?] = (0..<classes).map { c in total[c] == 0 ? nil : Double(right[c]) / Double(total[c]) }
        return Score(examples: y.count, accuracy: y.isEmpty ? 0 : Double(right.reduce(0, +)) / Double(y.count), recall: recall,
                     confusion: confusion, chance: chance)
    }
}
