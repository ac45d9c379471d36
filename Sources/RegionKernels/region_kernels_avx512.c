/* The region kernels' AVX-512 loops (region_kernels_internal.h): the int16 convolution
 * through vpdpwssd explicitly, eight output channels a block, the rest the shared bodies
 * widened by the target attribute. */
#include "region_kernels_internal.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define T5 WAI_REGION_T5

/* Eight output channels at once: each input vector is loaded once for the eight, and the
 * eight accumulators are independent chains (one chain would wait on the multiply-add's
 * latency at every step); each is reduced once, after every pair. */
#define OBLOCK 8
T5 static inline __attribute__((always_inline)) void
conv_block512(const int16_t *w, const int16_t *x16, const int32_t *bias, const int32_t *w_off, const int32_t *x_off,
              int pairs, int full, __mmask32 tail, ptrdiff_t taps_cin, int32_t *y, ptrdiff_t y_stride, int o0, int nb) {
    __m512i acc[OBLOCK];
    for (int b = 0; b < OBLOCK; b++) acc[b] = _mm512_setzero_si512();
    for (int p = 0; p < pairs; p++) {
        const int16_t *xp = x16 + x_off[p];
        const int16_t *wp = w + (ptrdiff_t)o0 * taps_cin + w_off[p];
        int c = 0;
        for (; c < full; c += 32) {
            __m512i xv = _mm512_loadu_si512(xp + c);
            for (int b = 0; b < nb; b++)
                acc[b] = _mm512_dpwssd_epi32(acc[b], _mm512_loadu_si512(wp + b * taps_cin + c), xv);
        }
        if (tail) {
            __m512i xv = _mm512_maskz_loadu_epi16(tail, xp + c);
            for (int b = 0; b < nb; b++)
                acc[b] = _mm512_dpwssd_epi32(acc[b], _mm512_maskz_loadu_epi16(tail, wp + b * taps_cin + c), xv);
        }
    }
    for (int b = 0; b < nb; b++)
        y[(ptrdiff_t)(o0 + b) * y_stride] = (int32_t)((uint32_t)bias[o0 + b] + (uint32_t)_mm512_reduce_add_epi32(acc[b]));
}

T5 void wai_region_conv_avx512(const int16_t *w, const void *x, int x_wide, const int32_t *bias, const int32_t *w_off,
                               const int32_t *x_off, int pairs, int cin, int cout, ptrdiff_t taps_cin, int32_t *y,
                               ptrdiff_t y_stride) {
    const int16_t *x16 = x;
    const int32_t *x32 = x;
    if (x_wide) {
        for (int o = 0; o < cout; o++) {
            const int16_t *wo = w + (ptrdiff_t)o * taps_cin;
            uint32_t acc = (uint32_t)bias[o];
            for (int p = 0; p < pairs; p++) acc += dot32_body(wo + w_off[p], x32 + x_off[p], cin);
            y[(ptrdiff_t)o * y_stride] = (int32_t)acc;
        }
        return;
    }
    int full = cin / 32 * 32;
    __mmask32 tail = (__mmask32)((cin - full) == 0 ? 0 : ((1ull << (cin - full)) - 1));
    for (int o0 = 0; o0 < cout; o0 += OBLOCK) {
        /* A whole block with a constant count, so its accumulators stay in registers. */
        if (cout - o0 >= OBLOCK) conv_block512(w, x16, bias, w_off, x_off, pairs, full, tail, taps_cin, y, y_stride, o0, OBLOCK);
        else conv_block512(w, x16, bias, w_off, x_off, pairs, full, tail, taps_cin, y, y_stride, o0, cout - o0);
    }
}

T5 void wai_region_igdn_avx512(const int32_t *x, int channels, int positions, const int32_t *beta, const int32_t *gamma,
                               int sq_shift, int out_shift, int32_t *y, int32_t *scratch) {
    igdn_body(x, channels, positions, beta, gamma, sq_shift, out_shift, y, scratch);
}
#endif
