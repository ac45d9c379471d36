/* Between region_kernels.c (ISA detection, the scalar loops, the dispatch) and the per-ISA
 * files (region_kernels_avx2.c, region_kernels_avx512.c): the loop bodies each of them
 * compiles, written once and widened by the compiler through each file's target attribute,
 * and the per-ISA entry points. Arithmetic is on uint32_t: wrapping is defined, and equals
 * the exact sum whenever that fits int32. */
#ifndef WAI_REGION_KERNELS_INTERNAL_H
#define WAI_REGION_KERNELS_INTERNAL_H

#include "region_kernels.h"

#include <math.h>

/* The AVX-512 file's target attribute. Tests/EmulatedRegionKernels builds that file again
 * with WAI_REGION_EMULATED, on the portable intrinsics of Tests/Emulation/x86_emulation.h:
 * the attribute is then dropped, so that build holds no AVX-512 instruction and the loop's
 * logic is checked on any x86-64. */
#if defined(WAI_REGION_EMULATED)
#define WAI_REGION_T5
#else
#define WAI_REGION_T5 __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))
#endif

static inline uint32_t dot32_body(const int16_t *w, const int32_t *x, int n) {
    uint32_t acc = 0;
    for (int c = 0; c < n; c++) acc += (uint32_t)w[c] * (uint32_t)x[c];
    return acc;
}

/* The body of a conv_position loop over (w, x, x_wide, bias, w_off, x_off, pairs, cin, cout,
 * taps_cin, y, y_stride), with DOT16 and DOT32 the ISA's dot products. */
#define CONV_POSITION(DOT16, DOT32)                                                           \
    const int16_t *x16 = x;                                                                   \
    const int32_t *x32 = x;                                                                   \
    for (int o = 0; o < cout; o++) {                                                          \
        const int16_t *wo = w + (ptrdiff_t)o * taps_cin;                                      \
        uint32_t acc = (uint32_t)bias[o];                                                     \
        if (x_wide) {                                                                         \
            for (int p = 0; p < pairs; p++) acc += DOT32(wo + w_off[p], x32 + x_off[p], cin); \
        } else {                                                                              \
            for (int p = 0; p < pairs; p++) acc += DOT16(wo + w_off[p], x16 + x_off[p], cin); \
        }                                                                                     \
        y[(ptrdiff_t)o * y_stride] = (int32_t)acc;                                            \
    }

/* The largest r with r·r ≤ n (0 ≤ n < 2^31): the double square root is within one of it,
 * and the two corrections make it exact whatever the rounding. */
static inline uint32_t isqrt32(uint32_t n) {
    uint64_t r = (uint64_t)sqrt((double)n);
    while (r * r > n) r--;
    while ((r + 1) * (r + 1) <= n) r++;
    return (uint32_t)r;
}

static inline void igdn_body(const int32_t *x, int channels, int positions, const int32_t *beta, const int32_t *gamma,
                             int sq_shift, int out_shift, int32_t *y, int32_t *scratch) {
    uint32_t *sq = (uint32_t *)scratch;                 /* [p][k] */
    uint32_t *n = (uint32_t *)scratch + (ptrdiff_t)channels * positions;   /* [c][p] */
    for (int k = 0; k < channels; k++)
        for (int p = 0; p < positions; p++) {
            int32_t v = x[(ptrdiff_t)k * positions + p];
            sq[(ptrdiff_t)p * channels + k] = (uint32_t)(v * v) >> sq_shift;   /* |v| ≤ 46340 */
        }
    for (int c = 0; c < channels; c++) {
        const uint32_t *g = (const uint32_t *)gamma + (ptrdiff_t)c * channels;
        for (int p = 0; p < positions; p++) {
            const uint32_t *s = sq + (ptrdiff_t)p * channels;
            uint32_t acc = (uint32_t)beta[c];
            for (int k = 0; k < channels; k++) acc += g[k] * s[k];
            n[(ptrdiff_t)c * positions + p] = acc;
        }
    }
    uint32_t bias = out_shift == 0 ? 0 : 1u << (out_shift - 1);
    for (ptrdiff_t i = 0; i < (ptrdiff_t)channels * positions; i++) {
        uint32_t v = (uint32_t)x[i] * isqrt32(n[i]) + bias;
        y[i] = (int32_t)v >> out_shift;   /* arithmetic shift: floor division (§3) */
    }
}

typedef void wai_region_conv_fn(const int16_t *w, const void *x, int x_wide, const int32_t *bias,
                                const int32_t *w_off, const int32_t *x_off, int pairs, int cin, int cout,
                                ptrdiff_t taps_cin, int32_t *y, ptrdiff_t y_stride);
typedef void wai_region_igdn_fn(const int32_t *x, int channels, int positions, const int32_t *beta,
                                const int32_t *gamma, int sq_shift, int out_shift, int32_t *y, int32_t *scratch);

/* Run only where wai_region_best_isa() reached their ISA. */
wai_region_conv_fn wai_region_conv_avx2, wai_region_conv_avx512;
wai_region_igdn_fn wai_region_igdn_avx2, wai_region_igdn_avx512;

#endif
