/// A value from outside (a file name, a label) as it may appear inside one line of output: control characters
/// (newline, tab, carriage return, escape and the rest of C0 and C1, and DEL) written as Swift escapes (`\n`,
/// `\t`, `\r`, `\u{1B}`), so a name cannot break a one-line-per-finding report or move a terminal's cursor.
public func oneLine(_ value: String) -> String {
    guard value.unicodeScalars.contains(where: isControl) else { return value }
    var out = ""
    for scalar in value.unicodeScalars {
        switch scalar {
        case "\n": out += "\\n"
        case "\t": out += "\\t"
        case "\r": out += "\\r"
        case _ where isControl(scalar): out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out
}

private func isControl(_ s: Unicode.Scalar) -> Bool { s.value < 0x20 || (0x7F...0x9F).contains(s.value) }
