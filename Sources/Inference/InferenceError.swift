/// Why a model could not be loaded, planned or run. Cases carry the file and, where it applies,
/// the operator index and name, so a user can see which part of which model is at fault.
public enum InferenceError: Error, Equatable, CustomStringConvertible {
    case cannotOpen(path: String, reason: String)
    /// The flatbuffer is malformed: an offset or length points outside the file, or a required field is missing.
    case malformed(path: String, reason: String)
    case unsupportedOperator(path: String, index: Int, name: String)
    case unsupportedOption(path: String, index: Int, name: String, reason: String)
    case unsupportedTensorType(path: String, tensor: String, type: Int)
    case shapeMismatch(path: String, index: Int, name: String, reason: String)
    case unknownTensor(name: String)
    case inputSize(expected: Int, got: Int)
    /// `HANDPOSE_MAX_ISA` (or another cap) names no instruction set.
    case unknownISA(variable: String, value: String)
    /// The environment names a matrix-product tiling handpose does not have.
    case unknownGemmTiling(variable: String, value: String)
    /// Kernels asked for by name that this binary or CPU cannot run.
    case isaNotRunnable(isa: String, runnable: [String])

    public var description: String {
        switch self {
        case .cannotOpen(let p, let r): return "\(p): cannot open model (\(r))."
        case .malformed(let p, let r): return "\(p): not a valid TFLite model: \(r)."
        case .unsupportedOperator(let p, let i, let n): return "\(p): operator \(i) is \(n), which handpose's engine does not run."
        case .unsupportedOption(let p, let i, let n, let r): return "\(p): operator \(i) (\(n)): \(r) is not supported."
        case .unsupportedTensorType(let p, let t, let ty): return "\(p): tensor '\(t)' has type \(ty), which the engine does not handle."
        case .shapeMismatch(let p, let i, let n, let r): return "\(p): operator \(i) (\(n)): \(r)."
        case .unknownTensor(let n): return "no input or output named '\(n)'."
        case .inputSize(let e, let g): return "input has \(g) values; the model takes \(e)."
        case .unknownISA(let v, let value):
            return "\(v)=\(value) is not an instruction set handpose knows; use one of \(ISA.allCases.map(\.rawValue).joined(separator: ", "))."
        case .unknownGemmTiling(let v, let value):
            return "\(v)=\(value) is not a matrix-product tiling handpose has; use one of \(GemmTiling.allCases.map(\.rawValue).joined(separator: ", "))."
        case .isaNotRunnable(let isa, let runnable):
            return "\(isa) kernels cannot run here; this binary and CPU run \(runnable.joined(separator: ", "))."
        }
    }
}
