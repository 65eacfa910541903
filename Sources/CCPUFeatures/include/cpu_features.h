#ifndef HANDPOSE_CPU_FEATURES_H
#define HANDPOSE_CPU_FEATURES_H
#include <stdbool.h>

/// The x86-64 microarchitecture levels the CPU and the operating system support, read with CPUID and
/// XGETBV (no file is read: it works without /proc). On other architectures both are false.
typedef struct {
    /// x86-64-v3: AVX, AVX2, FMA, BMI1, BMI2, F16C, LZCNT, MOVBE, and the OS saves the YMM state.
    bool x86_64v3;
    /// x86-64-v4: AVX-512 F, BW, CD, DQ, VL on top, and the OS saves the opmask and ZMM state.
    bool x86_64v4;
} handpose_cpu_levels;

handpose_cpu_levels handpose_read_cpu_levels(void);

/// Who made the CPU, which one it is and its data caches, from CPUID: leaf 0 (vendor), 1 (family, model,
/// stepping), 0x80000002-4 (brand), and the cache descriptors of leaf 4 (Intel) or 0x8000001D (AMD), with
/// AMD's older 0x80000005/6 where those are missing. A cache not reported is 0. Zeros off x86-64.
typedef struct {
    char vendor[13];
    char brand[49];
    unsigned family, model, stepping;
    /// One core's L1 data and L2 caches, and the L3 its core shares, in KiB.
    unsigned l1d_kib, l2_kib, l3_kib;
} handpose_cpu_identity;

handpose_cpu_identity handpose_read_cpu_identity(void);

#endif
