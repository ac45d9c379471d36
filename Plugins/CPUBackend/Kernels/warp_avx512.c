/* The warp's (docs/integer-ops.md §4.10) AVX-512 row: 16 output columns of one row per step
 * (warp_avx2.c: 8), the same int32 integers as warp.c's plain C lane by lane — coordinate
 * j·E + d, clamp, then split by a shift (the clamped coordinate is >= 0), the exact weight
 * products (vpmulld, at most 2^30), eight gathered samples per channel, vpmulld and vpaddd
 * into acc, one arithmetic shift by 3F after the bias. The certificate (§5) keeps each of
 * these in int32, so lane arithmetic modulo 2^32 never wraps. Sample indices are int32
 * lanes: warp.c runs these rows only when the volume has at most INT32_MAX elements.
 *
 * A narrow volume has no 16-bit gather: each lane gathers the 4-byte-aligned word holding
 * its int16 (index rounded down to even, scale 2) and takes the low or high half, sign-
 * extended. The word is aligned (warp.c checks the base is), so it never crosses a page,
 * and it reaches at most the 2 bytes after the last sample, which an allocation rounded up
 * to 4 bytes holds (the plugin's tensor buffers are cpuk_alloc's, rounded up to 64). */
#include "kernels_internal.h"

#if CPUK_X86
#include <immintrin.h>

#define T512 CPUK_TARGET_512("avx512f,avx512bw,avx512vl")

/* ---- AVX-512: 16 columns ---- */

T512 static inline __m512i load16(const void *p, int bits, size_t at) {
    if (bits == 16) return _mm512_cvtepi16_epi32(_mm256_loadu_si256((const __m256i *)((const int16_t *)p + at)));
    return _mm512_loadu_si512((const void *)((const int32_t *)p + at));
}

T512 static inline __m512i gather16(const void *vol, int bits, __m512i idx) {
    if (bits == 32) return _mm512_i32gather_epi32(idx, vol, 4);
    const __m512i even = _mm512_andnot_si512(_mm512_set1_epi32(1), idx);
    const __m512i word = _mm512_i32gather_epi32(even, vol, 2);
    const __m512i lo = _mm512_srai_epi32(_mm512_slli_epi32(word, 16), 16);
    const __mmask16 odd = _mm512_test_epi32_mask(idx, _mm512_set1_epi32(1));
    return _mm512_mask_srai_epi32(lo, odd, word, 16);
}

T512 int cpuk_warp_row_avx512(const cpuk_warp_ctx *k, int i) {
    const int W = k->w, H = k->h, S = k->s, C = k->c, F = k->f;
    const int32_t E = (int32_t)1 << F;
    const size_t hw = (size_t)H * W;
    const __m128i fcount = _mm_cvtsi32_si128(F), rcount = _mm_cvtsi32_si128(3 * F);
    const __m512i zero = _mm512_setzero_si512(), one = _mm512_set1_epi32(1), e = _mm512_set1_epi32(E);
    const __m512i maxX = _mm512_set1_epi32((W - 1) * E), maxY = _mm512_set1_epi32((H - 1) * E),
                  maxZ = _mm512_set1_epi32((S - 1) * E);
    const __m512i lastX = _mm512_set1_epi32(W - 1), lastY = _mm512_set1_epi32(H - 1), lastZ = _mm512_set1_epi32(S - 1);
    const __m512i frac = _mm512_set1_epi32(E - 1), width = _mm512_set1_epi32(W), scaleStride = _mm512_set1_epi32((int32_t)((size_t)C * hw));
    const __m512i bias = _mm512_set1_epi32(cpuk_rnd_const(3 * F)), rowE = _mm512_set1_epi32(i * E);
    const __m512i lanes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    int j = 0;
    for (; j + 16 <= W; j += 16) {
        const size_t at = (size_t)i * W + j;
        const __m512i colE = _mm512_sll_epi32(_mm512_add_epi32(_mm512_set1_epi32(j), lanes), fcount);
        const __m512i X = _mm512_min_epi32(_mm512_max_epi32(_mm512_add_epi32(colE, load16(k->flow, k->flow_bits, at)), zero), maxX);
        const __m512i Y = _mm512_min_epi32(_mm512_max_epi32(_mm512_add_epi32(rowE, load16(k->flow, k->flow_bits, hw + at)), zero), maxY);
        const __m512i Z = _mm512_min_epi32(_mm512_max_epi32(load16(k->flow, k->flow_bits, 2 * hw + at), zero), maxZ);
        const __m512i x0 = _mm512_srl_epi32(X, fcount), y0 = _mm512_srl_epi32(Y, fcount), z0 = _mm512_srl_epi32(Z, fcount);
        const __m512i ax = _mm512_and_si512(X, frac), ay = _mm512_and_si512(Y, frac), az = _mm512_and_si512(Z, frac);
        const __m512i xs[2] = { x0, _mm512_min_epi32(_mm512_add_epi32(x0, one), lastX) };
        const __m512i ys[2] = { y0, _mm512_min_epi32(_mm512_add_epi32(y0, one), lastY) };
        const __m512i zs[2] = { z0, _mm512_min_epi32(_mm512_add_epi32(z0, one), lastZ) };
        const __m512i wx[2] = { _mm512_sub_epi32(e, ax), ax }, wy[2] = { _mm512_sub_epi32(e, ay), ay },
                      wz[2] = { _mm512_sub_epi32(e, az), az };
        __m512i weight[8], offset[8];
        for (int r = 0; r < 2; r++)
            for (int q = 0; q < 2; q++)
                for (int p = 0; p < 2; p++) {
                    const int t = (r * 2 + q) * 2 + p;
                    weight[t] = _mm512_mullo_epi32(wz[r], _mm512_mullo_epi32(wy[q], wx[p]));
                    offset[t] = _mm512_add_epi32(_mm512_mullo_epi32(zs[r], scaleStride),
                                                 _mm512_add_epi32(_mm512_mullo_epi32(ys[q], width), xs[p]));
                }
        for (int ch = 0; ch < C; ch++) {
            const __m512i base = _mm512_set1_epi32((int32_t)((size_t)ch * hw));
            __m512i acc = zero;
            for (int t = 0; t < 8; t++)
                acc = _mm512_add_epi32(acc, _mm512_mullo_epi32(weight[t], gather16(k->vol, k->vol_bits, _mm512_add_epi32(offset[t], base))));
            const __m512i y = _mm512_sra_epi32(_mm512_add_epi32(acc, bias), rcount);
            const size_t o = (size_t)ch * hw + at;
            if (k->out_bits == 16) _mm256_storeu_si256((__m256i *)((int16_t *)k->out + o), _mm512_cvtepi32_epi16(y));
            else _mm512_storeu_si512((void *)((int32_t *)k->out + o), y);
        }
    }
    return j;
}
#endif
