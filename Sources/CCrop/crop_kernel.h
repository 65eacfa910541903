// The crop kernel, written once: crop.c includes this file for each instruction set after defining its
// parameters, which this file undefines at its end:
// - CROP_SUFFIX (the functions' names end in it), CROP_TARGET (their target attribute), LANES;
// - VF, VI, VM: a vector of LANES floats, of LANES 32-bit integers, a mask of LANES lanes;
// - the operations: F_* on floats, I_* on integers, M_AND and F_KEEP (zeros where the mask is clear) on
//   masks, I_LT (a mask), GATHER(src, base, offsets, mask) (32-bit words at byte offsets, src's lanes where
//   the mask is clear), and a function CROP_(store)(dst, r, g, b, floats) interleaving three vectors of
//   channels into RGB and storing the first `floats` floats.
// Every step is the Swift sampler's (crop.c's opening comment says how).
#define CROP_JOIN2(a, b) a##_##b
#define CROP_JOIN(a, b) CROP_JOIN2(a, b)
#define CROP_(name) CROP_JOIN(name, CROP_SUFFIX)

// A position in 1/32 pixels, clamped and rounded as the Swift sampler does.
CROP_TARGET static inline VI CROP_(fixed)(VF f) {
    const VF magic = F_SET1(12582912.0f);
    f = F_MAX(f, F_SET1(-4000000.0f)); // the second operand when f is NaN
    f = F_MIN(f, F_SET1(4000000.0f));
    return I_SUB(F_BITS(F_ADD(f, magic)), F_BITS(magic));
}

// The positions of tensor pixels `us` of a row along one axis, in 1/32 pixels: ((origin + u * du) + row) * 32,
// `row` being the row's v * dv.
CROP_TARGET static inline VI CROP_(position)(float origin, float du, float row, VF us) {
    return CROP_(fixed)(F_MUL(F_ADD(F_ADD(F_SET1(origin), F_MUL(us, F_SET1(du))), F_SET1(row)), F_SET1(32)));
}

// The byte offset of pixel (x, y), both clamped into the frame.
CROP_TARGET static inline VI CROP_(offset)(VI x, VI y, int32_t width, int32_t height) {
    const VI cx = I_MIN(I_MAX(x, I_SET1(0)), I_SET1(width - 1)), cy = I_MIN(I_MAX(y, I_SET1(0)), I_SET1(height - 1));
    return I_ADD(I_MULLO(cy, I_SET1(width * 3)), I_ADD(cx, I_ADD(cx, cx)));
}

// The pixel at each byte offset as one 32-bit word, R G B in its low bytes. Four bytes from the frame's
// last pixel would pass the buffer's end, so offsets from count - 3 on take `last` instead.
CROP_TARGET static inline VI CROP_(texels)(const uint8_t *p, VI offset, VI lastOffset, VI last) {
    return GATHER(last, p, offset, I_LT(offset, lastOffset));
}

CROP_TARGET static inline VF CROP_(channel)(VI texel, int shift) {
    return F_FROM_I(I_AND(I_SRLI(texel, shift), I_SET1(0xff)));
}

CROP_TARGET static inline VM CROP_(inside)(VI x, int32_t limit) {
    return M_AND(I_LT(I_SET1(-1), x), I_LT(x, I_SET1(limit)));
}

CROP_TARGET void CROP_(handpose_crop)(const uint8_t *pixels, int32_t width, int32_t height, handpose_crop_geometry g,
                                      int32_t size, int32_t replicate, float *tensor) {
    const int32_t count = width * height * 3, lastRow = (height - 1) * width * 3;
    const VI last = I_SET1(pixels[count - 3] | pixels[count - 2] << 8 | pixels[count - 1] << 16);
    const VI lastOffset = I_SET1(count - 3), one = I_SET1(1), fraction = I_SET1(31);
    const VF thirtyTwo = F_SET1(32), half = F_SET1(16384), scale = F_SET1(1.0f / 255.0f);
    for (int32_t v = 0; v < size; v++) {
        float *out = tensor + (size_t)v * (size_t)size * 3;
        for (int32_t u0 = 0; u0 < size; u0 += LANES) {
            const VF us = F_ADD(F_LANES, F_SET1((float)u0));
            const int32_t lanes = size - u0 < LANES ? size - u0 : LANES;
            // The frame's lines the row `ahead` rows down will read: its top-left texels and those under them.
            {
                const float row = (float)(v + ahead);
                int32_t at[LANES];
                I_STOREU(at, CROP_(offset)(I_SRAI(CROP_(position)(g.origin_x, g.du_x, row * g.dv_x, us), 5),
                                           I_SRAI(CROP_(position)(g.origin_y, g.du_y, row * g.dv_y, us), 5), width, height));
                for (int32_t i = 0; i < lanes; i++) {
                    __builtin_prefetch(pixels + at[i]);
                    if (at[i] < lastRow) __builtin_prefetch(pixels + at[i] + width * 3);
                }
            }
            const VI X = CROP_(position)(g.origin_x, g.du_x, (float)v * g.dv_x, us);
            const VI Y = CROP_(position)(g.origin_y, g.du_y, (float)v * g.dv_y, us);
            const VI x0 = I_SRAI(X, 5), y0 = I_SRAI(Y, 5), x1 = I_ADD(x0, one), y1 = I_ADD(y0, one);
            const VF a = F_FROM_I(I_AND(X, fraction)), b = F_FROM_I(I_AND(Y, fraction));
            const VF ia = F_SUB(thirtyTwo, a), ib = F_SUB(thirtyTwo, b);
            VF w00 = F_MUL(F_MUL(ia, ib), thirtyTwo), w01 = F_MUL(F_MUL(a, ib), thirtyTwo);
            VF w10 = F_MUL(F_MUL(ia, b), thirtyTwo), w11 = F_MUL(F_MUL(a, b), thirtyTwo);
            if (!replicate) {
                const VM inX0 = CROP_(inside)(x0, width), inX1 = CROP_(inside)(x1, width);
                const VM inY0 = CROP_(inside)(y0, height), inY1 = CROP_(inside)(y1, height);
                w00 = F_KEEP(M_AND(inX0, inY0), w00);
                w01 = F_KEEP(M_AND(inX1, inY0), w01);
                w10 = F_KEEP(M_AND(inX0, inY1), w10);
                w11 = F_KEEP(M_AND(inX1, inY1), w11);
            }
            const VI t00 = CROP_(texels)(pixels, CROP_(offset)(x0, y0, width, height), lastOffset, last);
            const VI t01 = CROP_(texels)(pixels, CROP_(offset)(x1, y0, width, height), lastOffset, last);
            const VI t10 = CROP_(texels)(pixels, CROP_(offset)(x0, y1, width, height), lastOffset, last);
            const VI t11 = CROP_(texels)(pixels, CROP_(offset)(x1, y1, width, height), lastOffset, last);
            VF rgb[3];
            for (int c = 0; c < 3; c++) {
                VF acc = F_FMA(CROP_(channel)(t00, 8 * c), w00, half);
                acc = F_FMA(CROP_(channel)(t01, 8 * c), w01, acc);
                acc = F_FMA(CROP_(channel)(t10, 8 * c), w10, acc);
                acc = F_FMA(CROP_(channel)(t11, 8 * c), w11, acc);
                rgb[c] = F_MUL(F_FROM_I(I_SRAI(F_TRUNC(acc), 15)), scale);
            }
            CROP_(store)(out + (size_t)u0 * 3, rgb[0], rgb[1], rgb[2], lanes * 3);
        }
    }
}

#undef CROP_JOIN2
#undef CROP_JOIN
#undef CROP_
#undef CROP_SUFFIX
#undef CROP_TARGET
#undef LANES
#undef VF
#undef VI
#undef VM
#undef F_SET1
#undef F_LANES
#undef F_ADD
#undef F_SUB
#undef F_MUL
#undef F_MAX
#undef F_MIN
#undef F_FMA
#undef F_FROM_I
#undef F_TRUNC
#undef F_BITS
#undef F_KEEP
#undef I_SET1
#undef I_ADD
#undef I_SUB
#undef I_AND
#undef I_SRAI
#undef I_SRLI
#undef I_MIN
#undef I_MAX
#undef I_MULLO
#undef I_STOREU
#undef I_LT
#undef M_AND
#undef GATHER
