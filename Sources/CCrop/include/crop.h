#ifndef HANDPOSE_CROP_H
#define HANDPOSE_CROP_H
#include <stdint.h>

/// Where tensor pixel (u, v) reads the frame: origin + u * du + v * dv, in frame pixels.
typedef struct {
    float origin_x, origin_y, du_x, du_y, dv_x, dv_y;
} handpose_crop_geometry;

/// OpenCV's fixed-point bilinear warp of an 8-bit RGB frame (`width * height * 3` bytes, at most
/// 2^31 - 16 of them) into `size * size * 3` floats in [0, 1], as `RegionCrop.sample` computes it, bit
/// for bit, eight (AVX2) or sixteen (AVX-512) tensor pixels at a time with the CPU's gathers, which
/// Swift cannot ask for. `replicate` 0: zeros outside the frame; otherwise the nearest edge pixel.
/// x86-64 only; the caller checks that the CPU runs the instruction set.
void handpose_crop_avx2(const uint8_t *pixels, int32_t width, int32_t height, handpose_crop_geometry geometry,
                        int32_t size, int32_t replicate, float *tensor);
void handpose_crop_avx512(const uint8_t *pixels, int32_t width, int32_t height, handpose_crop_geometry geometry,
                          int32_t size, int32_t replicate, float *tensor);

#endif
