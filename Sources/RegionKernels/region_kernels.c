/* See include/region_kernels.h. Each loop body is written once (static inline) and compiled
 * for each ISA through a target attribute, so the compiler widens it to that ISA's vectors;
 * the int16 dot product uses the multiply-add pairs instructions explicitly. Arithmetic is
 * on uint32_t: wrapping is defined, and equals the exact sum whenever that fits int32. */
#include "region_kernels.h"

#include <math.h>

#if defined(__x86_64__) || defined(__i386__)
#define WAI_X86 1
#include <cpuid.h>
#include <immintrin.h>
#else
#define WAI_X86 0
#endif

#if WAI_X86
static uint64_t read_xcr0(void) {
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

/* CPUID's feature bits and whether the OS saves the YMM/ZMM state (XGETBV). */
static wai_region_isa detect(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return WAI_REGION_ISA_SCALAR;
    if (!((c >> 27) & 1) || !((c >> 28) & 1)) return WAI_REGION_ISA_SCALAR;   /* OSXSAVE, AVX */
    uint64_t xcr0 = read_xcr0();
    if ((xcr0 & 0x6) != 0x6 || __get_cpuid_max(0, NULL) < 7) return WAI_REGION_ISA_SCALAR;
    __cpuid_count(7, 0, a, b, c, d);
    if (!((b >> 5) & 1)) return WAI_REGION_ISA_SCALAR;                            /* AVX2 */
    int f = (b >> 16) & 1, bw = (b >> 30) & 1, vl = (b >> 31) & 1, vnni = (c >> 11) & 1;
    if ((xcr0 & 0xe6) == 0xe6 && f && bw && vl && vnni) return WAI_REGION_ISA_AVX512;
    return WAI_REGION_ISA_AVX2;
}
#endif

wai_region_isa wai_region_best_isa(void) {
#if WAI_X86
    static int cached = -1;
    int v = __atomic_load_n(&cached, __ATOMIC_ACQUIRE);
    if (v < 0) {
        v = (int)detect();
        __atomic_store_n(&cached, v, __ATOMIC_RELEASE);
    }
    return (wai_region_isa)v;
#else
    return WAI_REGION_ISA_SCALAR;
#endif
}

/* ---- convolution: one output position ---- */

static inline uint32_t dot16_scalar(const int16_t *w, const int16_t *x, int n) {
    uint32_t acc = 0;
    for (int c = 0; c < n; c++) acc += (uint32_t)((int32_t)w[c] * (int32_t)x[c]);
    return acc;
}

static inline uint32_t dot32_body(const int16_t *w, const int32_t *x, int n) {
    uint32_t acc = 0;
    for (int c = 0; c < n; c++) acc += (uint32_t)w[c] * (uint32_t)x[c];
    return acc;
}

#define CONV_POSITION(DOT16, DOT32)                                                           \
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

static void conv_scalar(const int16_t *w, const void *x, int x_wide, const int32_t *bias, const int32_t *w_off,
                        const int32_t *x_off, int pairs, int cin, int cout, ptrdiff_t taps_cin, int32_t *y,
                        ptrdiff_t y_stride) {
    const int16_t *x16 = x;
    const int32_t *x32 = x;
    CONV_POSITION(dot16_scalar, dot32_body)
}

#if WAI_X86
#define T2 __attribute__((target("avx2")))
#define T5 __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))

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

T2 static void conv_avx2(const int16_t *w, const void *x, int x_wide, const int32_t *bias, const int32_t *w_off,
                         const int32_t *x_off, int pairs, int cin, int cout, ptrdiff_t taps_cin, int32_t *y,
                         ptrdiff_t y_stride) {
    const int16_t *x16 = x;
    const int32_t *x32 = x;
    CONV_POSITION(dot16_avx2, dot32_avx2)
}

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

T5 static void conv_avx512(const int16_t *w, const void *x, int x_wide, const int32_t *bias, const int32_t *w_off,
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
#endif

void wai_region_conv_position(const int16_t *w, const void *x, int x_wide, const int32_t *bias,
                              const int32_t *w_off, const int32_t *x_off, int pairs,
                              int cin, int cout, ptrdiff_t taps_cin, int32_t *y, ptrdiff_t y_stride,
                              wai_region_isa isa) {
#if WAI_X86
    if (isa > wai_region_best_isa()) isa = wai_region_best_isa();
    if (isa == WAI_REGION_ISA_AVX512) { conv_avx512(w, x, x_wide, bias, w_off, x_off, pairs, cin, cout, taps_cin, y, y_stride); return; }
    if (isa == WAI_REGION_ISA_AVX2) { conv_avx2(w, x, x_wide, bias, w_off, x_off, pairs, cin, cout, taps_cin, y, y_stride); return; }
#endif
    (void)isa;
    conv_scalar(w, x, x_wide, bias, w_off, x_off, pairs, cin, cout, taps_cin, y, y_stride);
}

/* ---- inverse GDN ---- */

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

static void igdn_scalar(const int32_t *x, int channels, int positions, const int32_t *beta, const int32_t *gamma,
                        int sq_shift, int out_shift, int32_t *y, int32_t *scratch) {
    igdn_body(x, channels, positions, beta, gamma, sq_shift, out_shift, y, scratch);
}
#if WAI_X86
T2 static void igdn_avx2(const int32_t *x, int channels, int positions, const int32_t *beta, const int32_t *gamma,
                         int sq_shift, int out_shift, int32_t *y, int32_t *scratch) {
    igdn_body(x, channels, positions, beta, gamma, sq_shift, out_shift, y, scratch);
}
T5 static void igdn_avx512(const int32_t *x, int channels, int positions, const int32_t *beta, const int32_t *gamma,
                           int sq_shift, int out_shift, int32_t *y, int32_t *scratch) {
    igdn_body(x, channels, positions, beta, gamma, sq_shift, out_shift, y, scratch);
}
#endif

void wai_region_igdn(const int32_t *x, int channels, int positions, const int32_t *beta, const int32_t *gamma,
                     int sq_shift, int out_shift, int32_t *y, int32_t *scratch, wai_region_isa isa) {
#if WAI_X86
    if (isa > wai_region_best_isa()) isa = wai_region_best_isa();
    if (isa == WAI_REGION_ISA_AVX512) { igdn_avx512(x, channels, positions, beta, gamma, sq_shift, out_shift, y, scratch); return; }
    if (isa == WAI_REGION_ISA_AVX2) { igdn_avx2(x, channels, positions, beta, gamma, sq_shift, out_shift, y, scratch); return; }
#endif
    (void)isa;
    igdn_scalar(x, channels, positions, beta, gamma, sq_shift, out_shift, y, scratch);
}
