/*
 * The lane-stream loop in portable C (entropy_kernels.h; docs/entropy-coding.md §4, §8.4):
 * the §4 step as RansLaneDecoder's Swift loop does it (bucket lookup, the cdf search forward
 * from it, the branch-free renormalisation of up to 2 bytes while 2 remain, the direct
 * value), for up to 32 lanes, in phases: every lane's bucket lookup, then every lane's cdf
 * search and state update, then every lane's renormalisation and value, then the least and
 * greatest of the round's values. Within a phase the lanes' loads are independent and
 * adjacent in the instruction stream, so the core has all of them in flight at once; value
 * by value, the out-of-order window holds only the few steps that fit in it. Escapes and a
 * lane's last bytes take the scalar slow paths of rans_lanes_common.h.
 */
#include "rans_lanes_common.h"

int wai_rans_lanes_decode_portable(const wai_rans_lane_job *job, int first, int n, int32_t extremes[2]) {
    enum { W = WAI_RANS_PORTABLE_LANES };
    if (n < 1 || n > W || first < 0 || job->lane_count < 1) return 1;
    uint32_t xs[W], slot[W], sym[W];
    int32_t ats[W], ends[W];
    const wai_rans_table *entry[W];
    if (!wai_rans_lanes_begin(job, first, n, xs, ats, ends)) return 1;
    /* out is the only array written: restrict lets the compiler keep the rest in registers. */
    const uint8_t *restrict bytes = job->bytes;
    const uint32_t *restrict cdf = job->cdf;
    const uint16_t *restrict lookup = job->lookup;
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
            const wai_rans_table *e = &tables[table];
            const uint32_t meta = e->meta, p = meta & 31, sh = (meta >> 5) & 31;
            const uint32_t s = xs[j] & ((1u << p) - 1);
            entry[j] = e;
            slot[j] = s;
            sym[j] = lookup[e->lookup_base + (s >> sh)];
        }
        for (int j = 0; j < m; j++) {
            const wai_rans_table *e = entry[j];
            const uint32_t *c = cdf + e->cdf_base, sl = slot[j], p = e->meta & 31;
            uint32_t s = sym[j];
            /* The bucket's symbol or the next, without a branch: most steps end here. The
             * empty asm keeps the compiler from folding this into the loop below, whose exit
             * would then be a branch on the coded data, mispredicted on every advance. */
            s += c[s + 1] <= sl;
            __asm__("" : "+r"(s));
            while (__builtin_expect(c[s + 1] <= sl, 0)) s++;
            const uint32_t start = c[s];
            xs[j] = (c[s + 1] - start) * (xs[j] >> p) + sl - start;
            sym[j] = s;
        }
        for (int j = 0; j < m; j++) {
            uint32_t x = xs[j];
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
            const wai_rans_table *e = entry[j];
            const uint32_t s = sym[j], esc = e->meta >> 16;
            if (__builtin_expect(s == esc, 0)) {
                int64_t a = at;
                if (!wai_rans_escaped(&x, &a, end, bytes, e->lowest, e->highest, &out[base + j])) return 1;
                at = (int32_t)a;
            } else {
                out[base + j] = e->offset + (int32_t)s - (s > esc);
            }
            xs[j] = x;
            ats[j] = at;
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
