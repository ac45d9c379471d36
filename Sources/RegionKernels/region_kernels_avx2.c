/* The region kernels' AVX2 loops (region_kernels_internal.h): the int16 dot product through
 * vpmaddwd explicitly, the rest the shared bodies widened by the target attribute. */
#include "region_kernels_internal.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define T2 __attribute__((target("avx2")))

T2 static inline uint32_t dot16_avx2(const int16_t *w, const int16_t *x, int n) {
    __m256i acc = _mm256_setzero_si256();
    int c = 0;
    for (; c + 16 <= n; c += 16)
        acc = _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_loadu_si256((const __m256i *)(w + c)),
                                                      _mm256_loadu_si256((const __m256i *)(x + c))));
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1));
    uint32_t r = (uint32_t)_mm_cvtsi128_si32(s);
    for (; c < n; c++) r += (uint32_t)((int32_t)w[c] * (int32_t)x[c]);
    return r;
}

T2 static inline uint32_t dot32_avx2(const int16_t *w, const int32_t *x, int n) { return dot32_body(w, x, n); }

T2 void wai_region_conv_avx2(const int16_t *w, const void *x, int x_wide, const int32_t *bias, const int32_t *w_off,
                             const int32_t *x_off, int pairs, int cin, int cout, ptrdiff_t taps_cin, int32_t *y,
                             ptrdiff_t y_stride) {
    CONV_POSITION(dot16_avx2, dot32_avx2)
}

T2 void wai_region_igdn_avx2(const int32_t *x, int channels, int positions, const int32_t *beta, const int32_t *gamma,
                             int sq_shift, int out_shift, int32_t *y, int32_t *scratch) {
    igdn_body(x, channels, positions, beta, gamma, sq_shift, out_shift, y, scratch);
}
#endif
