// CPUID and XGETBV, as the Intel SDM (vol. 2A, CPUID; vol. 1, 13.2 and 15.2) defines them: a level counts only
// when the CPU reports every extension of it and the OS has enabled the register state it needs in XCR0.
#include "cpu_features.h"
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
#include <stdint.h>
#include <string.h>

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

/// The data and unified caches a descriptor leaf (4 or 0x8000001D) lists, subleaf by subleaf until type 0.
static void read_cache_leaf(unsigned leaf, handpose_cpu_identity *id) {
    for (unsigned i = 0; i < 16; i++) {
        unsigned a, b, c, d;
        __cpuid_count(leaf, i, a, b, c, d);
        const unsigned type = a & 0x1f, level = (a >> 5) & 7;
        if (type == 0) break;
        if (type == 2) continue;  // instructions
        const unsigned long long bytes = (unsigned long long)((b >> 22) + 1) * (((b >> 12) & 0x3ff) + 1) * ((b & 0xfff) + 1) * ((unsigned long long)c + 1);
        const unsigned kib = (unsigned)(bytes / 1024);
        if (level == 1) id->l1d_kib = kib;
        else if (level == 2) id->l2_kib = kib;
        else if (level == 3) id->l3_kib = kib;
    }
}

handpose_cpu_identity handpose_read_cpu_identity(void) {
    handpose_cpu_identity id;
    memset(&id, 0, sizeof id);
    unsigned a, b, c, d;
    const unsigned max = __get_cpuid_max(0, 0);
    __cpuid(0, a, b, c, d);
    memcpy(id.vendor, &b, 4); memcpy(id.vendor + 4, &d, 4); memcpy(id.vendor + 8, &c, 4);
    if (max >= 1) {
        __cpuid(1, a, b, c, d);
        const unsigned base = (a >> 8) & 0xf, ext = (a >> 20) & 0xff;
        id.family = base == 0xf ? base + ext : base;
        id.model = ((a >> 4) & 0xf) | ((base == 0x6 || base == 0xf) ? ((a >> 16) & 0xf) << 4 : 0);
        id.stepping = a & 0xf;
    }
    const unsigned ext_max = __get_cpuid_max(0x80000000u, 0);
    if (ext_max >= 0x80000004u) {
        unsigned words[12];
        for (unsigned i = 0; i < 3; i++) __cpuid(0x80000002u + i, words[4 * i], words[4 * i + 1], words[4 * i + 2], words[4 * i + 3]);
        memcpy(id.brand, words, 48);
        id.brand[48] = 0;
    }
    const bool amd = strcmp(id.vendor, "AuthenticAMD") == 0 || strcmp(id.vendor, "HygonGenuine") == 0;
    bool topology = false;
    if (amd && ext_max >= 0x80000001u) { __cpuid(0x80000001u, a, b, c, d); topology = c & (1u << 22); }
    if (amd && topology && ext_max >= 0x8000001du) read_cache_leaf(0x8000001du, &id);
    else if (!amd && max >= 4) read_cache_leaf(4, &id);
    if (amd && id.l2_kib == 0 && ext_max >= 0x80000006u) {
        __cpuid(0x80000005u, a, b, c, d); id.l1d_kib = c >> 24;
        __cpuid(0x80000006u, a, b, c, d); id.l2_kib = c >> 16; id.l3_kib = (d >> 18) * 512;
    }
    return id;
}
#else
handpose_cpu_identity handpose_read_cpu_identity(void) {
    handpose_cpu_identity id;
    memset(&id, 0, sizeof id);
    return id;
}

handpose_cpu_levels handpose_read_cpu_levels(void) {
    handpose_cpu_levels levels = {false, false};
    return levels;
}
#endif
