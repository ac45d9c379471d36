/* inverse_gdn (§4.9). At every position n[c] = beta[c] + sum_k gamma[c][k] * sq[k] is a
 * 1x1 convolution of the squares, so it runs on the conv microkernels: a task squares a
 * strip of positions into the packed layout, multiplies by the packed gamma, then takes the
 * exact integer square root and finishes rnd(x * isqrt(n), s) in the epilogue. When every
 * square (x*x >> q, bounded through the input's certified interval) and every gamma fits
 * int16, the squares are packed as int16 pairs (vpdpwssd / vpmaddwd); otherwise as int32.
 * On the AMX path (at least 8 channels, int16 squares and gamma) the 1x1 convolution runs
 * on tiles (docs/cpu-kernels.md §2.6): the squares are packed four channels per word as
 * bytes, split into high and low bytes unless the interval proves every square <= 127, and
 * gamma likewise unless every gamma <= 127. */
#include "kernels_internal.h"

#include <stdlib.h>
#include <string.h>

/* Positions per task. Long enough that each of the c channel rows a task reads is a run
 * of consecutive cache lines the prefetcher follows (the rows of one strip lie H*W*2
 * bytes apart, usually a multiple of 4 KiB: with short runs they fight over the same L1
 * sets and each is a fresh miss); the squares of a strip stay in L2. The vector path calls
 * the microkernel on 6 blocks of 16 at a time. */
#define STRIP (CPUK_BLK * 24)
#define MK_BLOCKS 6

struct cpuk_igdn {
    cpuk_isa isa;
    int mode;
    int c, ncp, nob, q, s, in_bits, out_bits;
    size_t hw;
    int32_t *w;                /* [ob][cp][oc in block] */
    int32_t *beta;             /* padded to nob*4 */
    int post_kind;
    cpuk_post_ch *post;
    int32_t *scratch;          /* per thread: squares [ncp][STRIP], then n [4][STRIP] */
    size_t scratch_words;
    int nthreads;
    const void *run_in;
    void *run_out;
    /* AMX: amx_kind >= 0. */
    int amx_kind, sq_split, g_split, nq, nkc, nob16;
    int8_t *amx_wa, *amx_wb;   /* gamma tiles [ob16][kc][16][64] */
    int32_t *amx_bias;         /* beta tiles [ob16][16][16] */
    int32_t *amx_scratch;      /* per thread: squares hi/lo [nq][STRIP] each, n [32][STRIP], 512 */
    size_t amx_scratch_words;
    int n_small;               /* every n <= 32766^2 (cpuk_epi_igdn.n_small) */
};

void cpuk_igdn_destroy(cpuk_igdn *g) {
    if (!g) return;
    cpuk_free(g->w);
    cpuk_free(g->beta);
    free(g->post);
    cpuk_free(g->scratch);
    cpuk_free(g->amx_wa);
    cpuk_free(g->amx_wb);
    cpuk_free(g->amx_bias);
    cpuk_free(g->amx_scratch);
    free(g);
}

/* Packs gamma into tiles (rows: output channels; K: input channels) and beta into bias
 * tiles. Every square lies in [0, sqhi] and every gamma in [0, 32767] here. */
static int amx_setup(cpuk_igdn *g, const cpuk_igdn_desc *d, int64_t sqhi, int nthreads) {
    int g8 = 1;
    for (size_t i = 0; i < (size_t)d->c * d->c; i++) if (d->gamma[i] > 127) g8 = 0;
    g->sq_split = sqhi > 127;
    g->g_split = !g8;
    g->nq = ((d->c + 3) / 4 + 15) / 16 * 16;
    g->nkc = g->nq / 16;
    g->nob16 = (d->c + 15) / 16;
    const size_t bytes = (size_t)g->nob16 * g->nkc * 1024;
    g->amx_wa = cpuk_alloc(bytes);
    g->amx_wb = g->g_split ? cpuk_alloc(bytes) : NULL;
    g->amx_bias = cpuk_alloc((size_t)g->nob16 * 256 * sizeof(int32_t));
    g->amx_scratch_words = (size_t)2 * g->nq * STRIP + (size_t)32 * STRIP + 512;
    g->amx_scratch = cpuk_alloc(g->amx_scratch_words * (size_t)(nthreads < 1 ? 1 : nthreads) * sizeof(int32_t));
    if (!g->amx_wa || (g->g_split && !g->amx_wb) || !g->amx_bias || !g->amx_scratch) return -1;
    for (int ob = 0; ob < g->nob16; ob++)
        for (int kc = 0; kc < g->nkc; kc++)
            for (int r = 0; r < 16; r++)
                for (int k = 0; k < 64; k++) {
                    const int o = ob * 16 + r, ch = (kc * 16 + k / 4) * 4 + k % 4;
                    const int32_t v = o < d->c && ch < d->c ? d->gamma[(size_t)o * d->c + ch] : 0;
                    const size_t at = ((size_t)ob * g->nkc + kc) * 1024 + (size_t)r * 64 + (size_t)k;
                    if (g->g_split) { g->amx_wa[at] = (int8_t)(v >> 8); g->amx_wb[at] = (int8_t)(uint8_t)(v & 255); }
                    else g->amx_wa[at] = (int8_t)v;
                }
    for (int o = 0; o < g->nob16 * 16; o++)
        for (int n = 0; n < 16; n++) g->amx_bias[(size_t)o * 16 + n] = o < d->c ? d->beta[o] : 0;
    g->amx_kind = cpuk_amx_kind(g->sq_split, g->g_split);
    return 0;
}

cpuk_igdn *cpuk_igdn_create(const cpuk_igdn_desc *d, cpuk_isa isa, int nthreads, char *err, size_t cap) {
    cpuk_igdn *g = calloc(1, sizeof *g);
    if (!g) { cpuk_set_err(err, cap, "out of memory for an inverse_gdn"); return NULL; }
    int64_t amax = d->in_lo < 0 ? -(int64_t)d->in_lo : d->in_lo;
    int64_t bmax = d->in_hi < 0 ? -(int64_t)d->in_hi : d->in_hi;
    int64_t m = amax > bmax ? amax : bmax;
    int64_t sqhi = (m * m) >> d->square_shift;
    int gamma16 = 1;
    for (size_t i = 0; i < (size_t)d->c * d->c; i++) if (d->gamma[i] > INT16_MAX) gamma16 = 0;
    /* The largest n over the channels, as the certificate's inverse_gdn rule bounds it
     * (docs/integer-ops.md §5): beta + sum of gamma times the largest square. */
    int64_t nhi = 0;
    for (int o = 0; o < d->c; o++) {
        int64_t v = d->beta[o] < 0 ? INT64_MAX / 2 : d->beta[o];
        for (int k = 0; k < d->c && v <= INT32_MAX; k++) {
            const int32_t gm = d->gamma[(size_t)o * d->c + k];
            v += gm < 0 ? INT64_MAX / 2 : (int64_t)gm * sqhi;
        }
        if (v > nhi) nhi = v;
    }
    g->n_small = nhi <= (int64_t)32766 * 32766;
    g->isa = cpuk_vector_isa(isa);
    g->amx_kind = -1;
    g->mode = (sqhi <= INT16_MAX && gamma16) ? CPUK_MODE_PAIR16 : CPUK_MODE_I32;
    g->c = d->c;
    g->ncp = g->mode == CPUK_MODE_PAIR16 ? (d->c + 1) / 2 : d->c;
    g->nob = (d->c + CPUK_OCB - 1) / CPUK_OCB;
    g->q = d->square_shift;
    g->s = d->out_shift;
    g->in_bits = d->in_bits;
    g->out_bits = d->out_bits;
    g->hw = (size_t)d->h * d->w;
    g->nthreads = nthreads < 1 ? 1 : nthreads;
    g->w = cpuk_alloc((size_t)g->nob * CPUK_OCB * g->ncp * sizeof(int32_t));
    g->beta = cpuk_alloc((size_t)g->nob * CPUK_OCB * sizeof(int32_t));
    g->post = calloc((size_t)d->c, sizeof(cpuk_post_ch));
    g->scratch_words = (size_t)(g->ncp + CPUK_OCB) * STRIP;
    g->scratch = cpuk_alloc(g->scratch_words * g->nthreads * sizeof(int32_t));
    if (!g->w || !g->beta || !g->post || !g->scratch) {
        cpuk_set_err(err, cap, "out of memory for an inverse_gdn over %d channels", d->c);
        cpuk_igdn_destroy(g);
        return NULL;
    }
    memcpy(g->beta, d->beta, (size_t)d->c * sizeof(int32_t));
    g->post_kind = d->post.kind;
    cpuk_post_expand(&d->post, d->c, g->post);
    int32_t *w = g->w;
    for (int ob = 0; ob < g->nob; ob++) {
        int ocb = d->c - ob * CPUK_OCB < CPUK_OCB ? d->c - ob * CPUK_OCB : CPUK_OCB;
        for (int cp = 0; cp < g->ncp; cp++)
            for (int oi = 0; oi < ocb; oi++) {
                const int32_t *row = d->gamma + (size_t)(ob * CPUK_OCB + oi) * d->c;
                if (g->mode == CPUK_MODE_PAIR16)
                    *w++ = cpuk_pair(row[2 * cp], 2 * cp + 1 < d->c ? row[2 * cp + 1] : 0);
                else
                    *w++ = row[cp];
            }
    }
    if (isa == CPUK_ISA_AMX && g->mode == CPUK_MODE_PAIR16 && d->in_bits == 16 && d->c >= 8 && d->c <= CPUK_AMX_MAX_K &&
        amx_setup(g, d, sqhi, nthreads) != 0) {
        cpuk_set_err(err, cap, "out of memory for an inverse_gdn over %d channels on tiles", d->c);
        cpuk_igdn_destroy(g);
        return NULL;
    }
    return g;
}

/* x*x fits int32 (|x| <= 46340 by the certificate) and is non-negative: a plain shift. */
static inline int32_t square(int32_t x, int q) { return (int32_t)((uint32_t)(x * x) >> q); }

/* Squares of two int16 channel rows, paired; compiled per ISA so it vectorises. */
CPUK_INLINE void square_pairs(int32_t *dst, const int16_t *r0, const int16_t *r1, int len, int q) {
    for (int n = 0; n < len; n++)
        dst[n] = cpuk_pair(square(r0[n], q), square(r1[n], q));
}
static void square_pairs_generic(int32_t *d, const int16_t *a, const int16_t *b, int len, int q) { square_pairs(d, a, b, len, q); }
#if CPUK_X86
__attribute__((target("avx2")))
static void square_pairs_avx2(int32_t *d, const int16_t *a, const int16_t *b, int len, int q) { square_pairs(d, a, b, len, q); }
CPUK_TARGET_512("avx512f,avx512bw")
static void square_pairs_avx512(int32_t *d, const int16_t *a, const int16_t *b, int len, int q) { square_pairs(d, a, b, len, q); }
#endif

static void square_pairs_isa(cpuk_isa isa, int32_t *d, const int16_t *a, const int16_t *b, int len, int q) {
#if CPUK_X86
    if (isa == CPUK_ISA_AVX512) { square_pairs_avx512(d, a, b, len, q); return; }
    if (isa == CPUK_ISA_AVX2) { square_pairs_avx2(d, a, b, len, q); return; }
#endif
    (void)isa;
    square_pairs_generic(d, a, b, len, q);
}

static void vec_products(const cpuk_igdn *g, int tid, size_t p0, int len, const void *in, size_t xs,
                         const int32_t *sq, size_t sq_stride);

/* Positions p0 .. p0+len-1 (len <= STRIP) on the vector path. */
/* in: channel 0 of the input at position p0 (in_bits wide), channel ch xs values further. */
static void vec_span(const cpuk_igdn *g, int tid, size_t p0, int len, const void *in, size_t xs) {
    int32_t *sq = g->scratch + (size_t)tid * g->scratch_words;
    for (int cp = 0; cp < g->ncp; cp++) {
        int32_t *dst = sq + (size_t)cp * STRIP;
        if (g->mode == CPUK_MODE_PAIR16) {
            const int c0 = 2 * cp, c1 = 2 * cp + 1;
            const size_t o0 = (size_t)c0 * xs, o1 = (size_t)c1 * xs;
            if (c1 < g->c && g->in_bits == 16)
                square_pairs_isa(g->isa, dst, (const int16_t *)in + o0, (const int16_t *)in + o1, len, g->q);
            else if (c1 < g->c)
                for (int n = 0; n < len; n++)
                    dst[n] = cpuk_pair(square(cpuk_load(in, g->in_bits, o0 + n), g->q),
                                       square(cpuk_load(in, g->in_bits, o1 + n), g->q));
            else
                for (int n = 0; n < len; n++) dst[n] = cpuk_pair(square(cpuk_load(in, g->in_bits, o0 + n), g->q), 0);
        } else {
            const size_t o0 = (size_t)cp * xs;
            for (int n = 0; n < len; n++) dst[n] = square(cpuk_load(in, g->in_bits, o0 + n), g->q);
        }
        for (int n = len; n < STRIP; n++) dst[n] = 0;
    }
    vec_products(g, tid, p0, len, in, xs, sq, STRIP);
}

/* The 1x1 convolution of the packed squares (channel pair cp's at sq + cp * sq_stride) and
 * the epilogue, positions p0 .. p0+len-1 (len <= STRIP). */
static void vec_products(const cpuk_igdn *g, int tid, size_t p0, int len, const void *in, size_t xs,
                         const int32_t *sq, size_t sq_stride) {
    int32_t *nbuf = g->scratch + (size_t)tid * g->scratch_words + (size_t)g->ncp * STRIP;
    static const ptrdiff_t zero_off[1] = { 0 };
    const int nb = (len + CPUK_BLK - 1) / CPUK_BLK;
    for (int ob = 0; ob < g->nob; ob++) {
        const int ocb = g->c - ob * CPUK_OCB < CPUK_OCB ? g->c - ob * CPUK_OCB : CPUK_OCB;
        cpuk_mk_args a;
        a.x = sq;
        a.tap_off = zero_off;
        a.ntaps = 1;
        a.ncp = g->ncp;
        a.cp_stride = (ptrdiff_t)sq_stride;
        a.w = g->w + (size_t)ob * CPUK_OCB * g->ncp;
        a.bias = g->beta + ob * CPUK_OCB;
        a.ldo = STRIP;
        a.accumulate = 0;
        for (int k = 0; k < nb; k += MK_BLOCKS) {
            a.x = sq + k * CPUK_BLK;
            a.out = nbuf + k * CPUK_BLK;
            cpuk_mk(g->isa, g->mode, ocb, nb - k < MK_BLOCKS ? nb - k : MK_BLOCKS, &a);
        }
        for (int oi = 0; oi < ocb; oi++) {
            const int o = ob * CPUK_OCB + oi;
            const size_t at = (size_t)o * g->hw + p0, xat = (size_t)o * xs;
            cpuk_epi_igdn e;
            e.n = nbuf + (size_t)oi * STRIP;
            e.x = g->in_bits == 16 ? (const void *)((const int16_t *)in + xat) : (const void *)((const int32_t *)in + xat);
            e.x_bits = g->in_bits;
            e.count = len;
            e.out_shift = g->s;
            e.kind = g->post_kind;
            e.post = g->post[o];
            e.out = g->out_bits == 16 ? (void *)((int16_t *)g->run_out + at) : (void *)((int32_t *)g->run_out + at);
            e.out_bits = g->out_bits;
            e.n_small = g->n_small;
            if (g->isa == CPUK_ISA_AVX512) cpuk_epi_igdn_avx512(&e);
            else if (g->isa == CPUK_ISA_AVX2) cpuk_epi_igdn_avx2(&e);
            else cpuk_epi_igdn_generic(&e);
        }
    }
}

/* Squares of four channel rows as bytes, four channels per word: whole (every square
 * <= 127) into hi, or high bytes into hi and low bytes into lo. Channels past c are the
 * zero row. */
CPUK_INLINE void square_quads(int32_t *restrict hi, int32_t *restrict lo, const int16_t *p0, const int16_t *p1,
                              const int16_t *p2, const int16_t *p3, int len, int q, int split) {
    for (int n = 0; n < len; n++) {
        const uint32_t s0 = (uint32_t)square(p0[n], q), s1 = (uint32_t)square(p1[n], q);
        const uint32_t s2 = (uint32_t)square(p2[n], q), s3 = (uint32_t)square(p3[n], q);
        if (split) {
            lo[n] = (int32_t)((s0 & 255) | (s1 & 255) << 8 | (s2 & 255) << 16 | (s3 & 255) << 24);
            hi[n] = (int32_t)((s0 >> 8) | (s1 >> 8) << 8 | (s2 >> 8) << 16 | (s3 >> 8) << 24);
        } else {
            hi[n] = (int32_t)(s0 | s1 << 8 | s2 << 16 | s3 << 24);
        }
    }
}
#if CPUK_X86
CPUK_TARGET_512("avx512f,avx512bw")
static void square_quads_avx512(int32_t *hi, int32_t *lo, const int16_t *p0, const int16_t *p1, const int16_t *p2,
                                const int16_t *p3, int len, int q, int split) {
    if (split) square_quads(hi, lo, p0, p1, p2, p3, len, q, 1); else square_quads(hi, lo, p0, p1, p2, p3, len, q, 0);
}
#else
static void square_quads_avx512(int32_t *hi, int32_t *lo, const int16_t *p0, const int16_t *p1, const int16_t *p2,
                                const int16_t *p3, int len, int q, int split) {
    square_quads(hi, lo, p0, p1, p2, p3, len, q, split);
}
#endif

/* Positions p0 .. p0+len-1 (len <= STRIP) on tiles; the caller has loaded the tile
 * configuration (conv_amx.c's, which is the same). */
/* x: channel 0 of the input at position p0, channel ch xs values further. */
static void amx_span(const cpuk_igdn *g, int tid, size_t p0, int len, const int16_t *x, size_t xs) {
    int32_t *hi = g->amx_scratch + (size_t)tid * g->amx_scratch_words;
    int32_t *lo = hi + (size_t)g->nq * STRIP;
    int32_t *nbuf = lo + (size_t)g->nq * STRIP;
    int32_t *tiles = nbuf + (size_t)32 * STRIP;
    static const int16_t zeros[STRIP];
    const int nq_real = (g->c + 3) / 4;
    for (int qd = 0; qd < nq_real; qd++) {
        const int16_t *p[4];
        for (int k = 0; k < 4; k++) {
            const int ch = 4 * qd + k;
            p[k] = ch < g->c ? x + (size_t)ch * xs : zeros;
        }
        int32_t *h = hi + (size_t)qd * STRIP, *l = lo + (size_t)qd * STRIP;
        square_quads_avx512(h, l, p[0], p[1], p[2], p[3], len, g->q, g->sq_split);
        for (int n = len; n < STRIP; n++) { h[n] = 0; l[n] = 0; }
    }
    /* Quads past the channels stay zero: written once here, never again. */
    static const ptrdiff_t zero_off[1] = { 0 };
    for (int ob = 0; ob < g->nob16; ob += 2) {
        const int no = g->nob16 - ob < 2 ? g->nob16 - ob : 2;
        cpuk_amx_gemm m;
        m.kind = g->amx_kind;
        m.w_ob = (size_t)g->nkc * 1024;
        m.wa = g->amx_wa + (size_t)ob * m.w_ob;
        m.wb = g->g_split ? g->amx_wb + (size_t)ob * m.w_ob : NULL;
        m.nob = no;
        m.xa = hi;
        m.xb = g->sq_split ? lo : NULL;
        m.off = zero_off;
        m.ntaps = 1;
        m.nkc = g->nkc;
        m.kc_words = (size_t)16 * STRIP;
        m.xstride = STRIP * sizeof(int32_t);
        m.blocks = (len + CPUK_BLK - 1) / CPUK_BLK;
        m.bias_tile = g->amx_bias + (size_t)ob * 256;
        m.out = nbuf;
        m.ldo = STRIP;
        m.scratch = tiles;
        m.kc_step = 0;
        cpuk_amx_gemm_run(&m);
        const int oc_end = (ob + no) * 16 < g->c ? (ob + no) * 16 : g->c;
        for (int o = ob * 16; o < oc_end; o++) {
            const size_t at = (size_t)o * g->hw + p0;
            cpuk_epi_igdn e;
            e.n = nbuf + (size_t)(o - ob * 16) * STRIP;
            e.x = x + (size_t)o * xs;
            e.x_bits = 16;
            e.count = len;
            e.out_shift = g->s;
            e.kind = g->post_kind;
            e.post = g->post[o];
            e.out = g->out_bits == 16 ? (void *)((int16_t *)g->run_out + at) : (void *)((int32_t *)g->run_out + at);
            e.out_bits = g->out_bits;
            e.n_small = g->n_small;
            cpuk_epi_igdn_avx512(&e);
        }
    }
}

static const void *in_at(const cpuk_igdn *g, size_t p) {
    return g->in_bits == 16 ? (const void *)((const int16_t *)g->run_in + p) : (const void *)((const int32_t *)g->run_in + p);
}

static void span(const cpuk_igdn *g, int tid, size_t p0, int len) {
    /* the AMX path is chosen for int16 inputs only */
    if (g->amx_kind >= 0) amx_span(g, tid, p0, len, (const int16_t *)g->run_in + p0, g->hw);
    else vec_span(g, tid, p0, len, in_at(g, p0), g->hw);
}

static void strip_task(void *ctx, int tid, size_t task) {
    const cpuk_igdn *g = ctx;
    const size_t p0 = task * STRIP;
    const int len = g->hw - p0 < STRIP ? (int)(g->hw - p0) : STRIP;
    if (g->amx_kind >= 0) {
        cpuk_amx_tiles_on();
        amx_span(g, tid, p0, len, (const int16_t *)g->run_in + p0, g->hw);
        cpuk_amx_tiles_off();
    } else {
        vec_span(g, tid, p0, len, in_at(g, p0), g->hw);
    }
}

int cpuk_igdn_uses_tiles(const cpuk_igdn *g) { return g->amx_kind >= 0; }

int cpuk_igdn_fits(const cpuk_igdn *g, int c, size_t hw, int in_bits, int nthreads) {
    return g->c == c && g->hw == hw && g->in_bits == in_bits && g->nthreads == nthreads;
}

void cpuk_igdn_bind(cpuk_igdn *g, const void *in, void *out) {
    g->run_in = in;
    g->run_out = out;
}

void cpuk_igdn_positions(const cpuk_igdn *g, int tid, size_t p0, size_t count) {
    for (size_t p = p0; p < p0 + count; p += STRIP) {
        const size_t left = p0 + count - p;
        span(g, tid, p, left < STRIP ? (int)left : STRIP);
    }
}

void cpuk_igdn_positions_rows(const cpuk_igdn *g, int tid, size_t p0, size_t count, const int16_t *rows,
                              size_t stride) {
    for (size_t p = p0; p < p0 + count; p += STRIP) {
        const size_t left = p0 + count - p;
        const int len = left < STRIP ? (int)left : STRIP;
        if (g->amx_kind >= 0) amx_span(g, tid, p, len, rows + (p - p0), stride);
        else vec_span(g, tid, p, len, rows + (p - p0), stride);
    }
}

int cpuk_igdn_pair_squares(const cpuk_igdn *g) {
    return g->amx_kind < 0 && g->isa == CPUK_ISA_AVX512 && g->mode == CPUK_MODE_PAIR16 && g->in_bits == 16 ? g->q : -1;
}

void cpuk_igdn_positions_sq(const cpuk_igdn *g, int tid, size_t p0, size_t count, const int16_t *rows,
                            size_t stride, const int32_t *sq, size_t sq_stride) {
    for (size_t p = p0; p < p0 + count; p += STRIP) {
        const size_t left = p0 + count - p;
        vec_products(g, tid, p, left < STRIP ? (int)left : STRIP, rows + (p - p0), stride, sq + (p - p0), sq_stride);
    }
}

const char *cpuk_igdn_kernel_name(const cpuk_igdn *g) {
    if (g->amx_kind >= 0) return cpuk_amx_kind_name(g->amx_kind);
    return g->isa == CPUK_ISA_AVX512 ? "vnni" : g->isa == CPUK_ISA_AVX2 ? "avx2" : "scalar";
}

void cpuk_igdn_run(cpuk_igdn *g, cpuk_pool *pool, const void *in, void *out) {
    g->run_in = in;
    g->run_out = out;
    cpuk_pool_run(pool, (g->hw + STRIP - 1) / STRIP, strip_task, g);
    g->run_in = NULL;
    g->run_out = NULL;
}
