/* Internal interfaces between the kernel driver files and the per-ISA inner loops. */
#ifndef WAI_CPU_KERNELS_INTERNAL_H
#define WAI_CPU_KERNELS_INTERNAL_H

#include "cpu_kernels.h"
#include <stddef.h>
#include <stdint.h>

#if defined(__x86_64__) || defined(__i386__)
#define CPUK_X86 1
#else
#define CPUK_X86 0
#endif

#define CPUK_INLINE static inline __attribute__((always_inline))

/* The target attribute of a function on the AVX-512 or AMX path. Tests/EmulatedCPUBackend
 * builds these sources again with CPUK_EMULATED, those paths' intrinsics coming from
 * portable C (Tests/Emulation/x86_emulation.h): the attribute is then dropped, so that the
 * compiler emits no AVX-512 or AMX instruction and the paths' logic runs, as a check, on
 * any x86-64. */
#if defined(CPUK_EMULATED)
#define CPUK_TARGET_512(features)
#else
#define CPUK_TARGET_512(features) __attribute__((target(features)))
#endif

/* Hides a vector from the optimiser, so a peak loop's operand is not a constant. */
#if defined(CPUK_EMULATED)
#define CPUK_OPAQUE_512(v) __asm__ volatile("" : : "r"(&(v)) : "memory")
#else
#define CPUK_OPAQUE_512(v) __asm__ volatile("" : "+v"(v))
#endif

/* floor(x / 2^s), 0 <= s <= 31 (docs/integer-ops.md §3). C leaves >> of a negative signed
 * value implementation-defined, so the negative case goes through the complement, which is
 * non-negative: ~x = -x-1, and ~((-x-1) >> s) = floor(x / 2^s). Compilers emit one sar. */
CPUK_INLINE int32_t cpuk_asr(int32_t x, int s) {
    return x < 0 ? (int32_t)~((uint32_t)~x >> s) : (int32_t)((uint32_t)x >> s);
}

/* The rounding constant 2^(s-1) of rnd(x, s), 0 for s = 0, so rnd(x, s) = asr(x + r, s). */
CPUK_INLINE int32_t cpuk_rnd_const(int s) { return s == 0 ? 0 : (int32_t)(1u << (s - 1)); }

CPUK_INLINE int32_t cpuk_clamp32(int32_t v, int32_t lo, int32_t hi) {
    return v < lo ? lo : (v > hi ? hi : v);
}

/* Sign-extended halves of an int16 pair packed into one 32-bit word (low = even channel). */
CPUK_INLINE int32_t cpuk_lo16(uint32_t v) { return (int32_t)((v & 0xffffu) ^ 0x8000u) - 0x8000; }
CPUK_INLINE int32_t cpuk_hi16(uint32_t v) { return (int32_t)((v >> 16) ^ 0x8000u) - 0x8000; }
CPUK_INLINE int32_t cpuk_pair(int32_t lo, int32_t hi) {
    return (int32_t)(((uint32_t)lo & 0xffffu) | ((uint32_t)hi << 16));
}

/* isqrt(n) for 0 <= n <= 2^31-1: the double square root of such an n is within far less
 * than one unit of the truth, and the two corrections make the result exact regardless. */
CPUK_INLINE int32_t cpuk_isqrt(int32_t n) {
    uint32_t r = (uint32_t)__builtin_sqrt((double)n);
    while ((uint64_t)r * r > (uint64_t)(uint32_t)n) r--;
    while ((uint64_t)(r + 1) * (r + 1) <= (uint64_t)(uint32_t)n) r++;
    return (int32_t)r;
}

/* One output channel's fused epilogue, with the rounding constant precomputed. */
typedef struct cpuk_post_ch {
    int32_t m, r, lo, hi;
    int s;
} cpuk_post_ch;

/* Fills post_ch[0..channels) from a cpuk_post (NONE -> identity). */
void cpuk_post_expand(const cpuk_post *post, int channels, cpuk_post_ch *out);

CPUK_INLINE int32_t cpuk_post_apply(int kind, int32_t v, const cpuk_post_ch *p) {
    if (kind == CPUK_POST_REQUANTIZE) return cpuk_clamp32(cpuk_asr(v * p->m + p->r, p->s), p->lo, p->hi);
    if (kind == CPUK_POST_CLAMP) return cpuk_clamp32(v, p->lo, p->hi);
    return v;
}

CPUK_INLINE int32_t cpuk_load(const void *p, int bits, size_t i) {
    return bits == 16 ? (int32_t)((const int16_t *)p)[i] : ((const int32_t *)p)[i];
}
CPUK_INLINE void cpuk_store(void *p, int bits, size_t i, int32_t v) {
    if (bits == 16) ((int16_t *)p)[i] = (int16_t)v; else ((int32_t *)p)[i] = v;
}

/* ---- microkernel: OCB (1..4) output channels x NB (1..8) blocks of 16 outputs ----
 * Packed input words: pairs of int16 channels (mode PAIR16) or one int32 channel (I32).
 * out[oi*ldo + n] = bias[oi] + sum over cp < ncp, t < ntaps, of
 *   x[cp*cp_stride + tap_off[t] + n]  (*)  w[(cp*ntaps + t)*OCB + oi]
 * where (*) is the pair dot product lo*lo + hi*hi (PAIR16) or the product (I32); with
 * `accumulate`, out[] itself replaces the bias (the sum runs over channel chunks). */
enum { CPUK_MODE_PAIR16 = 0, CPUK_MODE_I32 = 1 };
#define CPUK_BLK 16
#define CPUK_MAX_NB 8
#define CPUK_OCB 4
/* Blocks per microkernel call for OCB output channels: accumulators OCB*NB plus NB inputs
 * and a weight fit the 32 vector registers of AVX-512. */
static const int cpuk_nb_for_ocb[CPUK_OCB + 1] = { 0, 8, 8, 7, 6 };

typedef struct cpuk_mk_args {
    const int32_t *x;
    const ptrdiff_t *tap_off;
    int ntaps, ncp;
    ptrdiff_t cp_stride;
    const int32_t *w;
    const int32_t *bias;
    int32_t *out;
    ptrdiff_t ldo;
    int accumulate;            /* 1: start from out[] (a later channel chunk), not the bias */
} cpuk_mk_args;

void cpuk_mk_scalar(int mode, int ocb, int nb, const cpuk_mk_args *a);

/* ---- x-phase pair microkernel (int16 pairs): OCB output channels x 2 x-phases x NB blocks.
 * Taps [0, n_both) feed both phases (weights per tap: phase 0's OCB, then phase 1's),
 * [n_both, n_both + n_first) phase 0 only, the next n_second phase 1 only (OCB each).
 * Phase p's sums go to out + p * phase_stride (rows ldo apart), as cpuk_mk_args's out. */
typedef struct cpuk_mkx_args {
    const int32_t *x;
    const ptrdiff_t *tap_off;
    int n_both, n_first, n_second, ncp;
    ptrdiff_t cp_stride;
    const int32_t *w;
    const int32_t *bias;
    int32_t *out;
    ptrdiff_t ldo, phase_stride;
    int accumulate;
} cpuk_mkx_args;
/* Blocks per call: 2 * OCB * NB accumulators, NB inputs and a weight in 32 registers. */
static const int cpuk_mkx_nb_for_ocb[CPUK_OCB + 1] = { 0, 8, 6, 4, 3 };
void cpuk_mkx_scalar(int ocb, int nb, const cpuk_mkx_args *a);
void cpuk_mkx_avx512(int ocb, int nb, const cpuk_mkx_args *a);
void cpuk_mkx_avx2(int ocb, int nb, const cpuk_mkx_args *a);
void cpuk_mk_avx2(int mode, int ocb, int nb, const cpuk_mk_args *a);
void cpuk_mk_avx512(int mode, int ocb, int nb, const cpuk_mk_args *a);

/* ---- conv row epilogue: gathers the x-phases of one output row of one channel ---- */
typedef struct cpuk_epi_row {
    int nph;                  /* x-phases with outputs */
    const int32_t *src[8];    /* per phase: values for n = 0..count-1 (padded to 16) */
    int base[8], count[8];    /* output column of phase value n: base + step*n */
    int step;
    int wo;
    int kind;                 /* cpuk_post_kind */
    cpuk_post_ch post;
    void *out;                /* the output row's first element */
    int out_bits;
    /* AVX-512 only; NULL or, in a fused run whose inverse GDN squares int16 pairs, the
     * output channel pair's squares row: column j's (v*v) >> sq_q goes into the low half of
     * word j (even channel) or its high half (odd, sq_hi), as cpuk_pair packs them. */
    int32_t *sq;
    int sq_hi, sq_q;
} cpuk_epi_row;

void cpuk_epi_conv_generic(const cpuk_epi_row *e);
void cpuk_epi_conv_avx2(const cpuk_epi_row *e);
void cpuk_epi_conv_avx512(const cpuk_epi_row *e);

/* ---- inverse GDN epilogue: y = post(rnd(x * isqrt(n), s)) over `count` positions ---- */
typedef struct cpuk_epi_igdn {
    const int32_t *n;
    const void *x; int x_bits;
    int count;
    int out_shift;
    int kind;
    cpuk_post_ch post;
    void *out; int out_bits;
    int n_small;              /* n <= 32766^2 is certified: isqrt(n) + 1 fits int16 */
} cpuk_epi_igdn;

void cpuk_epi_igdn_generic(const cpuk_epi_igdn *e);
void cpuk_epi_igdn_avx2(const cpuk_epi_igdn *e);
void cpuk_epi_igdn_avx512(const cpuk_epi_igdn *e);

/* ---- peak loops ---- */
uint64_t cpuk_peak_avx512(uint64_t iters);
uint64_t cpuk_peak_avx2(uint64_t iters);
uint64_t cpuk_peak_scalar(uint64_t iters);

/* ---- inverse GDN fused after a conv (conv.c runs it on each finished output row) ---- */
/* Sets the buffers of the next run (as cpuk_igdn_run does). */
void cpuk_igdn_bind(cpuk_igdn *g, const void *in, void *out);
/* Positions p0 .. p0+count-1 of the bound run on thread tid; on tiles only with the tile
 * configuration loaded. */
void cpuk_igdn_positions(const cpuk_igdn *g, int tid, size_t p0, size_t count);
/* The same on tiles, reading the input from `rows` (channel ch at rows + ch * stride)
 * instead of the bound input tensor: a fused conv's output row that never goes to memory. */
void cpuk_igdn_positions_rows(const cpuk_igdn *g, int tid, size_t p0, size_t count, const int16_t *rows,
                              size_t stride);
int cpuk_igdn_uses_tiles(const cpuk_igdn *g);
/* The square shift q where the inverse GDN runs on the AVX-512 vector path with int16
 * inputs and squares packed as int16 pairs (its conv can then write the squares,
 * cpuk_epi_row.sq); -1 otherwise. */
int cpuk_igdn_pair_squares(const cpuk_igdn *g);
/* As cpuk_igdn_positions_rows on that path, with the squares already packed: channel pair
 * cp's at sq + cp * sq_stride, position p0 + n at word n. */
void cpuk_igdn_positions_sq(const cpuk_igdn *g, int tid, size_t p0, size_t count, const int16_t *rows,
                            size_t stride, const int32_t *sq, size_t sq_stride);
int cpuk_igdn_fits(const cpuk_igdn *g, int c, size_t hw, int in_bits, int nthreads);

/* ---- warp (warp.c, warp_avx2.c, warp_avx512.c): one output row per pool task ---- */
typedef struct cpuk_warp_ctx {
    const void *vol; const void *flow; void *out;
    int vol_bits, flow_bits, out_bits;
    int c, s, h, w, f;
    int vector;          /* cpuk_warp_vector_fits: the SIMD rows may run */
} cpuk_warp_ctx;

/* Columns [0, n) of output row i in whole vectors (n a multiple of 8 or 16, at most w);
 * returns n. The scalar loop finishes the row. Only where cpuk_warp_vector_fits. */
int cpuk_warp_row_avx2(const cpuk_warp_ctx *k, int i);
int cpuk_warp_row_avx512(const cpuk_warp_ctx *k, int i);

/* The vector path a kernel without tiles runs on: AMX CPUs run AVX-512 VNNI. */
CPUK_INLINE cpuk_isa cpuk_vector_isa(cpuk_isa isa) { return isa == CPUK_ISA_AMX ? CPUK_ISA_AVX512 : isa; }

/* ---- AMX tile products (conv_amx.c; docs/cpu-kernels.md §2) ----
 * out[16*ob + r][16*k + n] = bias_tile[ob][r][n] + sum over taps t and K chunks kc of the
 * byte products of the kind (cpuk_amx_kind), combined exactly; weights wa (and wb, the low
 * bytes when split) packed [ob][tap][kc][16 rows][64 bytes], activations xa (and xb) packed
 * four int8 channels per word, quad rows xstride bytes apart, chunk kc at kc*kc_words,
 * tap t at off[t] words. Only with the tile configuration loaded (cpuk_amx_tiles_on). */
#define CPUK_AMX_MAX_K (INT32_MAX / (2 * 128 * 255))
typedef struct cpuk_amx_gemm {
    int kind;
    const int8_t *wa, *wb;
    size_t w_ob;               /* bytes between channel blocks */
    int nob;                   /* channel blocks */
    const int32_t *xa, *xb;
    const ptrdiff_t *off;
    int ntaps, nkc;
    size_t kc_words, xstride;
    int blocks;                /* column blocks of 16 */
    const int32_t *bias_tile;  /* [ob][16][16] */
    int32_t *out;
    size_t ldo;                /* words */
    int32_t *scratch;          /* 512 words */
    int kc_step;               /* K chunks per kernel call (0: all); see cpuk_amx_gemm_run */
} cpuk_amx_gemm;
void cpuk_amx_gemm_run(const cpuk_amx_gemm *g);
int cpuk_amx_kind(int split_x, int split_w);
const char *cpuk_amx_kind_name(int kind);
void cpuk_amx_tiles_on(void);
void cpuk_amx_tiles_off(void);

/* TDPBSSD on four accumulator tiles, `iters` rounds; returns int8 multiply-accumulates. */
uint64_t cpuk_peak_amx(uint64_t iters);

CPUK_INLINE void cpuk_mk(cpuk_isa isa, int mode, int ocb, int nb, const cpuk_mk_args *a) {
    if (isa == CPUK_ISA_AVX512) cpuk_mk_avx512(mode, ocb, nb, a);
    else if (isa == CPUK_ISA_AVX2) cpuk_mk_avx2(mode, ocb, nb, a);
    else cpuk_mk_scalar(mode, ocb, nb, a);
}

void cpuk_set_err(char *err, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
