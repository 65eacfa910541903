import Foundation
@_exported import Kernels
import KernelsBaseline
#if arch(x86_64)
import KernelsAVX2
import KernelsAVX512
#endif

/// Chooses the kernel variant at run time, from what the CPU reports (as XNNPACK and oneDNN do).
/// `HANDPOSE_MAX_ISA=baseline|avx2|avx512` caps the choice, as oneDNN's `ONEDNN_MAX_CPU_ISA` does:
/// a cap above what the CPU runs changes nothing.
/// The AVX-512 kernels' tiling (`GemmTiling`) is the one suited to the CPU; `HANDPOSE_GEMM_TILING=12x16|6x32`
/// sets it, to measure one against the other on a CPU (`handpose bench models` under each).
public enum KernelSelection {
    public static let capVariable = "HANDPOSE_MAX_ISA"
    public static let tilingVariable = "HANDPOSE_GEMM_TILING"

    /// The AVX-512 tiling `environment` asks for, else the one suited to this CPU.
    public static func gemmTiling(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> GemmTiling {
        guard let value = environment[tilingVariable], !value.isEmpty else { return .suited(to: .host) }
        guard let named = GemmTiling(rawValue: value.lowercased()) else {
            throw InferenceError.unknownGemmTiling(variable: tilingVariable, value: value)
        }
        return named
    }

    /// The variants this binary carries: every one its architecture has.
    public static var built: [ISA] {
        #if arch(x86_64)
        return [.baseline, .avx2, .avx512]
        #else
        return [.baseline]
        #endif
    }

    /// The built variants this CPU executes, lowest first; the cap is not applied (tests run them all).
    public static var runnable: [ISA] { built.filter(\.runsOnThisCPU) }

    /// The best runnable variant at or below the cap in `environment`.
    public static func best(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ISA {
        var cap = ISA.avx512
        if let value = environment[capVariable], !value.isEmpty {
            guard let named = ISA(rawValue: value.lowercased()) else { throw InferenceError.unknownISA(variable: capVariable, value: value) }
            cap = named
        }
        return runnable.last { $0 <= cap } ?? .baseline
    }

    /// The kernels of `isa` (AVX-512 ones with `gemmTiling`, by default `gemmTiling()`); throws when this
    /// binary or CPU cannot run them, or the environment names no tiling handpose has.
    public static func kernels(_ isa: ISA, gemmTiling tiling: GemmTiling? = nil) throws -> any KernelSet {
        guard runnable.contains(isa) else {
            throw InferenceError.isaNotRunnable(isa: isa.rawValue, runnable: runnable.map(\.rawValue))
        }
        switch isa {
        case .baseline: return KernelsBaseline.KernelVariant()
        #if arch(x86_64)
        case .avx2: return KernelsAVX2.KernelVariant()
        case .avx512: return KernelsAVX512.KernelVariant(gemmTiling: try tiling ?? gemmTiling())
        #else
        default: throw InferenceError.isaNotRunnable(isa: isa.rawValue, runnable: runnable.map(\.rawValue))
        #endif
        }
    }
}
