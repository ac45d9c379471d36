/*
 * entropy_kernels.h — the lane-stream decoder's C loops (docs/entropy-coding.md §8.4): an
 * AVX-512 one, 16 lanes of a lane stream decoded side by side, one vector element per lane;
 * a portable one, up to 32 lanes in phases, reading direct buckets; and an AVX2 one, the
 * portable loop's direct buckets 8 lanes a vector. Host code, never a plugin's. The Swift
 * decoder (RansLaneDecoder) stays the definition: the loops decode what it decodes, and do
 * rarer steps (an escape, a lane's last bytes) lane by lane in scalar code that follows its
 * slow paths; anything they do not accept (a table index out of range, a truncated lane, a
 * bad bypass, trailing bytes, a final state other than L) makes them return nonzero, and
 * the caller decodes those lanes again with the Swift decoder, which names the error. So
 * they never decide an error, and where they return 0 their values are the Swift decoder's.
 */
#ifndef WAI_ENTROPY_KERNELS_H
#define WAI_ENTROPY_KERNELS_H

#include <stddef.h>
#include <stdint.h>

/* One table as the loop reads it: 8 32-bit words, so a field of table t is word 8t + k of
 * the array and one gather (index t << 3) fetches it for 16 lanes. */
typedef struct wai_rans_table {
    uint32_t meta;                 /* precision | lookup shift << 5 | direct shift << 10 | escape symbol << 16 */
    int32_t cdf_base;              /* where its cdf starts in `cdf` */
    int32_t lookup_base;           /* where its buckets start in `lookup` */
    int32_t offset;                /* the value of the first direct symbol */
    int64_t lowest;                /* lowest and highest direct values (escapes lie outside) */
    int64_t highest;
} wai_rans_table;

/* One lane's bytes: its first byte (the flushed state) and one past its last. */
typedef struct wai_rans_lane_range {
    int64_t begin;
    int64_t end;
} wai_rans_lane_range;

typedef struct wai_rans_lane_job {
    const uint8_t *bytes;          /* the whole lane stream */
    const uint32_t *cdf;           /* every table's K+1 cumulative frequencies, back to back */
    const uint16_t *lookup;        /* every table's buckets, plus one padding entry at the end */
    const wai_rans_table *tables;
    const int32_t *selection;      /* the table of every value, checked as it is read */
    int32_t *out;                  /* every value */
    int64_t count;                 /* values in the stream */
    int32_t lane_count;            /* L */
    int32_t table_count;           /* entries of `tables`: a selection outside gives the group up */
    const wai_rans_lane_range *lanes;
    /* Every table's 2^WAI_RANS_DIRECT_BITS direct buckets, table t's from t << WAI_RANS_DIRECT_BITS
     * (the portable loop's; NULL when the tables are too many to hold them, and then that loop
     * gives every group up). Bucket b of a table with direct shift d holds its slots
     * b << d … (b + 1) << d − 1. Where those lie in one direct symbol s: s's value (bits 0–31),
     * cdf[s] (bits 32–47) and its frequency (bits 48–63, never 0). Otherwise (an escape, or
     * a bucket across symbols): the symbol holding the bucket's first slot, and frequency 0. */
    const uint64_t *direct;
    int32_t precision;             /* the precision every table has, 0 when they differ */
} wai_rans_lane_job;

/* Direct buckets per table: 2^min(precision, WAI_RANS_DIRECT_BITS) used, the rest zero. */
enum { WAI_RANS_DIRECT_BITS = 10 };

/* Decodes lanes first … first + n − 1 (n ≤ 16) of the job, writing their values; 0 when
 * every one decoded and passed its final-state check, nonzero otherwise (see above). On 0,
 * extremes[0] and extremes[1] are the least and greatest value the lanes wrote (INT32_MAX
 * and INT32_MIN when they wrote none), so the caller's range check needs no pass of its
 * own. It needs AVX-512 F and BW; the host calls it only where RegionKernels chose AVX-512
 * (wai_region_best_isa() == WAI_REGION_ISA_AVX512: F, BW, VL and VNNI). */
int wai_rans_lanes_decode_avx512(const wai_rans_lane_job *job, int first, int n, int32_t extremes[2]);

/* The most lanes the portable loop takes at once: every lane of a stream (§8.3 caps them). */
enum { WAI_RANS_PORTABLE_LANES = 32 };

/* As wai_rans_lanes_decode_avx512, for n ≤ WAI_RANS_PORTABLE_LANES lanes, on any CPU. */
int wai_rans_lanes_decode_portable(const wai_rans_lane_job *job, int first, int n, int32_t extremes[2]);

/* As wai_rans_lanes_decode_portable, 8 lanes a vector for the state update; it needs AVX2
 * (the host calls it where wai_region_best_isa() is at least WAI_REGION_ISA_AVX2). Tables of
 * differing precisions (job->precision 0) go to the portable loop. */
int wai_rans_lanes_decode_avx2(const wai_rans_lane_job *job, int first, int n, int32_t extremes[2]);

#endif
