/*
 * The lane-stream loop in AVX2 (entropy_kernels.h; docs/entropy-coding.md §4, §8.4): the
 * portable loop's direct buckets, 8 lanes a vector. A round takes each vector of lanes
 * through the whole step: the table indices (loaded and checked), each lane's direct bucket
 * and the 4 bytes at its position gathered, the new state from the bucket's frequency and
 * cdf entry, up to 2 bytes shifted in under masks, the values stored and folded into the
 * least and greatest. A lane whose bucket is not one direct symbol's (the search, an
 * escape), or within 4 bytes of its end, keeps its state there and is done after the
 * round's vectors, lane by lane, by the portable loop's scalar slow paths
 * (rans_lanes_common.h).
 */
#include "rans_lanes_common.h"

#if defined(__x86_64__)
#include <immintrin.h>
#define T2 __attribute__((target("avx2")))

enum { W = WAI_RANS_PORTABLE_LANES, DB = WAI_RANS_DIRECT_BITS };

/* Words k and k + 1 of each 64-bit element of q0 (elements 0–3) and q1 (4–7), in element
 * order: the direct buckets' values (k = 0) or their cdf entries and frequencies (k = 1). */
#define WAI_HALVES(q0, q1, k)                                                                          \
    _mm256_permute4x64_epi64(_mm256_castps_si256(_mm256_shuffle_ps(_mm256_castsi256_ps(q0),             \
                                                                   _mm256_castsi256_ps(q1),             \
                                                                   _MM_SHUFFLE(2 + k, k, 2 + k, k))),   \
                             _MM_SHUFFLE(3, 1, 2, 0))

/* Tables all of precision p (1 … 16), which the compiler folds in where it is a constant. */
T2 static inline __attribute__((always_inline)) int decode(const wai_rans_lane_job *job, int first, int n,
                                                           int32_t extremes[2], const uint32_t p) {
    /* Lanes past n are never live, but their states are read a whole vector at a time. The
     * buckets need no start: each vector stores its 8 before the scalar step reads any. */
    _Alignas(32) uint32_t xs[W];
    _Alignas(32) int32_t ats[W], ends[W];
    _Alignas(32) uint64_t buckets[W];
    for (int j = 0; j < W; j++) {
        xs[j] = WAI_RANS_LOWER;
        ats[j] = ends[j] = 0;
    }
    if (!wai_rans_lanes_begin(job, first, n, xs, ats, ends)) return 1;
    const uint8_t *restrict bytes = job->bytes;
    const uint64_t *restrict direct = job->direct;
    const int32_t *restrict selection = job->selection;
    int32_t *restrict out = job->out;
    const int64_t lanes = job->lane_count, count = job->count;
    const uint32_t slot_mask = (1u << p) - 1, bucket_shift = p > DB ? p - DB : 0;
    const int64_t rounds = wai_rans_rounds(job, first), full = wai_rans_full_rounds(job, first, n);

    const __m128i precision = _mm_cvtsi32_si128((int)p), to_bucket = _mm_cvtsi32_si128((int)bucket_shift);
    const __m256i low16 = _mm256_set1_epi32(0xFFFF), slots = _mm256_set1_epi32((int)slot_mask);
    const __m256i ff = _mm256_set1_epi32(0xFF), four = _mm256_set1_epi32(4), zero = _mm256_setzero_si256();
    const __m256i last_table = _mm256_set1_epi32(job->table_count - 1);
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i most = _mm256_set1_epi32(INT32_MAX), least = _mm256_set1_epi32(INT32_MIN);
    __m256i lowest = most, highest = least;
    int32_t rest_lowest = INT32_MAX, rest_highest = INT32_MIN;

    for (int64_t t = 0; t < rounds; t++) {
        const int64_t base = t * lanes + first;
        const int m = t < full ? n : (int)(count - base);   /* the last round may be partial */
        uint32_t rest = 0;                                   /* the lanes left for the scalar step */
        for (int v = 0; 8 * v < m; v++) {
            int32_t *const values = out + base + 8 * v;
            const __m256i live = _mm256_cmpgt_epi32(_mm256_set1_epi32(m - 8 * v), lane);
            const __m256i table = m - 8 * v >= 8 ? _mm256_loadu_si256((const __m256i *)(selection + base + 8 * v))
                                                 : _mm256_maskload_epi32(selection + base + 8 * v, live);
            /* Unsigned: a negative index is out of range too. */
            const __m256i known = _mm256_cmpeq_epi32(_mm256_max_epu32(table, last_table), last_table);
            if (_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_andnot_si256(known, live)))) return 1;
            const __m256i x = _mm256_load_si256((const __m256i *)&xs[8 * v]);
            const __m256i at = _mm256_load_si256((const __m256i *)&ats[8 * v]);
            const __m256i end = _mm256_load_si256((const __m256i *)&ends[8 * v]);
            const __m256i slot = _mm256_and_si256(x, slots);
            /* A dead lane reads bucket 0 of table 0, which every set with direct buckets has. */
            const __m256i bucket = _mm256_and_si256(
                _mm256_add_epi32(_mm256_slli_epi32(table, DB), _mm256_srl_epi32(slot, to_bucket)), live);
            const __m256i q0 = _mm256_i32gather_epi64((const long long *)direct, _mm256_castsi256_si128(bucket), 8);
            const __m256i q1 = _mm256_i32gather_epi64((const long long *)direct, _mm256_extracti128_si256(bucket, 1), 8);
            _mm256_store_si256((__m256i *)&buckets[8 * v], q0);
            _mm256_store_si256((__m256i *)&buckets[8 * v + 4], q1);
            /* The gather reads 4 bytes, so a lane within 4 of its end is the scalar step's, and
             * reads (as a dead lane does) the stream's first 4, which it always has. */
            const __m256i near_end = _mm256_cmpgt_epi32(_mm256_add_epi32(at, four), end);
            const __m256i w = _mm256_i32gather_epi32((const int *)bytes, _mm256_andnot_si256(near_end, at), 1);
            const __m256i value = WAI_HALVES(q0, q1, 0), high = WAI_HALVES(q0, q1, 1);
            const __m256i f = _mm256_srli_epi32(high, 16), start = _mm256_and_si256(high, low16);
            const __m256i xn = _mm256_add_epi32(_mm256_mullo_epi32(f, _mm256_srl_epi32(x, precision)),
                                                _mm256_sub_epi32(slot, start));
            /* At most 2 bytes (x ≥ 2^7 after a step with p ≤ 16, §4); x < L is x >> 23 == 0. */
            const __m256i n0 = _mm256_cmpeq_epi32(_mm256_srli_epi32(xn, 23), zero);
            const __m256i x1 = _mm256_blendv_epi8(xn, _mm256_or_si256(_mm256_slli_epi32(xn, 8), _mm256_and_si256(w, ff)), n0);
            const __m256i n1 = _mm256_cmpeq_epi32(_mm256_srli_epi32(x1, 23), zero);
            const __m256i b1 = _mm256_and_si256(_mm256_srli_epi32(w, 8), ff);
            const __m256i x2 = _mm256_blendv_epi8(x1, _mm256_or_si256(_mm256_slli_epi32(x1, 8), b1), n1);
            const __m256i at2 = _mm256_sub_epi32(_mm256_sub_epi32(at, n0), n1);   /* the masks are −1 */
            /* Later: the scalar step's (frequency 0: the search or an escape). Done: live, not later. */
            const __m256i later = _mm256_or_si256(_mm256_cmpeq_epi32(f, zero), near_end);
            const __m256i done = _mm256_andnot_si256(later, live);
            _mm256_store_si256((__m256i *)&xs[8 * v], _mm256_blendv_epi8(x, x2, done));
            _mm256_store_si256((__m256i *)&ats[8 * v], _mm256_blendv_epi8(at, at2, done));
            /* The scalar step writes its lanes' values over what this stores for them. */
            if (m - 8 * v >= 8)
                _mm256_storeu_si256((__m256i *)values, value);
            else
                _mm256_maskstore_epi32(values, live, value);
            lowest = _mm256_min_epi32(lowest, _mm256_blendv_epi8(most, value, done));
            highest = _mm256_max_epi32(highest, _mm256_blendv_epi8(least, value, done));
            rest |= (uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_and_si256(later, live))) << (8 * v);
        }
        for (; rest; rest &= rest - 1) {
            const int j = __builtin_ctz(rest);
            const uint64_t d = buckets[j];
            const uint32_t slot = xs[j] & slot_mask, frequency = (uint32_t)(d >> 48);
            int32_t value;
            if (frequency == 0) {
                /* The table index was checked with its vector. */
                if (!wai_rans_searched_step(job, selection[base + j], slot, (uint32_t)d, &xs[j], &ats[j], ends[j],
                                            &value))
                    return 1;
            } else {
                uint32_t x = frequency * (xs[j] >> p) + slot - ((uint32_t)(d >> 32) & 0xFFFF);
                int64_t a = ats[j];
                if (!wai_rans_renorm(&x, &a, ends[j], bytes)) return 1;
                xs[j] = x;
                ats[j] = (int32_t)a;
                value = (int32_t)d;
            }
            out[base + j] = value;
            rest_lowest = value < rest_lowest ? value : rest_lowest;
            rest_highest = value > rest_highest ? value : rest_highest;
        }
    }
    if (!wai_rans_lanes_finished(n, xs, ats, ends)) return 1;
    _Alignas(32) int32_t lo[8], hi[8];
    _mm256_store_si256((__m256i *)lo, lowest);
    _mm256_store_si256((__m256i *)hi, highest);
    for (int j = 0; j < 8; j++) {
        rest_lowest = lo[j] < rest_lowest ? lo[j] : rest_lowest;
        rest_highest = hi[j] > rest_highest ? hi[j] : rest_highest;
    }
    extremes[0] = rest_lowest;
    extremes[1] = rest_highest;
    return 0;
}

T2 int wai_rans_lanes_decode_avx2(const wai_rans_lane_job *job, int first, int n, int32_t extremes[2]) {
    if (n < 1 || n > W || first < 0 || job->lane_count < 1 || job->table_count < 1 || !job->direct) return 1;
    /* Tables of differing precisions have no one shift for a vector: the portable loop's. */
    if (job->precision < 1 || job->precision > 16) return wai_rans_lanes_decode_portable(job, first, n, extremes);
    /* 16 in every set the project's tools write (docs/capabilities/int_hyper.md §2.2). */
    return job->precision == 16 ? decode(job, first, n, extremes, 16)
                                : decode(job, first, n, extremes, (uint32_t)job->precision);
}

#else
int wai_rans_lanes_decode_avx2(const wai_rans_lane_job *job, int first, int n, int32_t extremes[2]) {
    (void)job; (void)first; (void)n; (void)extremes;
    return 1;
}
#endif
