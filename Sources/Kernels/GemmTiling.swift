/// How the AVX-512 kernels cut a matrix product into register tiles, chosen once per process for the
/// core it runs on (the baseline and AVX2 kernels have one way). Both keep twelve 16-wide accumulators
/// and form every value the same way (bias, then one fused multiply-add per step of k), so the choice
/// changes the speed, never a bit of the output. The tiling also picks the AVX-512 tile of the convolutions
/// read in place into 17-32 outputs (`DirectConv`: `direct8x32` with `wide`, `direct4x24` and `direct4x32`
/// with `rows12`): `direct8x32` fills 16-wide vectors where 24 outputs leave a quarter of them empty, which pays
/// where a 16-wide multiply-add costs what an 8-wide one does. Measured on Zen 5 (server) only; on cores whose
/// units are 256-bit it is not measured, and `HANDPOSE_GEMM_TILING=12x16` gives the other tiles.
public enum GemmTiling: String, CaseIterable, Sendable {
    /// Twelve rows of one 16-column panel (`gemm12x16`): a weight vector and twelve broadcasts, thirteen
    /// loads for twelve multiply-adds. Where AVX-512 multiply-adds run as two 256-bit halves (Zen 4: one
    /// 512-bit multiply-add a cycle) the loads keep up; this tile reached 95% of that core's peak.
    case rows12 = "12x16"
    /// Six rows of two panels (`gemm6x32`): two weight vectors and six broadcasts, each feeding two
    /// multiply-adds, eight loads for twelve. A core with two full-width 512-bit multiply-add units
    /// finishes twelve in six cycles, and thirteen loads take longer than that: on Zen 5 this tile ran at
    /// 89-90% of the peak where `gemm12x16` ran at 74-77% (`handpose bench kernels`).
    case wide = "6x32"

    /// The tiling for `cpu`: `rows12` on Zen 4, where it was measured at 95% of the peak and `wide` was not
    /// measured; `wide` on every other CPU with AVX-512. `wide` was measured on Zen 5 (server, full width)
    /// only. It needs fewer loads for the same multiply-adds, so it is not expected to lose where the units
    /// are full width (Intel's Xeons with two 512-bit units) or half (Zen 5 in laptops, Xeons with one unit),
    /// but that is reasoning, not measurement: `HANDPOSE_GEMM_TILING` lets a user time both on their CPU.
    public static func suited(to cpu: CPUDescription) -> GemmTiling {
        cpu.microarchitecture == "Zen 4" ? .rows12 : .wide
    }
}
