// CPUID and XGETBV, as the Intel SDM (vol. 2A, CPUID; vol. 1, 13.2 and 15.2) defines them: a level counts only
// when the CPU reports every extension of it and the OS has enabled the register state it needs in XCR0.
#include "cpu_features.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <stdint.h>

static uint64_t xcr0(void) {
    uint32_t eax, edx;
    __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
    return ((uint64_t)edx << 32) | eax;
}

handpose_cpu_levels handpose_read_cpu_levels(void) {
    handpose_cpu_levels levels = {false, false};
    unsigned a, b, c, d;
    if (__get_cpuid_max(0, 0) < 7) return levels;
    __get_cpuid(1, &a, &b, &c, &d);
    const unsigned l1c = c;
    __get_cpuid_count(7, 0, &a, &b, &c, &d);
    const unsigned l7b = b;
    unsigned e1c = 0;
    if (__get_cpuid_max(0x80000000u, 0) >= 0x80000001u) { __get_cpuid(0x80000001u, &a, &b, &c, &d); e1c = c; }

    const bool osxsave = l1c & (1u << 27);
    if (!osxsave) return levels;
    const uint64_t state = xcr0();
    const bool ymm = (state & 0x6) == 0x6;            // SSE and AVX state
    const bool zmm = (state & 0xe6) == 0xe6;          // and opmask, ZMM0-15 upper halves, ZMM16-31
    const bool fma = l1c & (1u << 12), movbe = l1c & (1u << 22), avx = l1c & (1u << 28), f16c = l1c & (1u << 29);
    const bool bmi1 = l7b & (1u << 3), avx2 = l7b & (1u << 5), bmi2 = l7b & (1u << 8);
    const bool lzcnt = e1c & (1u << 5);
    const bool avx512f = l7b & (1u << 16), avx512dq = l7b & (1u << 17), avx512cd = l7b & (1u << 28);
    const bool avx512bw = l7b & (1u << 30), avx512vl = l7b & (1u << 31);
    levels.x86_64v3 = ymm && avx && avx2 && fma && bmi1 && bmi2 && f16c && lzcnt && movbe;
    levels.x86_64v4 = levels.x86_64v3 && zmm && avx512f && avx512bw && avx512cd && avx512dq && avx512vl;
    return levels;
}
#else
handpose_cpu_levels handpose_read_cpu_levels(void) {
    handpose_cpu_levels levels = {false, false};
    return levels;
}
#endif
