/*
 * The AVX-512 intrinsics the lane decoder's vector loop uses
 * (Sources/EntropyKernels/rans_lanes_avx512.c), in portable C, element by element after
 * Intel's pseudocode, so that loop's logic can be checked on a CPU without AVX-512: the
 * tests build it on these (rans_lanes_avx512_emulated.c, WAI_AVX512_EMULATED), and so does
 * scripts/bench-entropy.sh with WAI_BENCH_EMULATE_AVX512=1. Masked-off elements
 * are never read or written, as on the hardware (the loop's masked loads and gathers may
 * point past a buffer's end there). Debian's SIMDe (0.7.4) was the first choice; it lacks
 * seven of these and its alias of _mm512_mask_cmpge_epu32_mask takes the wrong arguments.
 * A check of the loop's logic, not of its speed.
 */
#ifndef WAI_AVX512_EMULATION_H
#define WAI_AVX512_EMULATION_H

#include <stdint.h>
#include <string.h>

typedef struct { int32_t i[16]; } __m512i;
typedef uint16_t __mmask16;

#define WAI_EMU_EACH(j) for (int j = 0; j < 16; j++)
#define WAI_EMU_ON(k, j) (((k) >> (j)) & 1)

static inline __m512i _mm512_setzero_si512(void) { __m512i r; WAI_EMU_EACH(j) r.i[j] = 0; return r; }
static inline __m512i _mm512_set1_epi32(int32_t a) { __m512i r; WAI_EMU_EACH(j) r.i[j] = a; return r; }
static inline __m512i _mm512_loadu_si512(const void *p) { __m512i r; memcpy(r.i, p, 64); return r; }
static inline void _mm512_storeu_si512(void *p, __m512i a) { memcpy(p, a.i, 64); }

static inline __m512i _mm512_maskz_loadu_epi32(__mmask16 k, const void *p) {
    __m512i r = _mm512_setzero_si512();
    WAI_EMU_EACH(j) if (WAI_EMU_ON(k, j)) memcpy(&r.i[j], (const char *)p + 4 * j, 4);
    return r;
}
static inline void _mm512_mask_storeu_epi32(void *p, __mmask16 k, __m512i a) {
    WAI_EMU_EACH(j) if (WAI_EMU_ON(k, j)) memcpy((char *)p + 4 * j, &a.i[j], 4);
}
static inline __m512i _mm512_mask_i32gather_epi32(__m512i src, __mmask16 k, __m512i index, const void *base,
                                                  int scale) {
    WAI_EMU_EACH(j) if (WAI_EMU_ON(k, j)) memcpy(&src.i[j], (const char *)base + (int64_t)index.i[j] * scale, 4);
    return src;
}

/* Element-wise operations, wrapping as the hardware does (computed in uint32_t). */
#define WAI_EMU_BINARY(name, expr) \
    static inline __m512i name(__m512i a, __m512i b) { \
        __m512i r; \
        WAI_EMU_EACH(j) { const uint32_t x = (uint32_t)a.i[j], y = (uint32_t)b.i[j]; r.i[j] = (int32_t)(expr); } \
        return r; \
    }
WAI_EMU_BINARY(_mm512_add_epi32, x + y)
WAI_EMU_BINARY(_mm512_sub_epi32, x - y)
WAI_EMU_BINARY(_mm512_and_si512, x & y)
WAI_EMU_BINARY(_mm512_mullo_epi32, x * y)
WAI_EMU_BINARY(_mm512_sllv_epi32, y > 31 ? 0 : x << y)
WAI_EMU_BINARY(_mm512_srlv_epi32, y > 31 ? 0 : x >> y)

#define WAI_EMU_MASKED(name, op) \
    static inline __m512i name(__m512i src, __mmask16 k, __m512i a, __m512i b) { \
        const __m512i r = op(a, b); \
        WAI_EMU_EACH(j) if (WAI_EMU_ON(k, j)) src.i[j] = r.i[j]; \
        return src; \
    }
static inline __m512i wai_emu_or(__m512i a, __m512i b) { WAI_EMU_EACH(j) a.i[j] |= b.i[j]; return a; }
static inline __m512i wai_emu_min(__m512i a, __m512i b) { WAI_EMU_EACH(j) a.i[j] = b.i[j] < a.i[j] ? b.i[j] : a.i[j]; return a; }
static inline __m512i wai_emu_max(__m512i a, __m512i b) { WAI_EMU_EACH(j) a.i[j] = b.i[j] > a.i[j] ? b.i[j] : a.i[j]; return a; }
WAI_EMU_MASKED(_mm512_mask_add_epi32, _mm512_add_epi32)
WAI_EMU_MASKED(_mm512_mask_sub_epi32, _mm512_sub_epi32)
WAI_EMU_MASKED(_mm512_mask_or_epi32, wai_emu_or)
WAI_EMU_MASKED(_mm512_mask_min_epi32, wai_emu_min)
WAI_EMU_MASKED(_mm512_mask_max_epi32, wai_emu_max)

static inline __m512i _mm512_mask_mov_epi32(__m512i src, __mmask16 k, __m512i a) {
    WAI_EMU_EACH(j) if (WAI_EMU_ON(k, j)) src.i[j] = a.i[j];
    return src;
}
static inline __m512i _mm512_slli_epi32(__m512i a, unsigned n) {
    WAI_EMU_EACH(j) a.i[j] = n > 31 ? 0 : (int32_t)((uint32_t)a.i[j] << n);
    return a;
}
static inline __m512i _mm512_srli_epi32(__m512i a, unsigned n) {
    WAI_EMU_EACH(j) a.i[j] = n > 31 ? 0 : (int32_t)((uint32_t)a.i[j] >> n);
    return a;
}
static inline __m512i _mm512_mask_srli_epi32(__m512i src, __mmask16 k, __m512i a, unsigned n) {
    return _mm512_mask_mov_epi32(src, k, _mm512_srli_epi32(a, n));
}

/* Comparisons: bit j set where mask bit j is and the comparison holds. */
#define WAI_EMU_COMPARE(name, type, op) \
    static inline __mmask16 name(__mmask16 k, __m512i a, __m512i b) { \
        __mmask16 r = 0; \
        WAI_EMU_EACH(j) if (WAI_EMU_ON(k, j) && (type)a.i[j] op (type)b.i[j]) r |= (__mmask16)(1u << j); \
        return r; \
    }
WAI_EMU_COMPARE(_mm512_mask_cmpeq_epi32_mask, int32_t, ==)
WAI_EMU_COMPARE(_mm512_mask_cmple_epi32_mask, int32_t, <=)
WAI_EMU_COMPARE(_mm512_mask_cmple_epu32_mask, uint32_t, <=)
WAI_EMU_COMPARE(_mm512_mask_cmplt_epu32_mask, uint32_t, <)
WAI_EMU_COMPARE(_mm512_mask_cmpge_epu32_mask, uint32_t, >=)
static inline __mmask16 _mm512_cmpgt_epi32_mask(__m512i a, __m512i b) {
    __mmask16 r = 0;
    WAI_EMU_EACH(j) if (a.i[j] > b.i[j]) r |= (__mmask16)(1u << j);
    return r;
}

static inline int32_t _mm512_reduce_min_epi32(__m512i a) {
    int32_t r = a.i[0];
    WAI_EMU_EACH(j) r = a.i[j] < r ? a.i[j] : r;
    return r;
}
static inline int32_t _mm512_reduce_max_epi32(__m512i a) {
    int32_t r = a.i[0];
    WAI_EMU_EACH(j) r = a.i[j] > r ? a.i[j] : r;
    return r;
}

#endif
