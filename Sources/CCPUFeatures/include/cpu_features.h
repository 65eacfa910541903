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

#endif
