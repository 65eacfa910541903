/// Times as Create ML's annotation files write them: seconds (`3`, `3.14`), `MM:SS`, `MM:SS.ff`,
/// `H:MM:SS`, and Apple's looser forms such as `1:59:5.8` and `8:3.2`.
public enum TimeValue {
    /// Seconds, or nil when `text` is not a time. Negative values are returned (the validator reports them).
    public static func parse(_ text: String) -> Double? {
        let t = text.trimmingCharacters(in: .whitespaces)
        guard !t.isEmpty else { return nil }
        var negative = false
        var body = Substring(t)
        if body.hasPrefix("-") { negative = true; body = body.dropFirst() }
        let parts = body.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        var total = 0.0
        for (i, part) in parts.enumerated() {
            let last = i == parts.count - 1
            guard !part.isEmpty, part.allSatisfy({ $0.isASCII && ($0.isNumber || (last && $0 == ".")) }),
                  part.filter({ $0 == "." }).count <= 1, part != ".", let v = Double(part) else { return nil }
            total = total * 60 + v
        }
        return negative ? -total : total
    }

    /// `MM:SS.ff`-style text for a time, for writing files back.
    public static func format(_ seconds: Double) -> String {
        guard seconds.isFinite, abs(seconds) < 1e15 else { return "\(seconds)" }
        let minutes = Int(seconds / 60)
        let rest = seconds - Double(minutes) * 60
        return minutes > 0 ? "\(minutes):" + (rest < 10 ? "0" : "") + String(format: "%.3f", rest) : String(format: "%.3f", seconds)
    }
}

import Foundation
