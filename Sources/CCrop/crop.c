// OpenCV's fixed-point bilinear warp (imgproc: remapBilinear on 8-bit images with INTER_BITS 5 and
// INTER_REMAP_COEF_BITS 15), which MediaPipe's ImageToTensorCalculator runs, a vector of tensor pixels at
// a time: the kernel is written once (crop_kernel.h) and included below for AVX2 and for AVX-512. In C
// because the four texels of each pixel are fetched with the CPU's gather instructions, which Swift cannot
// emit (docs/engine-kernels.md, "Crops"). Every step is the one `RegionCrop.sample` takes lane by lane, so
// the results are the same bits:
// - positions: ((origin + u * du) + v * dv) * 32, each product and sum rounded on its own (no fused
//   multiply-add: the pragma below, above the headers), clamped to +-4,000,000 (NaN to the low end),
//   rounded to the nearest 1/32 pixel, ties to even;
// - weights: OpenCV's table entry for fractions (a, b) in 1/32ths is (32 - a)(32 - b) * 32 and its three
//   siblings, integers summing to 32768; a corner outside the frame has weight 0 (zero border) or reads the
//   nearest edge pixel (replicate);
// - sums: 16384 plus four products of a byte and a weight, integers below 2^24 and so exact in floats in
//   any order; shifted right by 15 and scaled by 1/255 as a float.
// No fused multiply-add anywhere in this file, the intrinsics' own definitions included.
#pragma clang fp contract(off)

#include "crop.h"

#if defined(__x86_64__)
#include <immintrin.h>
#include <stddef.h>

// The frame's lines a row of tensor pixels `ahead` rows down will read are asked for before the row itself:
// frames are larger than the caches, and a crop that waits for each line takes about twice as long
// (docs/engine-kernels.md, "Crops").
enum { ahead = 2 };

// AVX2: 8 lanes, masks as vectors of all-ones lanes.
#define AVX2 __attribute__((target("avx2,fma")))

// Float J of the 24 that pixels 0-7 make is channel J % 3 of pixel J / 3: each output vector takes its
// pixels' channels from the three vectors (the same permute for each) and blends them.
AVX2 static inline void store_avx2(float *dst, __m256 r, __m256 g, __m256 b, int32_t floats) {
    const __m256i pick[3] = {_mm256_setr_epi32(0, 0, 0, 1, 1, 1, 2, 2), _mm256_setr_epi32(2, 3, 3, 3, 4, 4, 4, 5),
                             _mm256_setr_epi32(5, 5, 6, 6, 6, 7, 7, 7)};
    __m256 o[3];
    o[0] = _mm256_blend_ps(_mm256_blend_ps(_mm256_permutevar8x32_ps(r, pick[0]), _mm256_permutevar8x32_ps(g, pick[0]), 0x92),
                           _mm256_permutevar8x32_ps(b, pick[0]), 0x24);
    o[1] = _mm256_blend_ps(_mm256_blend_ps(_mm256_permutevar8x32_ps(r, pick[1]), _mm256_permutevar8x32_ps(g, pick[1]), 0x24),
                           _mm256_permutevar8x32_ps(b, pick[1]), 0x49);
    o[2] = _mm256_blend_ps(_mm256_blend_ps(_mm256_permutevar8x32_ps(r, pick[2]), _mm256_permutevar8x32_ps(g, pick[2]), 0x49),
                           _mm256_permutevar8x32_ps(b, pick[2]), 0x92);
    if (floats == 24) {
        _mm256_storeu_ps(dst, o[0]);
        _mm256_storeu_ps(dst + 8, o[1]);
        _mm256_storeu_ps(dst + 16, o[2]);
        return;
    }
    const __m256i index = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    for (int k = 0; k < 3 && 8 * k < floats; k++) {
        _mm256_maskstore_ps(dst + 8 * k, _mm256_cmpgt_epi32(_mm256_set1_epi32(floats - 8 * k), index), o[k]);
    }
}

#define CROP_SUFFIX avx2
#define CROP_TARGET AVX2
#define LANES 8
#define VF __m256
#define VI __m256i
#define VM __m256i
#define F_SET1 _mm256_set1_ps
#define F_LANES _mm256_setr_ps(0, 1, 2, 3, 4, 5, 6, 7)
#define F_ADD _mm256_add_ps
#define F_SUB _mm256_sub_ps
#define F_MUL _mm256_mul_ps
#define F_MAX _mm256_max_ps
#define F_MIN _mm256_min_ps
#define F_FMA _mm256_fmadd_ps
#define F_FROM_I _mm256_cvtepi32_ps
#define F_TRUNC _mm256_cvttps_epi32
#define F_BITS _mm256_castps_si256
#define F_KEEP(mask, v) _mm256_and_ps(v, _mm256_castsi256_ps(mask))
#define I_SET1 _mm256_set1_epi32
#define I_ADD _mm256_add_epi32
#define I_SUB _mm256_sub_epi32
#define I_AND _mm256_and_si256
#define I_SRAI _mm256_srai_epi32
#define I_SRLI _mm256_srli_epi32
#define I_MIN _mm256_min_epi32
#define I_MAX _mm256_max_epi32
#define I_MULLO _mm256_mullo_epi32
#define I_STOREU(p, v) _mm256_storeu_si256((__m256i *)(p), v)
#define I_LT(a, b) _mm256_cmpgt_epi32(b, a)
#define M_AND _mm256_and_si256
#define GATHER(src, base, offsets, mask) _mm256_mask_i32gather_epi32(src, (const int *)(base), offsets, mask, 1)
#include "crop_kernel.h"

// AVX-512: 16 lanes, masks as mask registers.
#define AVX512 __attribute__((target("avx512f,avx2,fma")))

// As store_avx2, 16 pixels: float J of 48 is channel J % 3 of pixel J / 3.
AVX512 static inline void store_avx512(float *dst, __m512 r, __m512 g, __m512 b, int32_t floats) {
    static const int32_t picks[3][16] = {{0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5},
                                         {5, 5, 6, 6, 6, 7, 7, 7, 8, 8, 8, 9, 9, 9, 10, 10},
                                         {10, 11, 11, 11, 12, 12, 12, 13, 13, 13, 14, 14, 14, 15, 15, 15}};
    static const __mmask16 green[3] = {0x2492, 0x9249, 0x4924}, blue[3] = {0x4924, 0x2492, 0x9249};
    for (int k = 0; k < 3 && 16 * k < floats; k++) {
        const __m512i pick = _mm512_loadu_si512(picks[k]);
        __m512 o = _mm512_permutexvar_ps(pick, r);
        o = _mm512_mask_blend_ps(green[k], o, _mm512_permutexvar_ps(pick, g));
        o = _mm512_mask_blend_ps(blue[k], o, _mm512_permutexvar_ps(pick, b));
        const int32_t n = floats - 16 * k;
        _mm512_mask_storeu_ps(dst + 16 * k, n >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << n) - 1), o);
    }
}

#define CROP_SUFFIX avx512
#define CROP_TARGET AVX512
#define LANES 16
#define VF __m512
#define VI __m512i
#define VM __mmask16
#define F_SET1 _mm512_set1_ps
#define F_LANES _mm512_setr_ps(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
#define F_ADD _mm512_add_ps
#define F_SUB _mm512_sub_ps
#define F_MUL _mm512_mul_ps
#define F_MAX _mm512_max_ps
#define F_MIN _mm512_min_ps
#define F_FMA _mm512_fmadd_ps
#define F_FROM_I _mm512_cvtepi32_ps
#define F_TRUNC _mm512_cvttps_epi32
#define F_BITS _mm512_castps_si512
#define F_KEEP _mm512_maskz_mov_ps
#define I_SET1 _mm512_set1_epi32
#define I_ADD _mm512_add_epi32
#define I_SUB _mm512_sub_epi32
#define I_AND _mm512_and_si512
#define I_SRAI _mm512_srai_epi32
#define I_SRLI _mm512_srli_epi32
#define I_MIN _mm512_min_epi32
#define I_MAX _mm512_max_epi32
#define I_MULLO _mm512_mullo_epi32
#define I_STOREU _mm512_storeu_si512
#define I_LT _mm512_cmplt_epi32_mask
#define M_AND(a, b) ((__mmask16)((a) & (b)))
#define GATHER(src, base, offsets, mask) _mm512_mask_i32gather_epi32(src, mask, offsets, base, 1)
#include "crop_kernel.h"

#endif
