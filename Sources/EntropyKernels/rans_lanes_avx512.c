/*
 * The lane-stream decoder's vector loop (entropy_kernels.h; docs/entropy-coding.md §4, §8):
 * vector element j holds lane first + j, so one step decodes the values
 * base … base + n − 1 of one round, which are consecutive (§8.1) and stored with one masked
 * store. A step is the §4 symbol step as RansLaneDecoder does it (bucket lookup, then the
 * forward search over the cdf), the branch-free renormalisation of up to 2 bytes, and the
 * direct value, folded into running vectors of the least and greatest; escapes and lanes
 * within 4 bytes of their end are done lane by lane, in scalar code that mirrors the Swift
 * decoder's slow paths, refusing (return 1) wherever that decoder would throw.
 */
#include "rans_lanes_common.h"

#if defined(WAI_AVX512_EMULATED)
/* The tests' build: the intrinsics in portable C (Tests/EmulatedEntropyKernels), so this
 * loop's logic is checked on CPUs without AVX-512 too. */
#define T5
#elif defined(__x86_64__)
#include <immintrin.h>
#define T5 __attribute__((target("avx512f,avx512bw,avx512vl")))
#endif

#if defined(__x86_64__) || defined(WAI_AVX512_EMULATED)

enum { LOWER = WAI_RANS_LOWER };

T5 int wai_rans_lanes_decode_avx512(const wai_rans_lane_job *job, int first, int n, int32_t extremes[2]) {
    if (n < 1 || n > 16 || first < 0 || job->lane_count < 1) return 1;
    uint32_t xs[16];
    int32_t ats[16], ends[16];
    for (int j = 0; j < 16; j++) { xs[j] = LOWER; ats[j] = 0; ends[j] = 0; }
    if (!wai_rans_lanes_begin(job, first, n, xs, ats, ends)) return 1;
    const uint8_t *bytes = job->bytes;
    const int64_t count = job->count, lanes = job->lane_count;
    __m512i x = _mm512_loadu_si512(xs), at = _mm512_loadu_si512(ats);
    const __m512i end = _mm512_loadu_si512(ends);
    const __m512i one = _mm512_set1_epi32(1), four = _mm512_set1_epi32(4), lower = _mm512_set1_epi32(LOWER);
    const __m512i m31 = _mm512_set1_epi32(31), mff = _mm512_set1_epi32(0xFF), mffff = _mm512_set1_epi32(0xFFFF);
    const __m512i zero = _mm512_setzero_si512(), table_count = _mm512_set1_epi32(job->table_count);
    /* Word k of every table: a gather at index sel << 3 from here (wai_rans_table). */
    const int32_t *words = (const int32_t *)job->tables;
    enum { META = 0, CDF_BASE = 1, LOOKUP_BASE = 2, OFFSET = 3 };
    const __mmask16 active = (__mmask16)((1u << n) - 1);
    const int64_t rounds = wai_rans_rounds(job, first), full = wai_rans_full_rounds(job, first, n);
    __m512i lowest = _mm512_set1_epi32(INT32_MAX), highest = _mm512_set1_epi32(INT32_MIN);
    int32_t escaped_lowest = INT32_MAX, escaped_highest = INT32_MIN;

    for (int64_t t = 0; t < rounds; t++) {
        const int64_t base = t * lanes + first;
        __mmask16 m = active;
        if (t >= full) {
            const int64_t left = count - base;
            m &= left >= 16 ? 0xFFFF : (__mmask16)((1u << left) - 1);
        }
        const __m512i index = _mm512_maskz_loadu_epi32(m, job->selection + base);
        if (_mm512_mask_cmpge_epu32_mask(m, index, table_count)) return 1;
        const __m512i sel = _mm512_slli_epi32(index, 3);
        const __m512i meta = _mm512_mask_i32gather_epi32(zero, m, sel, words + META, 4);
        const __m512i cb = _mm512_mask_i32gather_epi32(zero, m, sel, words + CDF_BASE, 4);
        const __m512i lb = _mm512_mask_i32gather_epi32(zero, m, sel, words + LOOKUP_BASE, 4);
        const __m512i p = _mm512_and_si512(meta, m31);
        const __m512i sh = _mm512_and_si512(_mm512_srli_epi32(meta, 5), m31);
        const __m512i esc = _mm512_srli_epi32(meta, 16);
        const __m512i slot = _mm512_and_si512(x, _mm512_sub_epi32(_mm512_sllv_epi32(one, p), one));
        /* The bucket's symbol: 2-byte entries read 4 bytes wide (the table has a padding entry). */
        __m512i s = _mm512_and_si512(
            _mm512_mask_i32gather_epi32(zero, m, _mm512_add_epi32(lb, _mm512_srlv_epi32(slot, sh)), job->lookup, 2), mffff);
        __m512i ci = _mm512_add_epi32(_mm512_add_epi32(cb, s), one);
        __m512i c1 = _mm512_mask_i32gather_epi32(zero, m, ci, job->cdf, 4);
        __mmask16 adv = _mm512_mask_cmple_epu32_mask(m, c1, slot);
        while (adv) {
            s = _mm512_mask_add_epi32(s, adv, s, one);
            ci = _mm512_mask_add_epi32(ci, adv, ci, one);
            c1 = _mm512_mask_i32gather_epi32(c1, adv, ci, job->cdf, 4);
            adv = _mm512_mask_cmple_epu32_mask(adv, c1, slot);
        }
        const __m512i start = _mm512_mask_i32gather_epi32(zero, m, _mm512_sub_epi32(ci, one), job->cdf, 4);
        const __m512i xn = _mm512_sub_epi32(_mm512_add_epi32(_mm512_mullo_epi32(_mm512_sub_epi32(c1, start),
                                                                                _mm512_srlv_epi32(x, p)), slot), start);
        x = _mm512_mask_mov_epi32(x, m, xn);

        /* Renormalisation: at most 2 bytes (x ≥ 2^7 after a step with p ≤ 16, §4). */
        const __mmask16 fast = _mm512_mask_cmple_epi32_mask(m, _mm512_add_epi32(at, four), end);
        const __m512i w = _mm512_mask_i32gather_epi32(zero, fast, at, bytes, 1);
        const __mmask16 n0 = _mm512_mask_cmplt_epu32_mask(fast, x, lower);
        const __m512i x1 = _mm512_mask_or_epi32(x, n0, _mm512_slli_epi32(x, 8), _mm512_and_si512(w, mff));
        const __mmask16 n1 = _mm512_mask_cmplt_epu32_mask(fast, x1, lower);
        const __m512i b1 = _mm512_and_si512(_mm512_mask_srli_epi32(w, n0, w, 8), mff);
        x = _mm512_mask_or_epi32(x1, n1, _mm512_slli_epi32(x1, 8), b1);
        at = _mm512_mask_add_epi32(at, n0, at, one);
        at = _mm512_mask_add_epi32(at, n1, at, one);

        const __mmask16 isesc = _mm512_mask_cmpeq_epi32_mask(m, s, esc);
        const __mmask16 above = _mm512_cmpgt_epi32_mask(s, esc);
        const __m512i off = _mm512_mask_i32gather_epi32(zero, m, sel, words + OFFSET, 4);
        const __m512i v = _mm512_mask_sub_epi32(_mm512_add_epi32(off, s), above, _mm512_add_epi32(off, s), one);
        _mm512_mask_storeu_epi32(job->out + base, m & ~isesc, v);
        lowest = _mm512_mask_min_epi32(lowest, m & ~isesc, lowest, v);
        highest = _mm512_mask_max_epi32(highest, m & ~isesc, highest, v);

        const __mmask16 slow = (__mmask16)(m & ~fast);
        if (slow | isesc) {
            _mm512_storeu_si512(xs, x);
            _mm512_storeu_si512(ats, at);
            for (int j = 0; j < n; j++) {
                const int bit = 1 << j;
                uint32_t xj = xs[j];
                int64_t aj = ats[j];
                if ((slow & bit) && !wai_rans_renorm(&xj, &aj, ends[j], bytes)) return 1;
                if (isesc & bit) {
                    const int32_t table = job->selection[base + j];
                    if (!wai_rans_escaped(&xj, &aj, ends[j], bytes, job->tables[table].lowest,
                                          job->tables[table].highest, &job->out[base + j]))
                        return 1;
                    const int32_t e = job->out[base + j];
                    escaped_lowest = e < escaped_lowest ? e : escaped_lowest;
                    escaped_highest = e > escaped_highest ? e : escaped_highest;
                }
                xs[j] = xj; ats[j] = (int32_t)aj;
            }
            x = _mm512_loadu_si512(xs);
            at = _mm512_loadu_si512(ats);
        }
    }
    _mm512_storeu_si512(xs, x);
    _mm512_storeu_si512(ats, at);
    if (!wai_rans_lanes_finished(n, xs, ats, ends)) return 1;
    const int32_t lo = _mm512_reduce_min_epi32(lowest), hi = _mm512_reduce_max_epi32(highest);
    extremes[0] = lo < escaped_lowest ? lo : escaped_lowest;
    extremes[1] = hi > escaped_highest ? hi : escaped_highest;
    return 0;
}

#else
int wai_rans_lanes_decode_avx512(const wai_rans_lane_job *job, int first, int n, int32_t extremes[2]) {
    (void)job; (void)first; (void)n; (void)extremes;
    return 1;
}
#endif
