import Support

/// The renderer's random numbers: Support's seedable SplitMix64, offset so seeds of `synth` and of
/// `export` draw different streams. The same seed renders the same bytes.
public typealias SeededGenerator = SplitMix64

extension SplitMix64 {
    public init(renderSeed seed: UInt64) { self.init(seed: seed &+ 0x1234_5678) }
}
