/* conv2d / conv_transpose2d on AMX-INT8 tiles, exact for int16 operands
 * (docs/cpu-kernels.md, "AMX int16 convolutions", is the argument; this file follows it).
 *
 * The polyphase plan is conv.c's: every (y-phase, x-phase) is a stride-1 correlation over
 * a padded input plane. Here the output tile is C[16 output channels][16 output columns]
 * int32, A is a tile of packed weights [16 output channels][64 bytes of K] and B a tile of
 * packed input [16 channel quads][16 columns x 4 channel bytes], K running over (tap,
 * channel). The input is packed like conv.c's ring but with four int8 channels per 32-bit
 * word ("quads", the layout TDPB*D reads B in), so a tap is just a pointer offset and a B
 * tile is 16 quad rows read with the quad row stride. C's rows are output channels and its
 * columns output positions: it is stored straight into conv.c's row buffer layout
 * [x-phase][channel][column] and the shared epilogue interleaves and requantizes.
 *
 * An int16 factor v is split into bytes v = vh*256 + vl with vh = v >> 8 (signed) and
 * vl = v & 255 (unsigned); a factor the certificate (activations: the input's interval) or
 * the weights themselves prove to fit int8 is used whole. Per layer this gives one, two or
 * four tile products, each an exact int32 partial sum for K <= 32896, combined with
 * wrapping int32 arithmetic after the K loop. The whole file is compiled with per-function
 * target attributes: the plugin loads on any x86-64, and these functions run only after
 * cpuk_isa_supported(CPUK_ISA_AMX) (CPUID, XGETBV and the Linux permission) said yes. */
#include "conv_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if CPUK_X86
#include <immintrin.h>

#define AMX_T CPUK_TARGET_512("amx-tile,amx-int8,avx512f,avx512bw,avx512vl")
#define AMX_I static inline __attribute__((always_inline)) AMX_T
#define VEC_T CPUK_TARGET_512("avx512f,avx512bw,avx512vl")

/* Channel quads per K chunk: a tile row is 64 bytes. */
#define KQ 16
/* The largest K (taps x channels) for which every partial sum is exact in int32: a term of
 * a mixed-sign byte product is at most 128*255 = 32640 in magnitude, and the middle
 * accumulator of the four-pass kind holds two such terms per (tap, channel). */
#define AMX_MAX_K (INT32_MAX / (2 * 128 * 255))

/* Which factors are split into two bytes: input x (activations), weights w. */
enum amx_kind { AMX_X1W1 = 0, AMX_X2W1 = 1, AMX_X1W2 = 2, AMX_X2W2 = 3 };
_Static_assert(AMX_MAX_K == CPUK_AMX_MAX_K, "one K bound");
static const char *const amx_names[4] = { "amx 1x1", "amx 2x1", "amx 1x2", "amx 2x2" };
/* Output-channel blocks and column blocks per kernel call: 8 tiles hold the accumulators
 * plus one A tile per channel block and one B tile per column block and byte. */
static const int amx_max_no[4] = { 2, 2, 1, 1 };
static const int amx_max_np[4] = { 2, 1, 2, 1 };

/* K chunks per tile-kernel call in a conv (cpuk_amx_gemm_run): one chunk's weights stay in
 * L1 across the column blocks. Measured on int_hyper's 128 -> 3 layer (as 12 phase
 * channels): 8.5 -> 7.4 ms; neutral on the 128 -> 128 layers. */
#define AMX_KC_STEP 1

struct cpuk_amx {
    int kind, xsplit, wsplit;
    int nq, nkc, nob;          /* quads padded to KQ, K chunks, blocks of 16 output channels */
    size_t row_words;          /* one packed row of one plane: nq * wp words */
    size_t ring_words;         /* per thread, per byte plane: [plane][R][nq][wp] */
    int32_t *ring_a, *ring_b;  /* int8 input or its high bytes; low bytes (split input) */
    int8_t *wa[MAX_PH * MAX_PH], *wb[MAX_PH * MAX_PH]; /* per phase [ob][tap][kc][16][64] */
    int32_t *bias_tile;        /* [ob][16][16]: row r is bias[16*ob + r] */
    int32_t *rowbuf;           /* per thread [x-phase][32][ldo] */
    size_t rowbuf_words;
    int32_t *scratch;          /* per thread: two tiles */
    int16_t *fused_rows;       /* per thread [cout][wo]: a fused run's output row (int16 output) */
    int16_t *zero_row;         /* stands in for the channels past cin of the last quad */
};

typedef struct tile_config {
    uint8_t palette, start_row, reserved[14];
    uint16_t colsb[16];
    uint8_t rows[16];
} tile_config;

const char *cpuk_amx_name(const struct cpuk_amx *a) { return amx_names[a->kind]; }

void cpuk_amx_conv_free(struct cpuk_amx *a) {
    if (!a) return;
    for (int i = 0; i < MAX_PH * MAX_PH; i++) { cpuk_free(a->wa[i]); cpuk_free(a->wb[i]); }
    cpuk_free(a->ring_a);
    cpuk_free(a->ring_b);
    cpuk_free(a->bias_tile);
    cpuk_free(a->rowbuf);
    cpuk_free(a->scratch);
    cpuk_free(a->fused_rows);
    cpuk_free(a->zero_row);
    free(a);
}

static int16_t weight_at(const cpuk_conv_desc *d, int c, int o, int ky, int kx) {
    size_t i = d->transposed
        ? (((size_t)c * d->cout + o) * d->kh + ky) * d->kw + kx
        : (((size_t)o * d->cin + c) * d->kh + ky) * d->kw + kx;
    return d->weights[i];
}

int cpuk_amx_conv_init(cpuk_conv *c, const cpuk_conv_desc *d, char *err, size_t cap) {
    if (c->mode != CPUK_MODE_PAIR16 || d->cout < AMX_MIN_COUT) return 0;
    int maxtaps = 0;
    for (int i = 0; i < c->ay.nphases * c->ax.nphases; i++)
        if (c->ph[i].ntaps > maxtaps) maxtaps = c->ph[i].ntaps;
    if ((int64_t)maxtaps * d->cin > AMX_MAX_K) return 0;
    const int x8 = d->in_lo >= -128 && d->in_hi <= 127;
    int w8 = 1;
    const size_t nw = (size_t)d->cin * d->cout * d->kh * d->kw;
    for (size_t i = 0; i < nw && w8; i++) w8 = d->weights[i] >= -128 && d->weights[i] <= 127;

    struct cpuk_amx *a = calloc(1, sizeof *a);
    if (!a) { cpuk_set_err(err, cap, "out of memory for an AMX conv"); return -1; }
    a->xsplit = !x8;
    a->wsplit = !w8;
    a->kind = (a->xsplit ? AMX_X2W1 : AMX_X1W1) + (a->wsplit ? 2 : 0);
    a->nq = ((d->cin + 3) / 4 + KQ - 1) / KQ * KQ;
    a->nkc = a->nq / KQ;
    a->nob = (d->cout + 15) / 16;
    a->row_words = (size_t)a->nq * c->wp;
    const size_t nplanes = (size_t)c->ay.nplanes * c->ax.nplanes;
    a->ring_words = nplanes * c->ring_rows * a->row_words;
    a->ring_a = cpuk_alloc(a->ring_words * c->nthreads * sizeof(int32_t));
    a->ring_b = a->xsplit ? cpuk_alloc(a->ring_words * c->nthreads * sizeof(int32_t)) : NULL;
    a->bias_tile = cpuk_alloc((size_t)a->nob * 256 * sizeof(int32_t));
    a->rowbuf_words = (size_t)c->ax.nphases * 32 * c->ldo;
    a->rowbuf = cpuk_alloc(a->rowbuf_words * c->nthreads * sizeof(int32_t));
    a->scratch = cpuk_alloc((size_t)c->nthreads * 512 * sizeof(int32_t));
    a->zero_row = cpuk_alloc((size_t)d->w * sizeof(int16_t));
    if (d->out_bits == 16) a->fused_rows = cpuk_alloc((size_t)c->nthreads * d->cout * d->wo * sizeof(int16_t));
    int ok = a->ring_a && (!a->xsplit || a->ring_b) && a->bias_tile && a->rowbuf && a->scratch && a->zero_row &&
             (d->out_bits != 16 || a->fused_rows);
    for (int ph = 0; ok && ph < c->ay.nphases * c->ax.nphases; ph++) {
        const phase2 *P = &c->ph[ph];
        const axis_phase *Y = &c->ay.ph[ph / c->ax.nphases], *X = &c->ax.ph[ph % c->ax.nphases];
        const size_t bytes = (size_t)a->nob * (P->ntaps ? P->ntaps : 1) * a->nkc * 1024;
        a->wa[ph] = cpuk_alloc(bytes);
        a->wb[ph] = a->wsplit ? cpuk_alloc(bytes) : NULL;
        if (!a->wa[ph] || (a->wsplit && !a->wb[ph])) { ok = 0; break; }
        for (int ob = 0; ob < a->nob; ob++)
            for (int t = 0; t < P->ntaps; t++) {
                const int ky = Y->taps[t / X->ntaps].k, kx = X->taps[t % X->ntaps].k;
                for (int kc = 0; kc < a->nkc; kc++) {
                    const size_t at = (((size_t)ob * P->ntaps + t) * a->nkc + kc) * 1024;
                    for (int r = 0; r < 16; r++)
                        for (int k = 0; k < 64; k++) {
                            const int o = ob * 16 + r, ch = (kc * KQ + k / 4) * 4 + k % 4;
                            const int32_t v = o < d->cout && ch < d->cin ? weight_at(d, ch, o, ky, kx) : 0;
                            if (a->wsplit) {
                                a->wa[ph][at + r * 64 + k] = (int8_t)cpuk_asr(v, 8);
                                a->wb[ph][at + r * 64 + k] = (int8_t)(uint8_t)(v & 255);
                            } else {
                                a->wa[ph][at + r * 64 + k] = (int8_t)v;
                            }
                        }
                }
            }
    }
    if (!ok) {
        cpuk_set_err(err, cap, "out of memory for an AMX conv (%d x %d x %d -> %d)", d->cin, d->h, d->w, d->cout);
        cpuk_amx_conv_free(a);
        return -1;
    }
    for (int o = 0; o < a->nob * 16; o++)
        for (int n = 0; n < 16; n++) a->bias_tile[(size_t)o * 16 + n] = o < d->cout ? d->bias[o] : 0;
    /* The vector path's packed rows are not needed any more. */
    cpuk_free(c->ring);
    c->ring = NULL;
    c->amx = a;
    return 0;
}

/* ---- packing: four int8 channels per word, [plane][row][quad][column] ---- */

/* Bytes of four int16 channel rows at unit stride: the int8 values themselves (x8), or
 * high bytes into `hi` and low bytes into `lo`. Compiled for AVX-512 so it vectorises. */
static VEC_T void quad_row(int32_t *restrict hi, int32_t *restrict lo, const int16_t *restrict p0,
                           const int16_t *restrict p1, const int16_t *restrict p2, const int16_t *restrict p3,
                           int len, int split) {
    if (split) {
        for (int j = 0; j < len; j++) {
            const uint32_t v0 = (uint16_t)p0[j], v1 = (uint16_t)p1[j], v2 = (uint16_t)p2[j], v3 = (uint16_t)p3[j];
            lo[j] = (int32_t)((v0 & 255) | (v1 & 255) << 8 | (v2 & 255) << 16 | (v3 & 255) << 24);
            hi[j] = (int32_t)((v0 >> 8) | (v1 >> 8) << 8 | (v2 >> 8) << 16 | (v3 >> 8) << 24);
        }
    } else {
        for (int j = 0; j < len; j++) {
            const uint32_t v0 = (uint16_t)p0[j], v1 = (uint16_t)p1[j], v2 = (uint16_t)p2[j], v3 = (uint16_t)p3[j];
            hi[j] = (int32_t)((v0 & 255) | (v1 & 255) << 8 | (v2 & 255) << 16 | (v3 & 255) << 24);
        }
    }
}

static void quad_row_strided(int32_t *hi, int32_t *lo, const int16_t *const p[4], int len, int xs, int split) {
    for (int j = 0; j < len; j++) {
        uint32_t h = 0, l = 0;
        for (int k = 0; k < 4; k++) {
            const uint32_t v = (uint16_t)p[k][(size_t)j * xs];
            l |= (v & 255) << (8 * k);
            h |= (v >> 8) << (8 * k);
        }
        if (split) { hi[j] = (int32_t)h; lo[j] = (int32_t)l; } else hi[j] = (int32_t)l;
    }
}

static void amx_pack_row(const cpuk_conv *c, int32_t *ring_a, int32_t *ring_b, int r) {
    const struct cpuk_amx *A = c->amx;
    const int npx = c->ax.nplanes;
    const size_t hw = (size_t)c->h * c->w;
    const int nq_real = (c->cin + 3) / 4;
    const int16_t *in = c->run_in;
    for (int ey = 0; ey < c->ay.nplanes; ey++) {
        const int b = r - c->ay.pad_lo;
        const int real = b >= 0 && b < c->ay.plane_len[ey];
        const int src_row = ey + c->ay.plane_step * b;
        for (int ex = 0; ex < npx; ex++) {
            const int len = c->ax.plane_len[ex], xs = c->ax.plane_step;
            const size_t at = ((size_t)(ey * npx + ex) * c->ring_rows + (size_t)(r % c->ring_rows)) * A->row_words
                            + c->ax.pad_lo;
            int32_t *da = ring_a + at, *db = A->xsplit ? ring_b + at : NULL;
            for (int q = 0; q < nq_real; q++, da += c->wp, db = db ? db + c->wp : NULL) {
                if (!real) {
                    memset(da, 0, (size_t)len * sizeof(int32_t));
                    if (db) memset(db, 0, (size_t)len * sizeof(int32_t));
                    continue;
                }
                const int16_t *p[4];
                for (int k = 0; k < 4; k++) {
                    const int ch = 4 * q + k;
                    p[k] = ch < c->cin ? in + (size_t)ch * hw + (size_t)src_row * c->w + ex : A->zero_row;
                }
                if (xs == 1) quad_row(da, db, p[0], p[1], p[2], p[3], len, A->xsplit);
                else quad_row_strided(da, db, p, len, xs, A->xsplit);
            }
        }
    }
}

/* ---- tile kernels ---- */

typedef struct amx_call {
    const int8_t *wa, *wb;     /* first channel block's tiles for tap 0, chunk 0 */
    size_t w_ob;               /* bytes between channel blocks */
    const int32_t *xa, *xb;    /* packed rows at the first column of the call */
    const ptrdiff_t *off;      /* per tap, words */
    int ntaps, nkc;
    size_t kc_words;           /* words between K chunks */
    size_t xstride;            /* bytes between quad rows */
    const int32_t *bias;       /* the first channel block's bias tile */
    int w_nkc;                 /* K chunks per tap in the weight layout (nkc: this call's) */
    int acc;                   /* 1: the sums start from out[] (an earlier K chunk), not the bias */
    int32_t *out;              /* row buffer at (first channel, first column) */
    size_t ldo;                /* words */
    int32_t *scratch;
} amx_call;

/* out[r][0..15] += s0[r] << sh0 (+ s1[r] << sh1): the wrapping int32 combination. */
AMX_I void combine(int32_t *out, size_t ldo, const int32_t *s0, int sh0, const int32_t *s1, int sh1) {
    for (int r = 0; r < 16; r++) {
        __m512i v = _mm512_loadu_si512((const void *)(out + r * ldo));
        v = _mm512_add_epi32(v, _mm512_slli_epi32(_mm512_loadu_si512((const void *)(s0 + 16 * r)), (unsigned)sh0));
        if (s1) v = _mm512_add_epi32(v, _mm512_slli_epi32(_mm512_loadu_si512((const void *)(s1 + 16 * r)), (unsigned)sh1));
        _mm512_storeu_si512((void *)(out + r * ldo), v);
    }
}

#define K_LOOP(BODY)                                                                  \
    for (int t = 0; t < a->ntaps; t++)                                                \
        for (int kc = 0; kc < a->nkc; kc++) {                                         \
            const size_t wofs = ((size_t)t * a->w_nkc + kc) * 1024;                   \
            const size_t xofs = (size_t)(a->off[t] + (ptrdiff_t)(kc * a->kc_words));  \
            BODY                                                                      \
        }

/* The accumulator tile of channel block o, column block p: the bias, or for a later K
 * chunk the sums so far in out[] (combined, modulo 2^32: §2.4 covers any split of K). */
#define C_INIT(tile, o, p)                                                              \
    do {                                                                                \
        if (a->acc) _tile_loadd(tile, a->out + (size_t)(o) * 16 * a->ldo + 16 * (p), (long)(a->ldo * 4)); \
        else _tile_loadd(tile, a->bias + 256 * (o), 64);                                \
    } while (0)

/* x int8, w int8: C[o][p] tile 2o+p, A[o] tile 4+o, B[p] tile 6+p. */
AMX_I void k_x1w1(const amx_call *a, const int NO, const int NP) {
    const long ob = (long)a->w_ob, ls = (long)(a->ldo * 4);
    C_INIT(0, 0, 0);
    if (NP == 2) C_INIT(1, 0, 1);
    if (NO == 2) { C_INIT(2, 1, 0); if (NP == 2) C_INIT(3, 1, 1); }
    K_LOOP({
        _tile_loadd(4, a->wa + wofs, 64);
        if (NO == 2) _tile_loadd(5, a->wa + wofs + ob, 64);
        _tile_loadd(6, a->xa + xofs, a->xstride);
        if (NP == 2) _tile_loadd(7, a->xa + xofs + 16, a->xstride);
        _tile_dpbssd(0, 4, 6);
        if (NP == 2) _tile_dpbssd(1, 4, 7);
        if (NO == 2) { _tile_dpbssd(2, 5, 6); if (NP == 2) _tile_dpbssd(3, 5, 7); }
    })
    _tile_stored(0, a->out, ls);
    if (NP == 2) _tile_stored(1, a->out + 16, ls);
    if (NO == 2) { _tile_stored(2, a->out + 16 * a->ldo, ls); if (NP == 2) _tile_stored(3, a->out + 16 * a->ldo + 16, ls); }
}

/* x split (h signed, l unsigned), w int8: Ch[o] tile 2o, Cl[o] tile 2o+1 (holds the bias),
 * A[o] tile 4+o, Bh tile 6, Bl tile 7. */
AMX_I void k_x2w1(const amx_call *a, const int NO) {
    const long ob = (long)a->w_ob, ls = (long)(a->ldo * 4);
    _tile_zero(0);
    C_INIT(1, 0, 0);
    if (NO == 2) { _tile_zero(2); C_INIT(3, 1, 0); }
    K_LOOP({
        _tile_loadd(4, a->wa + wofs, 64);
        if (NO == 2) _tile_loadd(5, a->wa + wofs + ob, 64);
        _tile_loadd(6, a->xa + xofs, a->xstride);
        _tile_loadd(7, a->xb + xofs, a->xstride);
        _tile_dpbssd(0, 4, 6);
        _tile_dpbsud(1, 4, 7);
        if (NO == 2) { _tile_dpbssd(2, 5, 6); _tile_dpbsud(3, 5, 7); }
    })
    _tile_stored(1, a->out, ls);
    _tile_stored(0, a->scratch, 64);
    if (NO == 2) { _tile_stored(3, a->out + 16 * a->ldo, ls); _tile_stored(2, a->scratch + 256, 64); }
    combine(a->out, a->ldo, a->scratch, 8, NULL, 0);
    if (NO == 2) combine(a->out + 16 * a->ldo, a->ldo, a->scratch + 256, 8, NULL, 0);
}

/* x int8, w split (h signed, l unsigned): Ch[p] tile 2p, Cl[p] tile 2p+1 (holds the bias),
 * Ah tile 4, Al tile 5, B[p] tile 6+p. */
AMX_I void k_x1w2(const amx_call *a, const int NP) {
    const long ls = (long)(a->ldo * 4);
    _tile_zero(0);
    C_INIT(1, 0, 0);
    if (NP == 2) { _tile_zero(2); C_INIT(3, 0, 1); }
    K_LOOP({
        _tile_loadd(4, a->wa + wofs, 64);
        _tile_loadd(5, a->wb + wofs, 64);
        _tile_loadd(6, a->xa + xofs, a->xstride);
        if (NP == 2) _tile_loadd(7, a->xa + xofs + 16, a->xstride);
        _tile_dpbssd(0, 4, 6);
        _tile_dpbusd(1, 5, 6);
        if (NP == 2) { _tile_dpbssd(2, 4, 7); _tile_dpbusd(3, 5, 7); }
    })
    _tile_stored(1, a->out, ls);
    _tile_stored(0, a->scratch, 64);
    if (NP == 2) { _tile_stored(3, a->out + 16, ls); _tile_stored(2, a->scratch + 256, 64); }
    combine(a->out, a->ldo, a->scratch, 8, NULL, 0);
    if (NP == 2) combine(a->out + 16, a->ldo, a->scratch + 256, 8, NULL, 0);
}

/* Both split: Chh tile 0, Cmid tile 1 (xh*wl + xl*wh), Cll tile 2 (holds the bias),
 * Ah 4, Al 5, Bh 6, Bl 7. */
AMX_I void k_x2w2(const amx_call *a) {
    const long ls = (long)(a->ldo * 4);
    _tile_zero(0);
    _tile_zero(1);
    C_INIT(2, 0, 0);
    K_LOOP({
        _tile_loadd(4, a->wa + wofs, 64);
        _tile_loadd(5, a->wb + wofs, 64);
        _tile_loadd(6, a->xa + xofs, a->xstride);
        _tile_loadd(7, a->xb + xofs, a->xstride);
        _tile_dpbssd(0, 4, 6);
        _tile_dpbsud(1, 4, 7);
        _tile_dpbusd(1, 5, 6);
        _tile_dpbuud(2, 5, 7);
    })
    _tile_stored(2, a->out, ls);
    _tile_stored(0, a->scratch, 64);
    _tile_stored(1, a->scratch + 256, 64);
    combine(a->out, a->ldo, a->scratch, 16, a->scratch + 256, 8);
}

static AMX_T void k_x1w1_11(const amx_call *a) { k_x1w1(a, 1, 1); }
static AMX_T void k_x1w1_12(const amx_call *a) { k_x1w1(a, 1, 2); }
static AMX_T void k_x1w1_21(const amx_call *a) { k_x1w1(a, 2, 1); }
static AMX_T void k_x1w1_22(const amx_call *a) { k_x1w1(a, 2, 2); }
static AMX_T void k_x2w1_1(const amx_call *a) { k_x2w1(a, 1); }
static AMX_T void k_x2w1_2(const amx_call *a) { k_x2w1(a, 2); }
static AMX_T void k_x1w2_1(const amx_call *a) { k_x1w2(a, 1); }
static AMX_T void k_x1w2_2(const amx_call *a) { k_x1w2(a, 2); }
static AMX_T void k_x2w2_1(const amx_call *a) { k_x2w2(a); }

typedef void (*amx_fn)(const amx_call *);
/* [kind][no-1][np-1] */
static const amx_fn amx_table[4][2][2] = {
    { { k_x1w1_11, k_x1w1_12 }, { k_x1w1_21, k_x1w1_22 } },
    { { k_x2w1_1, NULL }, { k_x2w1_2, NULL } },
    { { k_x1w2_1, k_x1w2_2 }, { NULL, NULL } },
    { { k_x2w2_1, NULL }, { NULL, NULL } },
};

/* Loop order: channel blocks, then K chunks of kc_step, then column blocks, so one chunk's
 * weight tiles (for 128 channels and 9 taps: 18 KiB per pair of channel blocks against
 * 36 KiB for the whole K) stay in L1 while the input streams past them from L2. */
void cpuk_amx_gemm_run(const cpuk_amx_gemm *g) {
    const int max_no = amx_max_no[g->kind], max_np = amx_max_np[g->kind];
    const int step = g->kc_step > 0 && g->kc_step < g->nkc ? g->kc_step : g->nkc;
    amx_call a;
    a.off = g->off;
    a.ntaps = g->ntaps;
    a.w_nkc = g->nkc;
    a.kc_words = g->kc_words;
    a.xstride = g->xstride;
    a.w_ob = g->w_ob;
    a.ldo = g->ldo;
    a.scratch = g->scratch;
    for (int ob = 0; ob < g->nob; ob += max_no) {
        const int no = g->nob - ob < max_no ? g->nob - ob : max_no;
        a.bias = g->bias_tile + (size_t)ob * 256;
        for (int kc0 = 0; kc0 < g->nkc; kc0 += step) {
            a.nkc = g->nkc - kc0 < step ? g->nkc - kc0 : step;
            a.acc = kc0 > 0;
            a.wa = g->wa + (size_t)ob * g->w_ob + (size_t)kc0 * 1024;
            a.wb = g->wb ? g->wb + (size_t)ob * g->w_ob + (size_t)kc0 * 1024 : NULL;
            for (int k = 0; k < g->blocks; k += max_np) {
                const int np = g->blocks - k < max_np ? g->blocks - k : max_np;
                a.xa = g->xa + k * CPUK_BLK + (size_t)kc0 * g->kc_words;
                a.xb = g->xb ? g->xb + k * CPUK_BLK + (size_t)kc0 * g->kc_words : NULL;
                a.out = g->out + (size_t)ob * 16 * g->ldo + k * CPUK_BLK;
                amx_table[g->kind][no - 1][np - 1](&a);
            }
        }
    }
}

int cpuk_amx_kind(int split_x, int split_w) { return (split_x ? AMX_X2W1 : AMX_X1W1) + (split_w ? 2 : 0); }
const char *cpuk_amx_kind_name(int kind) { return amx_names[kind]; }


/* Output row i, every output channel, from the packed rows in the ring. */
static void amx_row(const cpuk_conv *c, int tid, const int32_t *ring_a, const int32_t *ring_b, int i) {
    const struct cpuk_amx *A = c->amx;
    const int py = c->row_phase[i], m = c->row_m[i];
    const int nphx = c->ax.nphases;
    int32_t *rowbuf = A->rowbuf + (size_t)tid * A->rowbuf_words;
    ptrdiff_t off[MAX_PH][MAX_TAPS * MAX_TAPS];
    for (int px = 0; px < nphx; px++) {
        const phase2 *P = &c->ph[py * nphx + px];
        for (int t = 0; t < P->ntaps; t++)
            off[px][t] = (ptrdiff_t)(((size_t)P->tap_plane[t] * c->ring_rows + (size_t)((m + P->tap_dy[t]) % c->ring_rows))
                                     * A->row_words) + P->tap_dx[t];
    }
    /* Two channel blocks at a time: the row buffer holds 32 channels of every x-phase. */
    for (int ob = 0; ob < A->nob; ob += 2) {
        const int no = A->nob - ob < 2 ? A->nob - ob : 2;
        for (int px = 0; px < nphx; px++) {
            const int ph = py * nphx + px;
            const phase2 *P = &c->ph[ph];
            const size_t w_ob = (size_t)(P->ntaps ? P->ntaps : 1) * A->nkc * 1024;
            cpuk_amx_gemm g;
            g.kind = A->kind;
            g.wa = A->wa[ph] + (size_t)ob * w_ob;
            g.wb = A->wsplit ? A->wb[ph] + (size_t)ob * w_ob : NULL;
            g.w_ob = w_ob;
            g.nob = no;
            g.xa = ring_a;
            g.xb = A->xsplit ? ring_b : NULL;
            g.off = off[px];
            g.ntaps = P->ntaps;
            g.nkc = A->nkc;
            g.kc_words = (size_t)KQ * c->wp;
            g.xstride = (size_t)c->wp * sizeof(int32_t);
            g.blocks = (c->ax.ph[px].count + CPUK_BLK - 1) / CPUK_BLK;
            g.bias_tile = A->bias_tile + (size_t)ob * 256;
            g.out = rowbuf + (size_t)px * 32 * c->ldo;
            g.ldo = (size_t)c->ldo;
            g.scratch = A->scratch + (size_t)tid * 512;
            g.kc_step = AMX_KC_STEP;
            cpuk_amx_gemm_run(&g);
        }
        const int oc_end = (ob + no) * 16 < c->cout ? (ob + no) * 16 : c->cout;
        for (int o = ob * 16; o < oc_end; o++) {
            const int oi = o - ob * 16;
            cpuk_epi_row e;
            e.sq = NULL;
            e.sq_hi = e.sq_q = 0;
            e.nph = nphx;
            e.step = c->ax.step;
            for (int px = 0; px < nphx; px++) {
                e.src[px] = rowbuf + ((size_t)px * 32 + oi) * c->ldo;
                e.base[px] = c->ax.ph[px].base;
                e.count[px] = c->ax.ph[px].count;
            }
            e.wo = c->wo;
            e.kind = c->post_kind;
            e.post = c->post[o];
            e.out_bits = c->out_bits;
            e.out = c->out_bits == 16
                ? (void *)((int16_t *)c->run_out + ((size_t)o * c->ho + i) * c->wo)
                : (void *)((int32_t *)c->run_out + ((size_t)o * c->ho + i) * c->wo);
            if (c->next && A->fused_rows) e.out = A->fused_rows + ((size_t)tid * c->cout + o) * c->wo;
            cpuk_epi_conv_avx512(&e);
        }
    }
}

AMX_T void cpuk_amx_tiles_on(void) {
    tile_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.palette = 1;
    for (int t = 0; t < 8; t++) { cfg.rows[t] = 16; cfg.colsb[t] = 64; }
    _tile_loadconfig(&cfg);
}

AMX_T void cpuk_amx_tiles_off(void) { _tile_release(); }

/* conv.c's band_task on tiles: the tile configuration is per thread, so each band loads
 * it and releases it (a released thread keeps no tile state for the kernel to save). */
void cpuk_amx_band(const cpuk_conv *c, int tid, size_t task) {
    const struct cpuk_amx *A = c->amx;
    int32_t *ring_a = A->ring_a + (size_t)tid * A->ring_words;
    int32_t *ring_b = A->xsplit ? A->ring_b + (size_t)tid * A->ring_words : NULL;
    const int i0 = (int)((size_t)c->ho * task / (size_t)c->nbands);
    const int i1 = (int)((size_t)c->ho * (task + 1) / (size_t)c->nbands);
    int packed_hi = -(1 << 30);
    cpuk_amx_tiles_on();
    for (int i = i0; i < i1; i++) {
        const row_window *wnd = &c->win[c->row_phase[i]];
        if (wnd->any) {
            const int m = c->row_m[i];
            const int lo = m + wnd->lo, hi = m + wnd->hi;
            for (int r = lo > packed_hi + 1 ? lo : packed_hi + 1; r <= hi; r++) amx_pack_row(c, ring_a, ring_b, r);
            if (hi > packed_hi) packed_hi = hi;
        }
        amx_row(c, tid, ring_a, ring_b, i);
        if (c->next && A->fused_rows)
            cpuk_igdn_positions_rows(c->next, tid, (size_t)i * c->wo, (size_t)c->wo,
                                     A->fused_rows + (size_t)tid * c->cout * c->wo, (size_t)c->wo);
        else if (c->next) cpuk_igdn_positions(c->next, tid, (size_t)i * c->wo, (size_t)c->wo);
    }
    cpuk_amx_tiles_off();
}

/* Four accumulators, two A and two B tiles: TDPBSSD's throughput with no loads. */
AMX_T uint64_t cpuk_peak_amx(uint64_t iters) {
    static _Alignas(64) int8_t src[1024];
    cpuk_amx_tiles_on();
    _tile_zero(0); _tile_zero(1); _tile_zero(2); _tile_zero(3);
    _tile_loadd(4, src, 64); _tile_loadd(5, src, 64); _tile_loadd(6, src, 64); _tile_loadd(7, src, 64);
    for (uint64_t i = 0; i < iters; i++) {
        _tile_dpbssd(0, 4, 6);
        _tile_dpbssd(1, 4, 7);
        _tile_dpbssd(2, 5, 6);
        _tile_dpbssd(3, 5, 7);
    }
    static _Alignas(64) int32_t sink[256];
    _tile_stored(0, sink, 64);
    cpuk_amx_tiles_off();
    return iters * 4 * 16 * 16 * 64;
}

#else
const char *cpuk_amx_name(const struct cpuk_amx *a) { (void)a; return "amx"; }
void cpuk_amx_gemm_run(const cpuk_amx_gemm *g) { (void)g; }
int cpuk_amx_kind(int split_x, int split_w) { return (split_x ? 1 : 0) + (split_w ? 2 : 0); }
const char *cpuk_amx_kind_name(int kind) { (void)kind; return "amx"; }
void cpuk_amx_tiles_on(void) {}
void cpuk_amx_tiles_off(void) {}
void cpuk_amx_conv_free(struct cpuk_amx *a) { (void)a; }
int cpuk_amx_conv_init(cpuk_conv *c, const cpuk_conv_desc *d, char *err, size_t cap) {
    (void)c; (void)d; (void)err; (void)cap;
    return 0;
}
void cpuk_amx_band(const cpuk_conv *c, int tid, size_t task) { (void)c; (void)tid; (void)task; }
uint64_t cpuk_peak_amx(uint64_t iters) { return cpuk_peak_scalar(iters); }
#endif
