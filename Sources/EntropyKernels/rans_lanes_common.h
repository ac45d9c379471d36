/*
 * What the lane-stream loops (rans_lanes_avx512.c, rans_lanes_avx2.c, rans_lanes_portable.c)
 * share: the lanes' start and end checks and the scalar slow paths, each mirroring
 * RansLaneDecoder's Swift code (docs/entropy-coding.md §3, §4, §6) and refusing (returning 0)
 * wherever that code throws, so that no loop ever decides an error.
 */
#ifndef WAI_RANS_LANES_COMMON_H
#define WAI_RANS_LANES_COMMON_H

#include "entropy_kernels.h"

enum { WAI_RANS_LOWER = 1u << 23, WAI_RANS_NIBBLE_MAX = 9 };

/* The gathers index a table's fields as words 8t + k (entropy_kernels.h). */
_Static_assert(sizeof(wai_rans_table) == 8 * sizeof(int32_t), "wai_rans_table is 8 words");

/* Renormalises one lane's state from its bytes (§4), bounds-checked; 0 when it ran out. */
static inline int wai_rans_renorm(uint32_t *x, int64_t *at, int64_t end, const uint8_t *bytes) {
    while (*x < WAI_RANS_LOWER) {
        if (*at >= end) return 0;
        *x = (*x << 8) | bytes[(*at)++];
    }
    return 1;
}

/* One bypass nibble (§3: frequency 1 of 16) and its renormalisation. After x >>= 4 from
 * x ≥ L, x ≥ 2^19, so one byte at most, taken under a mask: about half the nibbles need one,
 * so a branch on it would follow the coded data. 0 when the lane has run out. */
static inline int wai_rans_nibble(uint32_t *x, int64_t *at, int64_t end, const uint8_t *bytes, uint32_t *g) {
    *g = *x & 0xF;
    const uint32_t y = *x >> 4, need = y < WAI_RANS_LOWER, m = 0u - need;
    if (*at + need > end) return 0;
    /* A lane has at least 4 bytes, so end − 1 is one of them. */
    const uint32_t b = bytes[*at < end ? *at : end - 1];
    *x = (y & ~m) | (((y << 8) | b) & m);
    *at += need;
    return 1;
}

/* The bypass nibbles after an escape (§3) for a table whose direct values are lo … hi;
 * 0 where the Swift decoder throws. Out of line: escapes are rare, and the hot loops keep
 * their registers. */
static __attribute__((noinline)) int wai_rans_escaped(uint32_t *x, int64_t *at, int64_t end, const uint8_t *bytes,
                                                      int64_t lo, int64_t hi, int32_t *value) {
    uint32_t g;
    if (!wai_rans_nibble(x, at, end, bytes, &g)) return 0;
    const uint32_t n = g;
    if (n > WAI_RANS_NIBBLE_MAX) return 0;
    uint64_t rank = 0;
    for (uint32_t k = 0; k < n; k++) {
        if (!wai_rans_nibble(x, at, end, bytes, &g)) return 0;
        if (k == 0 && g == 0) return 0;          /* non-minimal */
        rank = (rank << 4) | g;
    }
    const int64_t half = (int64_t)(rank >> 1);
    const int64_t v = (rank & 1) == 0 ? hi + 1 + half : lo - 1 - half;
    if (v < INT32_MIN || v > INT32_MAX) return 0;
    *value = (int32_t)v;
    return 1;
}

/* The direct-bucket loops' step where the bucket is not one direct symbol's
 * (entropy_kernels.h): the §4 search forward from the bucket's first symbol, the state
 * update, the checked renormalisation, and the escape's bypass or the value. 0 where the
 * Swift decoder throws. Out of line: rare (inline only so the AVX-512 loop, which has no
 * direct buckets, may leave it unused). */
static inline __attribute__((noinline)) int wai_rans_searched_step(const wai_rans_lane_job *job, int32_t table,
                                                                   uint32_t slot, uint32_t s, uint32_t *x,
                                                                   int32_t *at, int32_t end, int32_t *value) {
    const wai_rans_table *e = &job->tables[table];
    const uint32_t *c = job->cdf + e->cdf_base, p = e->meta & 31, esc = e->meta >> 16;
    while (c[s + 1] <= slot) s++;
    *x = (c[s + 1] - c[s]) * (*x >> p) + slot - c[s];
    int64_t a = *at;
    if (!wai_rans_renorm(x, &a, end, job->bytes)) return 0;
    if (s == esc) {
        if (!wai_rans_escaped(x, &a, end, job->bytes, e->lowest, e->highest, value)) return 0;
    } else {
        *value = e->offset + (int32_t)s - (s > esc);
    }
    *at = (int32_t)a;
    return 1;
}

/* Lanes first … first + n − 1: each one's flushed state (§6) read and checked, its next
 * byte and its end; 0 when a lane is too short or its state out of range, or its bytes lie
 * past the 32-bit offsets the loops keep (a stream that long takes the Swift decoder). */
static inline int wai_rans_lanes_begin(const wai_rans_lane_job *job, int first, int n, uint32_t *xs, int32_t *ats,
                                       int32_t *ends) {
    for (int j = 0; j < n; j++) {
        const int64_t b = job->lanes[first + j].begin, e = job->lanes[first + j].end;
        if (e > INT32_MAX - 8 || b < 0 || e - b < 4) return 0;
        const uint8_t *s = job->bytes + b;
        const uint32_t x = (uint32_t)s[0] | (uint32_t)s[1] << 8 | (uint32_t)s[2] << 16 | (uint32_t)s[3] << 24;
        if (x < WAI_RANS_LOWER || x >= (uint32_t)WAI_RANS_LOWER << 8) return 0;
        xs[j] = x; ats[j] = (int32_t)(b + 4); ends[j] = (int32_t)e;
    }
    return 1;
}

/* §6 at the end of every lane: all its bytes consumed, its state back at L. */
static inline int wai_rans_lanes_finished(int n, const uint32_t *xs, const int32_t *ats, const int32_t *ends) {
    for (int j = 0; j < n; j++)
        if (ats[j] != ends[j] || xs[j] != WAI_RANS_LOWER) return 0;
    return 1;
}

/* The rounds holding a value of lane `first` (§8.1), and of them the rounds in which all
 * n lanes first … first + n − 1 have one. */
static inline int64_t wai_rans_rounds(const wai_rans_lane_job *job, int first) {
    return job->count > first ? (job->count - first - 1) / job->lane_count + 1 : 0;
}
static inline int64_t wai_rans_full_rounds(const wai_rans_lane_job *job, int first, int n) {
    return job->count >= first + n ? (job->count - first - n) / job->lane_count + 1 : 0;
}

#endif
