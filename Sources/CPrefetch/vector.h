// The AVX-512 kernels' clamp and PReLU on 16 floats, which the compiler makes a max and a min (a compare and
// a masked multiply) wherever they are inlined. Written in Swift, lane by lane or with masks, what the
// optimiser made of them depended on the code around them: the lane loop became a compare, a min and a
// masked move beside one accumulator row, but sixteen scalar steps through memory beside the twelve of the
// 6x32 gemm tile (about 900 cycles a tile); masks gave some twenty instructions in the depthwise kernel.
// Swift sees `handpose_float16` as SIMD16<Float>. Same results as the Swift forms bit for bit:
// `x < lo ? lo : x` is maxps(lo, x), so NaN and -0 pass.
#pragma once

// Plain vector code, no intrinsics header: <immintrin.h> imported into the kernel modules made Swift emit
// helpers for its types under one shared name in every variant (KernelVariantBuildTests). Each select below
// is `and`/`or` with a comparison's mask, which the compiler turns into a max, a min or a masked move.
typedef float handpose_float16 __attribute__((ext_vector_type(16)));
typedef int handpose_int16 __attribute__((ext_vector_type(16)));

/// `when ? a : b` lane by lane, `when` a comparison's result (all bits set or none).
static inline __attribute__((always_inline)) handpose_float16 handpose_select16(handpose_int16 when, handpose_float16 a,
                                                                               handpose_float16 b) {
    return (handpose_float16)(((handpose_int16)a & when) | ((handpose_int16)b & ~when));
}

/// `x < lo ? lo : (x > hi ? hi : x)` in every lane (NaN stays NaN, -0 stays -0).
static inline __attribute__((always_inline)) handpose_float16 handpose_clamp16(handpose_float16 v, float lo, float hi) {
    handpose_float16 l = lo, h = hi;
    handpose_float16 t = handpose_select16(v < l, l, v);
    return handpose_select16(t > h, h, t);
}

/// `x < 0 ? x * alpha : x` in every lane (PReLU: NaN and -0 pass).
static inline __attribute__((always_inline)) handpose_float16 handpose_prelu16(handpose_float16 v, handpose_float16 alpha) {
    handpose_float16 zero = 0;
    return handpose_select16(v < zero, v * alpha, v);
}

// An 8-float store at any address, one unaligned vector move (two on the baseline target). Swift's own
// `storeBytes(of:as:)` of a SIMD8 stays an out-of-line generic call, which made `store8` store lane by lane
// wherever a row is not 32-byte aligned (outputs of 28 or 36 channels: every other row; 42: three in four;
// 39: seven in eight).
typedef float handpose_float8 __attribute__((ext_vector_type(8)));
typedef float handpose_float8_unaligned __attribute__((ext_vector_type(8), aligned(4)));

static inline __attribute__((always_inline)) void handpose_store8(float *p, handpose_float8 v) {
    *(handpose_float8_unaligned *)p = v;
}
