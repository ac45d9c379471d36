/*
 * The AVX-512 and AMX intrinsics the project's C uses, in portable C, element by element
 * after Intel's pseudocode, so that code's logic is checked by the tests on a CPU without
 * AVX-512 or AMX: the CPU backend's kernels (Plugins/CPUBackend/Kernels: the byte
 * decomposition of the tile products, the phase pairs, the masked tails, the epilogues'
 * square roots), built again with CPUK_EMULATED by Tests/EmulatedCPUBackend, their AVX-512
 * and AMX target attributes then dropped (kernels_internal.h); and the lane decoder's vector
 * loop (Sources/EntropyKernels/rans_lanes_avx512.c), built with WAI_AVX512_EMULATED by
 * Tests/EmulatedEntropyKernels and by scripts/bench-entropy.sh; and the region engine's
 * convolution (Sources/RegionKernels/region_kernels_avx512.c), built with
 * WAI_REGION_EMULATED by Tests/EmulatedRegionKernels. Debian's SIMDe (0.7.4) was
 * the first choice; it lacks several of these and its alias of _mm512_mask_cmpge_epu32_mask
 * takes the wrong arguments.
 *
 * Only the sources with AVX-512 or AMX code include it, and they hold no AVX2 code (each ISA
 * has its own files), so the vector types themselves are emulated, 256-bit ones included:
 * <immintrin.h> comes first, then each emulated name is a macro for a wai_emu_ function
 * over the real one. Arithmetic wraps as the hardware's does (computed in uint32_t);
 * masked-off elements are never read or written. Tiles are per thread, as the hardware's
 * are. A check of the kernels' logic, not of their speed.
 */
#ifndef WAI_X86_EMULATION_H
#define WAI_X86_EMULATION_H

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#define WAI_EMU static inline __attribute__((always_inline))
#define WAI_EMU_EACH(j) for (int j = 0; j < 16; j++)
#define WAI_EMU_ON(k, j) (((k) >> (j)) & 1u)

typedef struct { int32_t i[16]; } wai_emu_m512i;
typedef struct { float f[16]; } wai_emu_m512;
typedef struct { int16_t h[16]; } wai_emu_m256i;
#define __m512i wai_emu_m512i
#define __m512 wai_emu_m512
#define __m256i wai_emu_m256i

/* A shift count from the low 64 bits of an SSE register, as vpsrad/vpsrld/vpslld read it. */
WAI_EMU uint64_t wai_emu_count(__m128i c) { uint64_t n; memcpy(&n, &c, 8); return n; }

/* ---- set, load, store ---- */
WAI_EMU __m512i wai_emu_setzero_si512(void) { __m512i r; WAI_EMU_EACH(j) r.i[j] = 0; return r; }
WAI_EMU __m512i wai_emu_set1_epi32(int32_t a) { __m512i r; WAI_EMU_EACH(j) r.i[j] = a; return r; }
WAI_EMU __m512i wai_emu_setr_epi32(int32_t e0, int32_t e1, int32_t e2, int32_t e3, int32_t e4, int32_t e5,
                                   int32_t e6, int32_t e7, int32_t e8, int32_t e9, int32_t e10, int32_t e11,
                                   int32_t e12, int32_t e13, int32_t e14, int32_t e15) {
    const __m512i r = { { e0, e1, e2, e3, e4, e5, e6, e7, e8, e9, e10, e11, e12, e13, e14, e15 } };
    return r;
}
WAI_EMU __m512 wai_emu_set1_ps(float a) { __m512 r; WAI_EMU_EACH(j) r.f[j] = a; return r; }
WAI_EMU __m512i wai_emu_loadu_si512(const void *p) { __m512i r; memcpy(r.i, p, 64); return r; }
WAI_EMU void wai_emu_storeu_si512(void *p, __m512i a) { memcpy(p, a.i, 64); }
WAI_EMU __m512i wai_emu_maskz_loadu_epi32(__mmask16 k, const void *p) {
    __m512i r = wai_emu_setzero_si512();
    WAI_EMU_EACH(j) if (WAI_EMU_ON(k, j)) memcpy(&r.i[j], (const char *)p + 4 * j, 4);
    return r;
}
/* 32 int16 elements, element e loaded where mask bit e is set, zero elsewhere. */
WAI_EMU __m512i wai_emu_maskz_loadu_epi16(__mmask32 k, const void *p) {
    __m512i r = wai_emu_setzero_si512();
    for (int e = 0; e < 32; e++)
        if (WAI_EMU_ON(k, e)) memcpy((char *)r.i + 2 * e, (const char *)p + 2 * e, 2);
    return r;
}
WAI_EMU void wai_emu_mask_storeu_epi32(void *p, __mmask16 k, __m512i a) {
    WAI_EMU_EACH(j) if (WAI_EMU_ON(k, j)) memcpy((char *)p + 4 * j, &a.i[j], 4);
}
/* a as 32 int16 elements, element e stored where mask bit e is set. */
WAI_EMU void wai_emu_mask_storeu_epi16(void *p, __mmask32 k, __m512i a) {
    for (int e = 0; e < 32; e++)
        if (WAI_EMU_ON(k, e)) memcpy((char *)p + 2 * e, (const char *)a.i + 2 * e, 2);
}
WAI_EMU __m512i wai_emu_mask_i32gather_epi32(__m512i src, __mmask16 k, __m512i index, const void *base, int scale) {
    WAI_EMU_EACH(j) if (WAI_EMU_ON(k, j)) memcpy(&src.i[j], (const char *)base + (int64_t)index.i[j] * scale, 4);
    return src;
}
WAI_EMU __m512i wai_emu_i32gather_epi32(__m512i index, const void *base, int scale) {
    return wai_emu_mask_i32gather_epi32(wai_emu_setzero_si512(), 0xFFFF, index, base, scale);
}
WAI_EMU __m256i wai_emu_mm256_loadu_si256(const void *p) { __m256i r; memcpy(r.h, p, 32); return r; }
WAI_EMU void wai_emu_mm256_storeu_si256(void *p, __m256i a) { memcpy(p, a.h, 32); }
WAI_EMU __m256i wai_emu_mm256_maskz_loadu_epi16(__mmask16 k, const void *p) {
    __m256i r;
    WAI_EMU_EACH(j) { r.h[j] = 0; if (WAI_EMU_ON(k, j)) memcpy(&r.h[j], (const char *)p + 2 * j, 2); }
    return r;
}

/* ---- element-wise ---- */
#define WAI_EMU_BINARY(name, expr) \
    WAI_EMU __m512i name(__m512i a, __m512i b) { \
        __m512i r; \
        WAI_EMU_EACH(j) { const uint32_t x = (uint32_t)a.i[j], y = (uint32_t)b.i[j]; (void)x; (void)y; r.i[j] = (int32_t)(expr); } \
        return r; \
    }
WAI_EMU_BINARY(wai_emu_add_epi32, x + y)
WAI_EMU_BINARY(wai_emu_sub_epi32, x - y)
WAI_EMU_BINARY(wai_emu_mullo_epi32, x * y)
WAI_EMU_BINARY(wai_emu_and_si512, x & y)
WAI_EMU_BINARY(wai_emu_andnot_si512, ~x & y)
WAI_EMU_BINARY(wai_emu_xor_si512, x ^ y)
WAI_EMU_BINARY(wai_emu_min_epi32, a.i[j] < b.i[j] ? x : y)
WAI_EMU_BINARY(wai_emu_max_epi32, a.i[j] > b.i[j] ? x : y)
/* One element shifted by a count: past 31, the sign (arithmetic) or zero (logical) fills it,
 * whether the count is an immediate, an SSE register's low 64 bits or per element. */
WAI_EMU int32_t wai_emu_sra1(int32_t x, uint64_t n) { return n > 31 ? (x < 0 ? -1 : 0) : x >> n; }
WAI_EMU uint32_t wai_emu_srl1(uint32_t x, uint64_t n) { return n > 31 ? 0 : x >> n; }
WAI_EMU uint32_t wai_emu_sll1(uint32_t x, uint64_t n) { return n > 31 ? 0 : x << n; }
WAI_EMU_BINARY(wai_emu_srav_epi32, (uint32_t)wai_emu_sra1(a.i[j], y))
WAI_EMU_BINARY(wai_emu_srlv_epi32, wai_emu_srl1(x, y))
WAI_EMU_BINARY(wai_emu_sllv_epi32, wai_emu_sll1(x, y))

/* The two int16 products of each 32-bit element, summed (vpmaddwd: (-32768)^2 * 2 wraps). */
WAI_EMU uint32_t wai_emu_pair_dot(int32_t a, int32_t b) {
    const int32_t alo = (int16_t)(uint16_t)((uint32_t)a & 0xFFFF), ahi = (int16_t)(uint16_t)((uint32_t)a >> 16);
    const int32_t blo = (int16_t)(uint16_t)((uint32_t)b & 0xFFFF), bhi = (int16_t)(uint16_t)((uint32_t)b >> 16);
    return (uint32_t)(alo * blo) + (uint32_t)(ahi * bhi);
}
WAI_EMU_BINARY(wai_emu_madd_epi16, wai_emu_pair_dot(a.i[j], b.i[j]))
WAI_EMU __m512i wai_emu_dpwssd_epi32(__m512i src, __m512i a, __m512i b) {
    WAI_EMU_EACH(j) src.i[j] = (int32_t)((uint32_t)src.i[j] + wai_emu_pair_dot(a.i[j], b.i[j]));
    return src;
}

WAI_EMU __m512i wai_emu_sra_epi32(__m512i a, __m128i c) { WAI_EMU_EACH(j) a.i[j] = wai_emu_sra1(a.i[j], wai_emu_count(c)); return a; }
WAI_EMU __m512i wai_emu_srai_epi32(__m512i a, unsigned n) { WAI_EMU_EACH(j) a.i[j] = wai_emu_sra1(a.i[j], n); return a; }
WAI_EMU __m512i wai_emu_srl_epi32(__m512i a, __m128i c) { WAI_EMU_EACH(j) a.i[j] = (int32_t)wai_emu_srl1((uint32_t)a.i[j], wai_emu_count(c)); return a; }
WAI_EMU __m512i wai_emu_srli_epi32(__m512i a, unsigned n) { WAI_EMU_EACH(j) a.i[j] = (int32_t)wai_emu_srl1((uint32_t)a.i[j], n); return a; }
WAI_EMU __m512i wai_emu_sll_epi32(__m512i a, __m128i c) { WAI_EMU_EACH(j) a.i[j] = (int32_t)wai_emu_sll1((uint32_t)a.i[j], wai_emu_count(c)); return a; }
WAI_EMU __m512i wai_emu_slli_epi32(__m512i a, unsigned n) { WAI_EMU_EACH(j) a.i[j] = (int32_t)wai_emu_sll1((uint32_t)a.i[j], n); return a; }

WAI_EMU_BINARY(wai_emu_or_si512, x | y)

/* ---- compares, masks, permutes, reductions ---- */
WAI_EMU __mmask16 wai_emu_test_epi32_mask(__m512i a, __m512i b) {
    unsigned k = 0;
    WAI_EMU_EACH(j) k |= (unsigned)((a.i[j] & b.i[j]) != 0) << j;
    return (__mmask16)k;
}
WAI_EMU __m512i wai_emu_mask_mov_epi32(__m512i src, __mmask16 k, __m512i a) {
    WAI_EMU_EACH(j) if (WAI_EMU_ON(k, j)) src.i[j] = a.i[j];
    return src;
}
/* Masked forms: element j of op(a, b) where mask bit j is set, src's elsewhere. */
#define WAI_EMU_MASKED(name, op) \
    WAI_EMU __m512i name(__m512i src, __mmask16 k, __m512i a, __m512i b) { \
        return wai_emu_mask_mov_epi32(src, k, op(a, b)); \
    }
WAI_EMU_MASKED(wai_emu_mask_add_epi32, wai_emu_add_epi32)
WAI_EMU_MASKED(wai_emu_mask_sub_epi32, wai_emu_sub_epi32)
WAI_EMU_MASKED(wai_emu_mask_or_epi32, wai_emu_or_si512)
WAI_EMU_MASKED(wai_emu_mask_min_epi32, wai_emu_min_epi32)
WAI_EMU_MASKED(wai_emu_mask_max_epi32, wai_emu_max_epi32)
WAI_EMU __m512i wai_emu_mask_srai_epi32(__m512i src, __mmask16 k, __m512i a, unsigned n) {
    return wai_emu_mask_mov_epi32(src, k, wai_emu_srai_epi32(a, n));
}
WAI_EMU __m512i wai_emu_mask_srli_epi32(__m512i src, __mmask16 k, __m512i a, unsigned n) {
    return wai_emu_mask_mov_epi32(src, k, wai_emu_srli_epi32(a, n));
}
/* Masked comparisons: bit j set where mask bit j is and the comparison holds. */
#define WAI_EMU_COMPARE(name, type, op) \
    WAI_EMU __mmask16 name(__mmask16 k, __m512i a, __m512i b) { \
        unsigned r = 0; \
        WAI_EMU_EACH(j) if (WAI_EMU_ON(k, j) && (type)a.i[j] op (type)b.i[j]) r |= 1u << j; \
        return (__mmask16)r; \
    }
WAI_EMU_COMPARE(wai_emu_mask_cmpeq_epi32_mask, int32_t, ==)
WAI_EMU_COMPARE(wai_emu_mask_cmple_epi32_mask, int32_t, <=)
WAI_EMU_COMPARE(wai_emu_mask_cmple_epu32_mask, uint32_t, <=)
WAI_EMU_COMPARE(wai_emu_mask_cmplt_epu32_mask, uint32_t, <)
WAI_EMU_COMPARE(wai_emu_mask_cmpge_epu32_mask, uint32_t, >=)
/* The unmasked forms: every mask bit set. */
WAI_EMU __mmask16 wai_emu_cmple_epi32_mask(__m512i a, __m512i b) { return wai_emu_mask_cmple_epi32_mask(0xFFFF, a, b); }
WAI_EMU __mmask16 wai_emu_cmple_epu32_mask(__m512i a, __m512i b) { return wai_emu_mask_cmple_epu32_mask(0xFFFF, a, b); }
WAI_EMU __mmask16 wai_emu_cmpgt_epi32_mask(__m512i a, __m512i b) { return wai_emu_mask_cmple_epi32_mask(0xFFFF, a, b) ^ 0xFFFF; }
WAI_EMU int32_t wai_emu_reduce_min_epi32(__m512i a) {
    int32_t r = a.i[0];
    WAI_EMU_EACH(j) r = a.i[j] < r ? a.i[j] : r;
    return r;
}
WAI_EMU int32_t wai_emu_reduce_max_epi32(__m512i a) {
    int32_t r = a.i[0];
    WAI_EMU_EACH(j) r = a.i[j] > r ? a.i[j] : r;
    return r;
}
/* Element j from the 32 of a and b that the low 5 bits of idx[j] name. */
WAI_EMU __m512i wai_emu_permutex2var_epi32(__m512i a, __m512i idx, __m512i b) {
    __m512i r;
    WAI_EMU_EACH(j) { const int s = idx.i[j] & 31; r.i[j] = s < 16 ? a.i[s] : b.i[s - 16]; }
    return r;
}
WAI_EMU int32_t wai_emu_reduce_add_epi32(__m512i a) {
    uint32_t s = 0;
    WAI_EMU_EACH(j) s += (uint32_t)a.i[j];
    return (int32_t)s;
}

/* ---- widths ---- */
/* vpmovdw: the low 16 bits of each element (truncation, not saturation). */
WAI_EMU __m256i wai_emu_cvtepi32_epi16(__m512i a) {
    __m256i r;
    WAI_EMU_EACH(j) r.h[j] = (int16_t)(uint16_t)((uint32_t)a.i[j] & 0xFFFF);
    return r;
}
WAI_EMU void wai_emu_mask_cvtepi32_storeu_epi16(void *p, __mmask16 k, __m512i a) {
    WAI_EMU_EACH(j) if (WAI_EMU_ON(k, j)) {
        const int16_t v = (int16_t)(uint16_t)((uint32_t)a.i[j] & 0xFFFF);
        memcpy((char *)p + 2 * j, &v, 2);
    }
}
WAI_EMU __m512i wai_emu_cvtepi16_epi32(__m256i a) {
    __m512i r;
    WAI_EMU_EACH(j) r.i[j] = a.h[j];
    return r;
}

/* ---- single precision: IEEE round to nearest as the instructions with the default MXCSR;
 * x86-64 C evaluates float in SSE registers, so no wider intermediate. ---- */
WAI_EMU __m512 wai_emu_cvtepi32_ps(__m512i a) { __m512 r; WAI_EMU_EACH(j) r.f[j] = (float)a.i[j]; return r; }
WAI_EMU __m512 wai_emu_sqrt_ps(__m512 a) { WAI_EMU_EACH(j) a.f[j] = __builtin_sqrtf(a.f[j]); return a; }
WAI_EMU __m512 wai_emu_sub_ps(__m512 a, __m512 b) { WAI_EMU_EACH(j) a.f[j] -= b.f[j]; return a; }
/* vcvttps2dq: truncation; NaN or outside int32 gives the integer indefinite, INT32_MIN. */
WAI_EMU __m512i wai_emu_cvttps_epi32(__m512 a) {
    __m512i r;
    WAI_EMU_EACH(j) r.i[j] = (a.f[j] > -2147483904.0f && a.f[j] < 2147483648.0f) ? (int32_t)a.f[j] : INT32_MIN;
    return r;
}

/* ---- AMX: eight tiles a thread, configured by a 64-byte palette-1 configuration ---- */
typedef struct {
    int configured;
    uint8_t rows[8];
    uint16_t colsb[8];
    uint8_t data[8][16][64];
} wai_emu_tiles;
static _Thread_local wai_emu_tiles wai_emu_tile_state;

WAI_EMU void wai_emu_tile_loadconfig(const void *config) {
    const uint8_t *c = config;
    wai_emu_tiles *t = &wai_emu_tile_state;
    memset(t, 0, sizeof *t);
    t->configured = c[0] == 1;
    for (int n = 0; n < 8; n++) {
        memcpy(&t->colsb[n], c + 16 + 2 * n, 2);
        t->rows[n] = c[48 + n];
        if (t->rows[n] > 16 || t->colsb[n] > 64) t->configured = 0;
    }
}
WAI_EMU void wai_emu_tile_release(void) { memset(&wai_emu_tile_state, 0, sizeof wai_emu_tile_state); }
WAI_EMU wai_emu_tiles *wai_emu_tiles_ready(void) {
    /* On the hardware a tile instruction without a valid configuration faults. */
    if (!wai_emu_tile_state.configured) __builtin_trap();
    return &wai_emu_tile_state;
}
WAI_EMU void wai_emu_tile_zero(int n) { memset(wai_emu_tiles_ready()->data[n], 0, sizeof wai_emu_tile_state.data[n]); }
WAI_EMU void wai_emu_tile_loadd(int n, const void *base, long stride) {
    wai_emu_tiles *t = wai_emu_tiles_ready();
    memset(t->data[n], 0, sizeof t->data[n]);
    for (int r = 0; r < t->rows[n]; r++) memcpy(t->data[n][r], (const char *)base + (int64_t)r * stride, t->colsb[n]);
}
WAI_EMU void wai_emu_tile_stored(int n, void *base, long stride) {
    wai_emu_tiles *t = wai_emu_tiles_ready();
    for (int r = 0; r < t->rows[n]; r++) memcpy((char *)base + (int64_t)r * stride, t->data[n][r], t->colsb[n]);
}
/* c[m][n] += Σ_k Σ_i a[m][4k+i] · b[k][4n+i] over the bytes, signed or unsigned as named,
 * each dword of c wrapping (TDPB{S,U}{S,U}D). */
WAI_EMU void wai_emu_tile_dp(int c, int a, int b, int a_signed, int b_signed) {
    wai_emu_tiles *t = wai_emu_tiles_ready();
    const int m_rows = t->rows[c], n_cols = t->colsb[c] / 4, k_quads = t->colsb[a] / 4;
    for (int m = 0; m < m_rows; m++)
        for (int n = 0; n < n_cols; n++) {
            int32_t acc;
            memcpy(&acc, &t->data[c][m][4 * n], 4);
            uint32_t s = (uint32_t)acc;
            for (int k = 0; k < k_quads; k++)
                for (int i = 0; i < 4; i++) {
                    const uint8_t x = t->data[a][m][4 * k + i], y = t->data[b][k][4 * n + i];
                    const int32_t xv = a_signed ? (int8_t)x : x, yv = b_signed ? (int8_t)y : y;
                    s += (uint32_t)(xv * yv);
                }
            acc = (int32_t)s;
            memcpy(&t->data[c][m][4 * n], &acc, 4);
        }
}

/* ---- the names the kernels use ---- */
#undef _mm512_setzero_si512
#undef _mm512_set1_epi32
#undef _mm512_setr_epi32
#undef _mm512_set1_ps
#undef _mm512_loadu_si512
#undef _mm512_storeu_si512
#undef _mm512_maskz_loadu_epi32
#undef _mm512_maskz_loadu_epi16
#undef _mm512_mask_storeu_epi32
#undef _mm512_mask_storeu_epi16
#undef _mm512_i32gather_epi32
#undef _mm256_loadu_si256
#undef _mm256_storeu_si256
#undef _mm256_maskz_loadu_epi16
#undef _mm512_add_epi32
#undef _mm512_sub_epi32
#undef _mm512_mullo_epi32
#undef _mm512_and_si512
#undef _mm512_andnot_si512
#undef _mm512_xor_si512
#undef _mm512_min_epi32
#undef _mm512_max_epi32
#undef _mm512_srav_epi32
#undef _mm512_madd_epi16
#undef _mm512_dpwssd_epi32
#undef _mm512_sra_epi32
#undef _mm512_srai_epi32
#undef _mm512_mask_srai_epi32
#undef _mm512_srl_epi32
#undef _mm512_sll_epi32
#undef _mm512_slli_epi32
#undef _mm512_cmple_epi32_mask
#undef _mm512_cmple_epu32_mask
#undef _mm512_test_epi32_mask
#undef _mm512_mask_mov_epi32
#undef _mm512_permutex2var_epi32
#undef _mm512_reduce_add_epi32
#undef _mm512_cvtepi32_epi16
#undef _mm512_mask_cvtepi32_storeu_epi16
#undef _mm512_cvtepi16_epi32
#undef _mm512_cvtepi32_ps
#undef _mm512_sqrt_ps
#undef _mm512_sub_ps
#undef _mm512_cvttps_epi32
#undef _mm512_or_si512
#undef _mm512_sllv_epi32
#undef _mm512_srlv_epi32
#undef _mm512_srli_epi32
#undef _mm512_mask_add_epi32
#undef _mm512_mask_sub_epi32
#undef _mm512_mask_or_epi32
#undef _mm512_mask_min_epi32
#undef _mm512_mask_max_epi32
#undef _mm512_mask_srli_epi32
#undef _mm512_mask_i32gather_epi32
#undef _mm512_mask_cmpeq_epi32_mask
#undef _mm512_mask_cmple_epi32_mask
#undef _mm512_mask_cmple_epu32_mask
#undef _mm512_mask_cmplt_epu32_mask
#undef _mm512_mask_cmpge_epu32_mask
#undef _mm512_cmpgt_epi32_mask
#undef _mm512_reduce_min_epi32
#undef _mm512_reduce_max_epi32
#undef _tile_loadconfig
#undef _tile_release
#undef _tile_zero
#undef _tile_loadd
#undef _tile_stored
#undef _tile_dpbssd
#undef _tile_dpbsud
#undef _tile_dpbusd
#undef _tile_dpbuud
#define _mm512_setzero_si512 wai_emu_setzero_si512
#define _mm512_set1_epi32 wai_emu_set1_epi32
#define _mm512_setr_epi32 wai_emu_setr_epi32
#define _mm512_set1_ps wai_emu_set1_ps
#define _mm512_loadu_si512 wai_emu_loadu_si512
#define _mm512_storeu_si512 wai_emu_storeu_si512
#define _mm512_maskz_loadu_epi32 wai_emu_maskz_loadu_epi32
#define _mm512_maskz_loadu_epi16 wai_emu_maskz_loadu_epi16
#define _mm512_mask_storeu_epi32 wai_emu_mask_storeu_epi32
#define _mm512_mask_storeu_epi16 wai_emu_mask_storeu_epi16
#define _mm512_i32gather_epi32 wai_emu_i32gather_epi32
#define _mm256_loadu_si256 wai_emu_mm256_loadu_si256
#define _mm256_storeu_si256 wai_emu_mm256_storeu_si256
#define _mm256_maskz_loadu_epi16 wai_emu_mm256_maskz_loadu_epi16
#define _mm512_add_epi32 wai_emu_add_epi32
#define _mm512_sub_epi32 wai_emu_sub_epi32
#define _mm512_mullo_epi32 wai_emu_mullo_epi32
#define _mm512_and_si512 wai_emu_and_si512
#define _mm512_andnot_si512 wai_emu_andnot_si512
#define _mm512_xor_si512 wai_emu_xor_si512
#define _mm512_min_epi32 wai_emu_min_epi32
#define _mm512_max_epi32 wai_emu_max_epi32
#define _mm512_srav_epi32 wai_emu_srav_epi32
#define _mm512_madd_epi16 wai_emu_madd_epi16
#define _mm512_dpwssd_epi32 wai_emu_dpwssd_epi32
#define _mm512_sra_epi32 wai_emu_sra_epi32
#define _mm512_srai_epi32 wai_emu_srai_epi32
#define _mm512_mask_srai_epi32 wai_emu_mask_srai_epi32
#define _mm512_srl_epi32 wai_emu_srl_epi32
#define _mm512_sll_epi32 wai_emu_sll_epi32
#define _mm512_slli_epi32 wai_emu_slli_epi32
#define _mm512_cmple_epi32_mask wai_emu_cmple_epi32_mask
#define _mm512_cmple_epu32_mask wai_emu_cmple_epu32_mask
#define _mm512_test_epi32_mask wai_emu_test_epi32_mask
#define _mm512_mask_mov_epi32 wai_emu_mask_mov_epi32
#define _mm512_permutex2var_epi32 wai_emu_permutex2var_epi32
#define _mm512_reduce_add_epi32 wai_emu_reduce_add_epi32
#define _mm512_cvtepi32_epi16 wai_emu_cvtepi32_epi16
#define _mm512_mask_cvtepi32_storeu_epi16 wai_emu_mask_cvtepi32_storeu_epi16
#define _mm512_cvtepi16_epi32 wai_emu_cvtepi16_epi32
#define _mm512_cvtepi32_ps wai_emu_cvtepi32_ps
#define _mm512_sqrt_ps wai_emu_sqrt_ps
#define _mm512_sub_ps wai_emu_sub_ps
#define _mm512_cvttps_epi32 wai_emu_cvttps_epi32
#define _mm512_or_si512 wai_emu_or_si512
#define _mm512_sllv_epi32 wai_emu_sllv_epi32
#define _mm512_srlv_epi32 wai_emu_srlv_epi32
#define _mm512_srli_epi32 wai_emu_srli_epi32
#define _mm512_mask_add_epi32 wai_emu_mask_add_epi32
#define _mm512_mask_sub_epi32 wai_emu_mask_sub_epi32
#define _mm512_mask_or_epi32 wai_emu_mask_or_epi32
#define _mm512_mask_min_epi32 wai_emu_mask_min_epi32
#define _mm512_mask_max_epi32 wai_emu_mask_max_epi32
#define _mm512_mask_srli_epi32 wai_emu_mask_srli_epi32
#define _mm512_mask_i32gather_epi32 wai_emu_mask_i32gather_epi32
#define _mm512_mask_cmpeq_epi32_mask wai_emu_mask_cmpeq_epi32_mask
#define _mm512_mask_cmple_epi32_mask wai_emu_mask_cmple_epi32_mask
#define _mm512_mask_cmple_epu32_mask wai_emu_mask_cmple_epu32_mask
#define _mm512_mask_cmplt_epu32_mask wai_emu_mask_cmplt_epu32_mask
#define _mm512_mask_cmpge_epu32_mask wai_emu_mask_cmpge_epu32_mask
#define _mm512_cmpgt_epi32_mask wai_emu_cmpgt_epi32_mask
#define _mm512_reduce_min_epi32 wai_emu_reduce_min_epi32
#define _mm512_reduce_max_epi32 wai_emu_reduce_max_epi32
#define _tile_loadconfig(config) wai_emu_tile_loadconfig(config)
#define _tile_release() wai_emu_tile_release()
#define _tile_zero(t) wai_emu_tile_zero(t)
#define _tile_loadd(t, base, stride) wai_emu_tile_loadd((t), (base), (long)(stride))
#define _tile_stored(t, base, stride) wai_emu_tile_stored((t), (base), (long)(stride))
#define _tile_dpbssd(c, a, b) wai_emu_tile_dp((c), (a), (b), 1, 1)
#define _tile_dpbsud(c, a, b) wai_emu_tile_dp((c), (a), (b), 1, 0)
#define _tile_dpbusd(c, a, b) wai_emu_tile_dp((c), (a), (b), 0, 1)
#define _tile_dpbuud(c, a, b) wai_emu_tile_dp((c), (a), (b), 0, 0)

#endif
