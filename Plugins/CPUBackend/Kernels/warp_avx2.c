/* The warp's (docs/integer-ops.md §4.10) AVX2 row: 8 output columns of one row per step
 * (warp_avx512.c: 16), the same int32 integers as warp.c's plain C lane by lane — coordinate
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

#define T256 __attribute__((target("avx2,fma")))

/* ---- AVX2: 8 columns ---- */

T256 static inline __m256i load8(const void *p, int bits, size_t at) {
    if (bits == 16) return _mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)((const int16_t *)p + at)));
    return _mm256_loadu_si256((const __m256i *)((const int32_t *)p + at));
}

T256 static inline __m256i gather8(const void *vol, int bits, __m256i idx) {
    if (bits == 32) return _mm256_i32gather_epi32((const int *)vol, idx, 4);
    const __m256i even = _mm256_andnot_si256(_mm256_set1_epi32(1), idx);
    const __m256i word = _mm256_i32gather_epi32((const int *)vol, even, 2);
    const __m256i lo = _mm256_srai_epi32(_mm256_slli_epi32(word, 16), 16), hi = _mm256_srai_epi32(word, 16);
    const __m256i odd = _mm256_cmpeq_epi32(_mm256_and_si256(idx, _mm256_set1_epi32(1)), _mm256_set1_epi32(1));
    return _mm256_blendv_epi8(lo, hi, odd);
}

T256 int cpuk_warp_row_avx2(const cpuk_warp_ctx *k, int i) {
    const int W = k->w, H = k->h, S = k->s, C = k->c, F = k->f;
    const int32_t E = (int32_t)1 << F;
    const size_t hw = (size_t)H * W;
    const __m128i fcount = _mm_cvtsi32_si128(F), rcount = _mm_cvtsi32_si128(3 * F);
    const __m256i zero = _mm256_setzero_si256(), one = _mm256_set1_epi32(1), e = _mm256_set1_epi32(E);
    const __m256i maxX = _mm256_set1_epi32((W - 1) * E), maxY = _mm256_set1_epi32((H - 1) * E),
                  maxZ = _mm256_set1_epi32((S - 1) * E);
    const __m256i lastX = _mm256_set1_epi32(W - 1), lastY = _mm256_set1_epi32(H - 1), lastZ = _mm256_set1_epi32(S - 1);
    const __m256i frac = _mm256_set1_epi32(E - 1), width = _mm256_set1_epi32(W), scaleStride = _mm256_set1_epi32((int32_t)((size_t)C * hw));
    const __m256i bias = _mm256_set1_epi32(cpuk_rnd_const(3 * F)), rowE = _mm256_set1_epi32(i * E);
    const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    int j = 0;
    for (; j + 8 <= W; j += 8) {
        const size_t at = (size_t)i * W + j;
        const __m256i colE = _mm256_sll_epi32(_mm256_add_epi32(_mm256_set1_epi32(j), lanes), fcount);
        const __m256i X = _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(colE, load8(k->flow, k->flow_bits, at)), zero), maxX);
        const __m256i Y = _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(rowE, load8(k->flow, k->flow_bits, hw + at)), zero), maxY);
        const __m256i Z = _mm256_min_epi32(_mm256_max_epi32(load8(k->flow, k->flow_bits, 2 * hw + at), zero), maxZ);
        const __m256i x0 = _mm256_srl_epi32(X, fcount), y0 = _mm256_srl_epi32(Y, fcount), z0 = _mm256_srl_epi32(Z, fcount);
        const __m256i ax = _mm256_and_si256(X, frac), ay = _mm256_and_si256(Y, frac), az = _mm256_and_si256(Z, frac);
        const __m256i xs[2] = { x0, _mm256_min_epi32(_mm256_add_epi32(x0, one), lastX) };
        const __m256i ys[2] = { y0, _mm256_min_epi32(_mm256_add_epi32(y0, one), lastY) };
        const __m256i zs[2] = { z0, _mm256_min_epi32(_mm256_add_epi32(z0, one), lastZ) };
        const __m256i wx[2] = { _mm256_sub_epi32(e, ax), ax }, wy[2] = { _mm256_sub_epi32(e, ay), ay },
                      wz[2] = { _mm256_sub_epi32(e, az), az };
        __m256i weight[8], offset[8];
        for (int r = 0; r < 2; r++)
            for (int q = 0; q < 2; q++)
                for (int p = 0; p < 2; p++) {
                    const int t = (r * 2 + q) * 2 + p;
                    weight[t] = _mm256_mullo_epi32(wz[r], _mm256_mullo_epi32(wy[q], wx[p]));
                    offset[t] = _mm256_add_epi32(_mm256_mullo_epi32(zs[r], scaleStride),
                                                 _mm256_add_epi32(_mm256_mullo_epi32(ys[q], width), xs[p]));
                }
        for (int ch = 0; ch < C; ch++) {
            const __m256i base = _mm256_set1_epi32((int32_t)((size_t)ch * hw));
            __m256i acc = zero;
            for (int t = 0; t < 8; t++)
                acc = _mm256_add_epi32(acc, _mm256_mullo_epi32(weight[t], gather8(k->vol, k->vol_bits, _mm256_add_epi32(offset[t], base))));
            const __m256i y = _mm256_sra_epi32(_mm256_add_epi32(acc, bias), rcount);
            const size_t o = (size_t)ch * hw + at;
            if (k->out_bits == 16) {
                /* Every value fits int16 by the certificate: the saturating pack is exact. */
                const __m256i packed = _mm256_permute4x64_epi64(_mm256_packs_epi32(y, y), 0xD8);
                _mm_storeu_si128((__m128i *)((int16_t *)k->out + o), _mm256_castsi256_si128(packed));
            } else {
                _mm256_storeu_si256((__m256i *)((int32_t *)k->out + o), y);
            }
        }
    }
    return j;
}
#endif
