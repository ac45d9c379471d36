/*
 * The lane-stream loop in portable C (entropy_kernels.h; docs/entropy-coding.md §4, §8.4):
 * the §4 step as RansLaneDecoder's Swift loop does it, for up to 32 lanes, in two phases:
 * every lane's direct bucket, then every lane's state update, renormalisation (branch-free,
 * up to 2 bytes while 2 remain) and value, the lanes that need the search last; then the
 * least and greatest of the round's values. A direct bucket whose slots lie in one direct
 * symbol holds the whole step's data (its cdf entry, frequency and value), so the common
 * step reads one word where the search reads the bucket lookup and two cdf entries; a bucket
 * across symbols, or an escape, takes the search and the scalar slow paths of
 * rans_lanes_common.h. Within a phase the lanes' loads are independent and adjacent in the
 * instruction stream, so the core has all of them in flight at once; value by value, the
 * out-of-order window holds only the few steps that fit in it.
 */
#include "rans_lanes_common.h"

_Static_assert(WAI_RANS_PORTABLE_LANES <= 32, "a round's searched lanes are one 32-bit mask");

/* The loop, for tables of any precisions (shared 0: each table's meta says), or all of
 * precision `shared`, which the compiler then folds into the step as a constant. */
static inline __attribute__((always_inline)) int decode(const wai_rans_lane_job *job, int first, int n,
                                                        int32_t extremes[2], const uint32_t shared) {
    enum { W = WAI_RANS_PORTABLE_LANES, DB = WAI_RANS_DIRECT_BITS };
    const uint32_t shared_meta = shared == 0 ? 0 : shared | (shared > DB ? shared - DB : 0) << 10;
    uint32_t xs[W], slots[W], metas[W];
    int32_t ats[W], ends[W];
    uint64_t buckets[W];
    if (!wai_rans_lanes_begin(job, first, n, xs, ats, ends)) return 1;
    /* out is the only array written: restrict lets the compiler keep the rest in registers. */
    const uint8_t *restrict bytes = job->bytes;
    const uint64_t *restrict direct = job->direct;
    const wai_rans_table *restrict tables = job->tables;
    const int32_t *restrict selection = job->selection;
    int32_t *restrict out = job->out;
    const int64_t lanes = job->lane_count, count = job->count;
    const int32_t table_count = job->table_count;
    const int64_t rounds = wai_rans_rounds(job, first), full = wai_rans_full_rounds(job, first, n);
    int32_t lowest = INT32_MAX, highest = INT32_MIN;

    for (int64_t t = 0; t < rounds; t++) {
        const int64_t base = t * lanes + first;
        const int m = t < full ? n : (int)(count - base);   /* the last round may be partial */
        for (int j = 0; j < m; j++) {
            const int32_t table = selection[base + j];
            if ((uint32_t)table >= (uint32_t)table_count) return 1;
            const uint32_t meta = shared ? shared_meta : tables[table].meta;
            const uint32_t s = xs[j] & ((1u << (meta & 31)) - 1);
            metas[j] = meta;
            slots[j] = s;
            buckets[j] = direct[((int64_t)table << DB) + (s >> ((meta >> 10) & 31))];
        }
        /* Lanes are independent, so a searched step waits for the end of the round: the
         * loop over the others keeps its registers, and holds no call. */
        uint32_t searched = 0;
        for (int j = 0; j < m; j++) {
            const uint64_t d = buckets[j];
            const uint32_t f = (uint32_t)(d >> 48);
            if (__builtin_expect(f == 0, 0)) {
                searched |= 1u << j;
                continue;
            }
            const uint32_t p = (shared ? shared_meta : metas[j]) & 31, start = (uint32_t)(d >> 32) & 0xFFFF;
            uint32_t x = f * (xs[j] >> p) + slots[j] - start;
            int32_t at = ats[j];
            const int32_t end = ends[j];
            if (at + 2 <= end) {
                /* At most 2 bytes (x ≥ 2^7 after a step with p ≤ 16, §4). Masks, not
                 * conditionals: compilers turn those into branches on the coded data. */
                const uint32_t b0 = bytes[at], b1 = bytes[at + 1];
                const uint32_t n0 = x < WAI_RANS_LOWER, m0 = 0u - n0;
                const uint32_t x1 = (x & ~m0) | (((x << 8) | b0) & m0);
                const uint32_t n1 = x1 < WAI_RANS_LOWER, m1 = 0u - n1;
                x = (x1 & ~m1) | (((x1 << 8) | b1) & m1);
                at += (int32_t)(n0 + n1);
            } else {
                int64_t a = at;
                if (!wai_rans_renorm(&x, &a, end, bytes)) return 1;
                at = (int32_t)a;
            }
            out[base + j] = (int32_t)d;
            xs[j] = x;
            ats[j] = at;
        }
        for (; searched; searched &= searched - 1) {
            const int j = __builtin_ctz(searched);
            /* The table index was checked in the first phase. */
            if (!wai_rans_searched_step(job, selection[base + j], slots[j], (uint32_t)buckets[j], &xs[j], &ats[j],
                                        ends[j], &out[base + j]))
                return 1;
        }
        /* The round's values are consecutive (§8.1): a loop the compiler vectorises. */
        for (int j = 0; j < m; j++) {
            const int32_t v = out[base + j];
            lowest = v < lowest ? v : lowest;
            highest = v > highest ? v : highest;
        }
    }
    if (!wai_rans_lanes_finished(n, xs, ats, ends)) return 1;
    extremes[0] = lowest;
    extremes[1] = highest;
    return 0;
}

int wai_rans_lanes_decode_portable(const wai_rans_lane_job *job, int first, int n, int32_t extremes[2]) {
    if (n < 1 || n > WAI_RANS_PORTABLE_LANES || first < 0 || job->lane_count < 1 || !job->direct) return 1;
    /* A model set's tables share one precision (docs/capabilities/int_hyper.md §2.2): 16 in
     * every set the project's tools write. */
    return job->precision == 16 ? decode(job, first, n, extremes, 16) : decode(job, first, n, extremes, 0);
}
