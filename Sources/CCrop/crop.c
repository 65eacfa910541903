// OpenCV's fixed-point bilinear warp (imgproc: remapBilinear on 8-bit images with INTER_BITS 5 and
// INTER_REMAP_COEF_BITS 15), which MediaPipe's ImageToTensorCalculator runs, a vector of tensor pixels at
// a time. Written in C because the four texels of each pixel are fetched with the CPU's gather
// instructions, which Swift cannot emit (docs/engine-kernels.md, "Crops"). Every step is the one
// `RegionCrop.sample` takes lane by lane, so the results are the same bits:
// - positions: ((origin + u * du) + v * dv) * 32, each product and sum rounded on its own (no fused
//   multiply-add: the pragma below), clamped to +-4,000,000 (NaN to the low end), rounded to the nearest
//   1/32 pixel, ties to even;
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

#define AVX2 __attribute__((target("avx2,fma")))
#define AVX512 __attribute__((target("avx512f,avx2,fma")))

// The pixel at each byte offset as one 32-bit word, R G B in its low bytes. Four bytes from the frame's
// last pixel would pass the buffer's end, so offsets from count - 3 on take `last` instead.
AVX2 static inline __m256i texels8(const uint8_t *p, __m256i offset, __m256i lastOffset, __m256i last) {
    const __m256i loadable = _mm256_cmpgt_epi32(lastOffset, offset);
    return _mm256_mask_i32gather_epi32(last, (const int *)p, offset, loadable, 1);
}

AVX2 static inline __m256 channel8(__m256i texel, int shift) {
    return _mm256_cvtepi32_ps(_mm256_and_si256(_mm256_srli_epi32(texel, shift), _mm256_set1_epi32(0xff)));
}

// A position in 1/32 pixels, clamped and rounded as the Swift sampler does.
AVX2 static inline __m256i fixed8(__m256 f) {
    const __m256 magic = _mm256_set1_ps(12582912.0f);
    f = _mm256_max_ps(f, _mm256_set1_ps(-4000000.0f)); // the second operand when f is NaN
    f = _mm256_min_ps(f, _mm256_set1_ps(4000000.0f));
    return _mm256_sub_epi32(_mm256_castps_si256(_mm256_add_ps(f, magic)), _mm256_castps_si256(magic));
}

// The frame's lines a row of tensor pixels `ahead` rows down will read (its top-left texels' rows and
// the rows below), asked for now: frames are larger than the caches, and a crop that waits for each line
// takes about twice as long (docs/engine-kernels.md, "Crops").
enum { ahead = 2 };

AVX2 static inline void prefetch8(const uint8_t *p, handpose_crop_geometry g, __m256 us, int32_t row, int32_t lanes,
                                  int32_t width, int32_t height) {
    const __m256 thirtyTwo = _mm256_set1_ps(32);
    const __m256i x = _mm256_srai_epi32(fixed8(_mm256_mul_ps(_mm256_add_ps(_mm256_set1_ps(g.origin_x), _mm256_add_ps(_mm256_mul_ps(us, _mm256_set1_ps(g.du_x)), _mm256_set1_ps((float)row * g.dv_x))), thirtyTwo)), 5);
    const __m256i y = _mm256_srai_epi32(fixed8(_mm256_mul_ps(_mm256_add_ps(_mm256_set1_ps(g.origin_y), _mm256_add_ps(_mm256_mul_ps(us, _mm256_set1_ps(g.du_y)), _mm256_set1_ps((float)row * g.dv_y))), thirtyTwo)), 5);
    const __m256i cx = _mm256_min_epi32(_mm256_max_epi32(x, _mm256_setzero_si256()), _mm256_set1_epi32(width - 1));
    const __m256i cy = _mm256_min_epi32(_mm256_max_epi32(y, _mm256_setzero_si256()), _mm256_set1_epi32(height - 1));
    int32_t at[8];
    _mm256_storeu_si256((__m256i *)at, _mm256_add_epi32(_mm256_mullo_epi32(cy, _mm256_set1_epi32(width * 3)), _mm256_add_epi32(cx, _mm256_add_epi32(cx, cx))));
    const int32_t lastRow = (height - 1) * width * 3;
    for (int32_t i = 0; i < lanes && i < 8; i++) {
        __builtin_prefetch(p + at[i]);
        if (at[i] < lastRow) __builtin_prefetch(p + at[i] + width * 3);
    }
}

AVX2 void handpose_crop_avx2(const uint8_t *pixels, int32_t width, int32_t height, handpose_crop_geometry g,
                             int32_t size, int32_t replicate, float *tensor) {
    const int32_t count = width * height * 3;
    const __m256i last = _mm256_set1_epi32(pixels[count - 3] | pixels[count - 2] << 8 | pixels[count - 1] << 16);
    const __m256i lastOffset = _mm256_set1_epi32(count - 3);
    const __m256i xmax = _mm256_set1_epi32(width - 1), ymax = _mm256_set1_epi32(height - 1);
    const __m256i stride = _mm256_set1_epi32(width * 3), zero = _mm256_setzero_si256(), minusOne = _mm256_set1_epi32(-1);
    const __m256i one = _mm256_set1_epi32(1), fraction = _mm256_set1_epi32(31);
    const __m256 lanes = _mm256_setr_ps(0, 1, 2, 3, 4, 5, 6, 7), thirtyTwo = _mm256_set1_ps(32);
    const __m256 half = _mm256_set1_ps(16384), scale = _mm256_set1_ps(1.0f / 255.0f);
    // Interleaving: output vector k holds floats 8k..8k+7, float J being channel J % 3 of pixel J / 3.
    const __m256i pick0 = _mm256_setr_epi32(0, 0, 0, 1, 1, 1, 2, 2);
    const __m256i pick1 = _mm256_setr_epi32(2, 3, 3, 3, 4, 4, 4, 5);
    const __m256i pick2 = _mm256_setr_epi32(5, 5, 6, 6, 6, 7, 7, 7);
    for (int32_t v = 0; v < size; v++) {
        float *out = tensor + (size_t)v * (size_t)size * 3;
        const __m256 rowX = _mm256_set1_ps((float)v * g.dv_x), rowY = _mm256_set1_ps((float)v * g.dv_y);
        for (int32_t u0 = 0; u0 < size; u0 += 8) {
            const __m256 us = _mm256_add_ps(lanes, _mm256_set1_ps((float)u0));
            const __m256i X = fixed8(_mm256_mul_ps(_mm256_add_ps(_mm256_add_ps(_mm256_set1_ps(g.origin_x), _mm256_mul_ps(us, _mm256_set1_ps(g.du_x))), rowX), thirtyTwo));
            const __m256i Y = fixed8(_mm256_mul_ps(_mm256_add_ps(_mm256_add_ps(_mm256_set1_ps(g.origin_y), _mm256_mul_ps(us, _mm256_set1_ps(g.du_y))), rowY), thirtyTwo));
            const __m256i x0 = _mm256_srai_epi32(X, 5), y0 = _mm256_srai_epi32(Y, 5);
            const __m256i x1 = _mm256_add_epi32(x0, one), y1 = _mm256_add_epi32(y0, one);
            const __m256 a = _mm256_cvtepi32_ps(_mm256_and_si256(X, fraction)), b = _mm256_cvtepi32_ps(_mm256_and_si256(Y, fraction));
            const __m256 ia = _mm256_sub_ps(thirtyTwo, a), ib = _mm256_sub_ps(thirtyTwo, b);
            __m256 w00 = _mm256_mul_ps(_mm256_mul_ps(ia, ib), thirtyTwo), w01 = _mm256_mul_ps(_mm256_mul_ps(a, ib), thirtyTwo);
            __m256 w10 = _mm256_mul_ps(_mm256_mul_ps(ia, b), thirtyTwo), w11 = _mm256_mul_ps(_mm256_mul_ps(a, b), thirtyTwo);
            if (!replicate) {
                const __m256i inX0 = _mm256_andnot_si256(_mm256_cmpgt_epi32(x0, xmax), _mm256_cmpgt_epi32(x0, minusOne));
                const __m256i inX1 = _mm256_andnot_si256(_mm256_cmpgt_epi32(x1, xmax), _mm256_cmpgt_epi32(x1, minusOne));
                const __m256i inY0 = _mm256_andnot_si256(_mm256_cmpgt_epi32(y0, ymax), _mm256_cmpgt_epi32(y0, minusOne));
                const __m256i inY1 = _mm256_andnot_si256(_mm256_cmpgt_epi32(y1, ymax), _mm256_cmpgt_epi32(y1, minusOne));
                w00 = _mm256_and_ps(w00, _mm256_castsi256_ps(_mm256_and_si256(inX0, inY0)));
                w01 = _mm256_and_ps(w01, _mm256_castsi256_ps(_mm256_and_si256(inX1, inY0)));
                w10 = _mm256_and_ps(w10, _mm256_castsi256_ps(_mm256_and_si256(inX0, inY1)));
                w11 = _mm256_and_ps(w11, _mm256_castsi256_ps(_mm256_and_si256(inX1, inY1)));
            }
            const __m256i cx0 = _mm256_min_epi32(_mm256_max_epi32(x0, zero), xmax), cx1 = _mm256_min_epi32(_mm256_max_epi32(x1, zero), xmax);
            const __m256i cy0 = _mm256_min_epi32(_mm256_max_epi32(y0, zero), ymax), cy1 = _mm256_min_epi32(_mm256_max_epi32(y1, zero), ymax);
            const __m256i row0 = _mm256_mullo_epi32(cy0, stride), row1 = _mm256_mullo_epi32(cy1, stride);
            const __m256i col0 = _mm256_add_epi32(cx0, _mm256_add_epi32(cx0, cx0)), col1 = _mm256_add_epi32(cx1, _mm256_add_epi32(cx1, cx1));
            prefetch8(pixels, g, us, v + ahead, size - u0, width, height);
            const __m256i t00 = texels8(pixels, _mm256_add_epi32(row0, col0), lastOffset, last);
            const __m256i t01 = texels8(pixels, _mm256_add_epi32(row0, col1), lastOffset, last);
            const __m256i t10 = texels8(pixels, _mm256_add_epi32(row1, col0), lastOffset, last);
            const __m256i t11 = texels8(pixels, _mm256_add_epi32(row1, col1), lastOffset, last);
            __m256 rgb[3];
            for (int c = 0; c < 3; c++) {
                __m256 acc = _mm256_fmadd_ps(channel8(t00, 8 * c), w00, half);
                acc = _mm256_fmadd_ps(channel8(t01, 8 * c), w01, acc);
                acc = _mm256_fmadd_ps(channel8(t10, 8 * c), w10, acc);
                acc = _mm256_fmadd_ps(channel8(t11, 8 * c), w11, acc);
                rgb[c] = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_srai_epi32(_mm256_cvttps_epi32(acc), 15)), scale);
            }
            __m256 o[3];
            o[0] = _mm256_blend_ps(_mm256_blend_ps(_mm256_permutevar8x32_ps(rgb[0], pick0), _mm256_permutevar8x32_ps(rgb[1], pick0), 0x92),
                                   _mm256_permutevar8x32_ps(rgb[2], pick0), 0x24);
            o[1] = _mm256_blend_ps(_mm256_blend_ps(_mm256_permutevar8x32_ps(rgb[0], pick1), _mm256_permutevar8x32_ps(rgb[1], pick1), 0x24),
                                   _mm256_permutevar8x32_ps(rgb[2], pick1), 0x49);
            o[2] = _mm256_blend_ps(_mm256_blend_ps(_mm256_permutevar8x32_ps(rgb[0], pick2), _mm256_permutevar8x32_ps(rgb[1], pick2), 0x49),
                                   _mm256_permutevar8x32_ps(rgb[2], pick2), 0x92);
            const int32_t floats = (size - u0 < 8 ? size - u0 : 8) * 3;
            float *dst = out + (size_t)u0 * 3;
            if (floats == 24) {
                _mm256_storeu_ps(dst, o[0]);
                _mm256_storeu_ps(dst + 8, o[1]);
                _mm256_storeu_ps(dst + 16, o[2]);
            } else {
                const __m256i index = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
                for (int k = 0; k < 3 && 8 * k < floats; k++) {
                    const __m256i keep = _mm256_cmpgt_epi32(_mm256_set1_epi32(floats - 8 * k), index);
                    _mm256_maskstore_ps(dst + 8 * k, keep, o[k]);
                }
            }
        }
    }
}

AVX512 static inline __m512i texels16(const uint8_t *p, __m512i offset, __m512i lastOffset, __m512i last) {
    return _mm512_mask_i32gather_epi32(last, _mm512_cmplt_epi32_mask(offset, lastOffset), offset, (const int *)p, 1);
}

AVX512 static inline __m512 channel16(__m512i texel, int shift) {
    return _mm512_cvtepi32_ps(_mm512_and_si512(_mm512_srli_epi32(texel, shift), _mm512_set1_epi32(0xff)));
}

AVX512 static inline __m512i fixed16(__m512 f) {
    const __m512 magic = _mm512_set1_ps(12582912.0f);
    f = _mm512_max_ps(f, _mm512_set1_ps(-4000000.0f)); // the second operand when f is NaN
    f = _mm512_min_ps(f, _mm512_set1_ps(4000000.0f));
    return _mm512_sub_epi32(_mm512_castps_si512(_mm512_add_ps(f, magic)), _mm512_castps_si512(magic));
}

AVX512 static inline void prefetch16(const uint8_t *p, handpose_crop_geometry g, __m512 us, int32_t row, int32_t lanes,
                                     int32_t width, int32_t height) {
    const __m512 thirtyTwo = _mm512_set1_ps(32);
    const __m512i x = _mm512_srai_epi32(fixed16(_mm512_mul_ps(_mm512_add_ps(_mm512_set1_ps(g.origin_x), _mm512_add_ps(_mm512_mul_ps(us, _mm512_set1_ps(g.du_x)), _mm512_set1_ps((float)row * g.dv_x))), thirtyTwo)), 5);
    const __m512i y = _mm512_srai_epi32(fixed16(_mm512_mul_ps(_mm512_add_ps(_mm512_set1_ps(g.origin_y), _mm512_add_ps(_mm512_mul_ps(us, _mm512_set1_ps(g.du_y)), _mm512_set1_ps((float)row * g.dv_y))), thirtyTwo)), 5);
    const __m512i cx = _mm512_min_epi32(_mm512_max_epi32(x, _mm512_setzero_si512()), _mm512_set1_epi32(width - 1));
    const __m512i cy = _mm512_min_epi32(_mm512_max_epi32(y, _mm512_setzero_si512()), _mm512_set1_epi32(height - 1));
    int32_t at[16];
    _mm512_storeu_si512(at, _mm512_add_epi32(_mm512_mullo_epi32(cy, _mm512_set1_epi32(width * 3)), _mm512_add_epi32(cx, _mm512_add_epi32(cx, cx))));
    const int32_t lastRow = (height - 1) * width * 3;
    for (int32_t i = 0; i < lanes && i < 16; i++) {
        __builtin_prefetch(p + at[i]);
        if (at[i] < lastRow) __builtin_prefetch(p + at[i] + width * 3);
    }
}

AVX512 static inline __mmask16 inside16(__m512i x, __m512i limit) {
    return _mm512_cmpgt_epi32_mask(x, _mm512_set1_epi32(-1)) & _mm512_cmplt_epi32_mask(x, limit);
}

AVX512 void handpose_crop_avx512(const uint8_t *pixels, int32_t width, int32_t height, handpose_crop_geometry g,
                                 int32_t size, int32_t replicate, float *tensor) {
    const int32_t count = width * height * 3;
    const __m512i last = _mm512_set1_epi32(pixels[count - 3] | pixels[count - 2] << 8 | pixels[count - 1] << 16);
    const __m512i lastOffset = _mm512_set1_epi32(count - 3);
    const __m512i xmax = _mm512_set1_epi32(width - 1), ymax = _mm512_set1_epi32(height - 1);
    const __m512i widthV = _mm512_set1_epi32(width), heightV = _mm512_set1_epi32(height);
    const __m512i stride = _mm512_set1_epi32(width * 3), zero = _mm512_setzero_si512();
    const __m512i one = _mm512_set1_epi32(1), fraction = _mm512_set1_epi32(31);
    const __m512 thirtyTwo = _mm512_set1_ps(32), half = _mm512_set1_ps(16384), scale = _mm512_set1_ps(1.0f / 255.0f);
    const __m512 lanes = _mm512_setr_ps(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    // Interleaving: output vector k holds floats 16k..16k+15, float J being channel J % 3 of pixel J / 3.
    int32_t picks[3][16];
    __mmask16 green[3] = {0, 0, 0}, blue[3] = {0, 0, 0};
    for (int k = 0; k < 3; k++) {
        for (int j = 0; j < 16; j++) {
            const int J = 16 * k + j;
            picks[k][j] = J / 3;
            if (J % 3 == 1) green[k] |= (__mmask16)(1u << j);
            if (J % 3 == 2) blue[k] |= (__mmask16)(1u << j);
        }
    }
    const __m512i pick[3] = {_mm512_loadu_si512(picks[0]), _mm512_loadu_si512(picks[1]), _mm512_loadu_si512(picks[2])};
    for (int32_t v = 0; v < size; v++) {
        float *out = tensor + (size_t)v * (size_t)size * 3;
        const __m512 rowX = _mm512_set1_ps((float)v * g.dv_x), rowY = _mm512_set1_ps((float)v * g.dv_y);
        for (int32_t u0 = 0; u0 < size; u0 += 16) {
            const __m512 us = _mm512_add_ps(lanes, _mm512_set1_ps((float)u0));
            const __m512i X = fixed16(_mm512_mul_ps(_mm512_add_ps(_mm512_add_ps(_mm512_set1_ps(g.origin_x), _mm512_mul_ps(us, _mm512_set1_ps(g.du_x))), rowX), thirtyTwo));
            const __m512i Y = fixed16(_mm512_mul_ps(_mm512_add_ps(_mm512_add_ps(_mm512_set1_ps(g.origin_y), _mm512_mul_ps(us, _mm512_set1_ps(g.du_y))), rowY), thirtyTwo));
            const __m512i x0 = _mm512_srai_epi32(X, 5), y0 = _mm512_srai_epi32(Y, 5);
            const __m512i x1 = _mm512_add_epi32(x0, one), y1 = _mm512_add_epi32(y0, one);
            const __m512 a = _mm512_cvtepi32_ps(_mm512_and_si512(X, fraction)), b = _mm512_cvtepi32_ps(_mm512_and_si512(Y, fraction));
            const __m512 ia = _mm512_sub_ps(thirtyTwo, a), ib = _mm512_sub_ps(thirtyTwo, b);
            __m512 w00 = _mm512_mul_ps(_mm512_mul_ps(ia, ib), thirtyTwo), w01 = _mm512_mul_ps(_mm512_mul_ps(a, ib), thirtyTwo);
            __m512 w10 = _mm512_mul_ps(_mm512_mul_ps(ia, b), thirtyTwo), w11 = _mm512_mul_ps(_mm512_mul_ps(a, b), thirtyTwo);
            if (!replicate) {
                const __mmask16 inX0 = inside16(x0, widthV), inX1 = inside16(x1, widthV);
                const __mmask16 inY0 = inside16(y0, heightV), inY1 = inside16(y1, heightV);
                w00 = _mm512_maskz_mov_ps(inX0 & inY0, w00);
                w01 = _mm512_maskz_mov_ps(inX1 & inY0, w01);
                w10 = _mm512_maskz_mov_ps(inX0 & inY1, w10);
                w11 = _mm512_maskz_mov_ps(inX1 & inY1, w11);
            }
            const __m512i cx0 = _mm512_min_epi32(_mm512_max_epi32(x0, zero), xmax), cx1 = _mm512_min_epi32(_mm512_max_epi32(x1, zero), xmax);
            const __m512i cy0 = _mm512_min_epi32(_mm512_max_epi32(y0, zero), ymax), cy1 = _mm512_min_epi32(_mm512_max_epi32(y1, zero), ymax);
            const __m512i row0 = _mm512_mullo_epi32(cy0, stride), row1 = _mm512_mullo_epi32(cy1, stride);
            const __m512i col0 = _mm512_add_epi32(cx0, _mm512_add_epi32(cx0, cx0)), col1 = _mm512_add_epi32(cx1, _mm512_add_epi32(cx1, cx1));
            prefetch16(pixels, g, us, v + ahead, size - u0, width, height);
            const __m512i t00 = texels16(pixels, _mm512_add_epi32(row0, col0), lastOffset, last);
            const __m512i t01 = texels16(pixels, _mm512_add_epi32(row0, col1), lastOffset, last);
            const __m512i t10 = texels16(pixels, _mm512_add_epi32(row1, col0), lastOffset, last);
            const __m512i t11 = texels16(pixels, _mm512_add_epi32(row1, col1), lastOffset, last);
            __m512 rgb[3];
            for (int c = 0; c < 3; c++) {
                __m512 acc = _mm512_fmadd_ps(channel16(t00, 8 * c), w00, half);
                acc = _mm512_fmadd_ps(channel16(t01, 8 * c), w01, acc);
                acc = _mm512_fmadd_ps(channel16(t10, 8 * c), w10, acc);
                acc = _mm512_fmadd_ps(channel16(t11, 8 * c), w11, acc);
                rgb[c] = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_srai_epi32(_mm512_cvttps_epi32(acc), 15)), scale);
            }
            const int32_t floats = (size - u0 < 16 ? size - u0 : 16) * 3;
            float *dst = out + (size_t)u0 * 3;
            for (int k = 0; k < 3 && 16 * k < floats; k++) {
                __m512 o = _mm512_permutexvar_ps(pick[k], rgb[0]);
                o = _mm512_mask_blend_ps(green[k], o, _mm512_permutexvar_ps(pick[k], rgb[1]));
                o = _mm512_mask_blend_ps(blue[k], o, _mm512_permutexvar_ps(pick[k], rgb[2]));
                const int32_t n = floats - 16 * k;
                _mm512_mask_storeu_ps(dst + 16 * k, n >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << n) - 1), o);
            }
        }
    }
}

#endif
