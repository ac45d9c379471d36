/* conv2d and conv_transpose2d as sums of stride-1 sub-convolutions (polyphase).
 *
 * Along each axis the op is split into output phases and input planes so that every phase
 * is a stride-1 correlation over a plane:
 *   - conv2d with stride s: one output phase, s input planes (plane e holds x[e + s*b]);
 *     tap u reads plane (u-pad) mod s at offset floor((u-pad)/s);
 *   - conv_transpose2d with stride s: s output phases (columns base + s*n), one plane;
 *     phase ph has taps u = ph + s*t reading the input at offset q_min - t.
 * The input is packed into zero-padded planes laid out [plane][row][cp][col], each word a
 * pair of int16 channels (PAIR16) or one int32 channel (I32), so the inner loop loads 16
 * consecutive columns of one channel pair and multiplies them by one broadcast weight pair.
 * Weights are packed at create time per (y-phase, x-phase, block of 4 output channels) as
 * [cp][tap][oc].
 *
 * Work is split across threads in bands of consecutive output rows. A band packs the input
 * rows it needs just before it needs them into a small per-thread ring of packed rows (a
 * few rows of every channel: it stays in L2), instead of packing the whole input first and
 * streaming it back from memory: output rows only ever move down the input, so a row that
 * left the window of the current output row is never needed again within the band. */
#include "conv_plan.h"

#include <stdlib.h>
#include <string.h>

/* Columns one microkernel call covers in the cache-blocked loop (6 blocks: the widest call
 * for 4 output channels), and the L1 budget for the input window of one channel chunk:
 * half of the smallest L1d this runs on well (32 KiB on Zen 4; 48 KiB on Sapphire Rapids),
 * the rest for weights, accumulators and the epilogue. */
#define COLS_PER_CALL (6 * CPUK_BLK)
#define L1_WINDOW_BYTES (16 * 1024)

static int floordiv(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
static int ceildiv(int a, int b) { return -floordiv(-a, b); }
static int round16(int n) { return (n + CPUK_BLK - 1) / CPUK_BLK * CPUK_BLK; }

/* `round` widens every phase's output count to a multiple of 16 (the x axis, where the
 * inner loop works in blocks of 16); the extra outputs read zero padding and are dropped. */
static void plan_axis(axis_plan *p, int transposed, int len, int k, int s, int pad, int opad,
                      int out_len, int round) {
    memset(p, 0, sizeof *p);
    if (!transposed) {
        p->nphases = 1; p->step = 1;
        axis_phase *ph = &p->ph[0];
        ph->base = 0; ph->count = out_len; ph->ntaps = k;
        for (int u = 0; u < k; u++) {
            ph->taps[u].k = u;
            ph->taps[u].plane = (u - pad) - s * floordiv(u - pad, s);
            ph->taps[u].d = floordiv(u - pad, s);
        }
        p->nplanes = s; p->plane_step = s;
        for (int e = 0; e < s; e++) p->plane_len[e] = e < len ? (len - 1 - e) / s + 1 : 0;
        for (int i = 0; i < out_len; i++)
            for (int u = 0; u < k; u++) { int a = i * s - pad + u; if (a >= 0 && a < len) p->pairs++; }
    } else {
        (void)opad;
        p->step = s;
        for (int phase = 0; phase < s; phase++) {
            int qmin = ceildiv(pad - phase, s), qmax = floordiv(out_len - 1 + pad - phase, s);
            if (qmax < qmin) continue;
            axis_phase *ph = &p->ph[p->nphases++];
            ph->base = s * qmin - pad + phase;
            ph->count = qmax - qmin + 1;
            for (int t = 0; phase + s * t < k; t++) {
                ph->taps[ph->ntaps].k = phase + s * t;
                ph->taps[ph->ntaps].plane = 0;
                ph->taps[ph->ntaps].d = qmin - t;
                ph->ntaps++;
            }
        }
        p->nplanes = 1; p->plane_step = 1; p->plane_len[0] = len;
        for (int a = 0; a < len; a++)
            for (int u = 0; u < k; u++) { int i = a * s - pad + u; if (i >= 0 && i < out_len) p->pairs++; }
    }
    int dmin = 0, reach = 0;
    for (int e = 0; e < p->nplanes; e++) if (p->plane_len[e] > reach) reach = p->plane_len[e];
    for (int q = 0; q < p->nphases; q++) {
        const axis_phase *ph = &p->ph[q];
        int cnt = round ? round16(ph->count) : ph->count;
        for (int t = 0; t < ph->ntaps; t++) {
            if (ph->taps[t].d < dmin) dmin = ph->taps[t].d;
            if (cnt - 1 + ph->taps[t].d + 1 > reach) reach = cnt - 1 + ph->taps[t].d + 1;
        }
    }
    p->pad_lo = -dmin;
    p->padded_len = p->pad_lo + reach;
}

uint64_t cpuk_conv_macs(const cpuk_conv *c) { return c->macs; }

const char *cpuk_conv_kernel_name(const cpuk_conv *c) {
    if (c->phased) return cpuk_phased_name(c);
    if (c->amx) return cpuk_amx_name(c->amx);
    if (c->xp) return c->isa == CPUK_ISA_AVX512 ? "vnni x-pairs" : "avx2 x-pairs";
    return c->isa == CPUK_ISA_AVX512 ? "vnni" : c->isa == CPUK_ISA_AVX2 ? "avx2" : "scalar";
}

void cpuk_conv_destroy(cpuk_conv *c) {
    if (!c) return;
    cpuk_amx_conv_free(c->amx);
    cpuk_xpair_free(c);
    cpuk_conv_destroy(c->phased);
    cpuk_free(c->phased_out);
    cpuk_free(c->fused_rows);
    cpuk_free(c->fused_sq);
    if (c->ph) for (int i = 0; i < c->ay.nphases * c->ax.nphases; i++) cpuk_free(c->ph[i].w);
    free(c->ph);
    cpuk_free(c->ring);
    cpuk_free(c->bias);
    free(c->post);
    cpuk_free(c->rowbuf);
    free(c->row_phase);
    free(c->row_m);
    free(c);
}

cpuk_conv *cpuk_conv_create(const cpuk_conv_desc *d, cpuk_isa isa, int nthreads, char *err, size_t cap) {
    cpuk_conv *c = calloc(1, sizeof *c);
    if (!c) { cpuk_set_err(err, cap, "out of memory for a conv"); return NULL; }
    c->isa = cpuk_vector_isa(isa);
    c->mode = d->in_bits == 16 ? CPUK_MODE_PAIR16 : CPUK_MODE_I32;
    c->cin = d->cin; c->h = d->h; c->w = d->w; c->cout = d->cout; c->ho = d->ho; c->wo = d->wo;
    c->in_bits = d->in_bits; c->out_bits = d->out_bits;
    c->ncp = c->mode == CPUK_MODE_PAIR16 ? (d->cin + 1) / 2 : d->cin;
    c->nob = (d->cout + CPUK_OCB - 1) / CPUK_OCB;
    c->nthreads = nthreads < 1 ? 1 : nthreads;
    plan_axis(&c->ay, d->transposed, d->h, d->kh, d->stride, d->pad, d->output_pad, d->ho, 0);
    plan_axis(&c->ax, d->transposed, d->w, d->kw, d->stride, d->pad, d->output_pad, d->wo, 1);
    c->macs = c->ay.pairs * c->ax.pairs * (uint64_t)d->cin * (uint64_t)d->cout;
    /* Left padding widened so that offset 0 starts a 64-byte line in every packed row, and
     * rows a whole number of lines long: the loads at that offset are then never split
     * across lines. Extra padding columns are zero like the rest, never read as outputs. */
    {
        const int shift = (CPUK_BLK - c->ax.pad_lo % CPUK_BLK) % CPUK_BLK;
        c->ax.pad_lo += shift;
        c->ax.padded_len += shift;
    }
    c->wp = round16(c->ax.padded_len);
    c->row_words = (size_t)c->ncp * c->wp;

    int maxcount = 0;
    for (int q = 0; q < c->ax.nphases; q++) if (c->ax.ph[q].count > maxcount) maxcount = c->ax.ph[q].count;
    c->ldo = round16(maxcount);
    c->rowbuf_words = (size_t)c->ax.nphases * c->nob * CPUK_OCB * c->ldo;
    c->rowbuf = cpuk_alloc(c->rowbuf_words * c->nthreads * sizeof(int32_t));
    c->bias = cpuk_alloc((size_t)c->nob * CPUK_OCB * sizeof(int32_t));
    c->post = calloc((size_t)d->cout, sizeof(cpuk_post_ch));
    c->row_phase = malloc((size_t)d->ho * sizeof(int));
    c->row_m = malloc((size_t)d->ho * sizeof(int));
    c->ph = calloc((size_t)c->ay.nphases * c->ax.nphases, sizeof(phase2));
    if (!c->rowbuf || !c->bias || !c->post || !c->row_phase || !c->row_m || !c->ph) {
        cpuk_set_err(err, cap, "out of memory for a conv (%d x %d x %d -> %d x %d x %d)",
                     d->cin, d->h, d->w, d->cout, d->ho, d->wo);
        cpuk_conv_destroy(c);
        return NULL;
    }
    memcpy(c->bias, d->bias, (size_t)d->cout * sizeof(int32_t));
    c->post_kind = d->post.kind;
    cpuk_post_expand(&d->post, d->cout, c->post);

    for (int py = 0; py < c->ay.nphases; py++)
        for (int m = 0; m < c->ay.ph[py].count; m++) {
            int i = c->ay.ph[py].base + c->ay.step * m;
            c->row_phase[i] = py;
            c->row_m[i] = m;
        }

    c->ring_rows = 1;
    int wtaps = 0;
    for (int px = 0; px < c->ax.nphases; px++) if (c->ax.ph[px].ntaps > wtaps) wtaps = c->ax.ph[px].ntaps;
    for (int py = 0; py < c->ay.nphases; py++) {
        const axis_phase *Y = &c->ay.ph[py];
        row_window *wnd = &c->win[py];
        wnd->any = Y->ntaps > 0;
        wnd->lo = 1 << 30; wnd->hi = -(1 << 30);
        for (int ty = 0; ty < Y->ntaps; ty++) {
            const int dy = c->ay.pad_lo + Y->taps[ty].d;
            if (dy < wnd->lo) wnd->lo = dy;
            if (dy > wnd->hi) wnd->hi = dy;
        }
        if (wnd->any && wnd->hi - wnd->lo + 1 > c->ring_rows) c->ring_rows = wnd->hi - wnd->lo + 1;
    }
    for (int py = 0; py < c->ay.nphases; py++)
        for (int px = 0; px < c->ax.nphases; px++) {
            const axis_phase *Y = &c->ay.ph[py], *X = &c->ax.ph[px];
            phase2 *P = &c->ph[py * c->ax.nphases + px];
            P->ntaps = Y->ntaps * X->ntaps;
            for (int ty = 0; ty < Y->ntaps; ty++)
                for (int tx = 0; tx < X->ntaps; tx++) {
                    const axis_tap *a = &Y->taps[ty], *b = &X->taps[tx];
                    const int t = ty * X->ntaps + tx;
                    P->tap_plane[t] = a->plane * c->ax.nplanes + b->plane;
                    P->tap_dy[t] = c->ay.pad_lo + a->d;
                    P->tap_dx[t] = c->ax.pad_lo + b->d;
                }
            size_t words = (size_t)c->nob * CPUK_OCB * c->ncp * (P->ntaps ? P->ntaps : 1);
            P->w = cpuk_alloc(words * sizeof(int32_t));
            if (!P->w) {
                cpuk_set_err(err, cap, "out of memory for packed conv weights");
                cpuk_conv_destroy(c);
                return NULL;
            }
            int32_t *w = P->w;
            for (int ob = 0; ob < c->nob; ob++) {
                int ocb = d->cout - ob * CPUK_OCB < CPUK_OCB ? d->cout - ob * CPUK_OCB : CPUK_OCB;
                for (int cp = 0; cp < c->ncp; cp++)
                    for (int ty = 0; ty < Y->ntaps; ty++)
                        for (int tx = 0; tx < X->ntaps; tx++)
                            for (int oi = 0; oi < ocb; oi++) {
                                int o = ob * CPUK_OCB + oi, ky = Y->taps[ty].k, kx = X->taps[tx].k;
                                if (c->mode == CPUK_MODE_PAIR16) {
                                    int c0 = 2 * cp, c1 = 2 * cp + 1;
                                    int32_t w0 = cpuk_conv_weight(d, c0, o, ky, kx);
                                    int32_t w1 = c1 < d->cin ? cpuk_conv_weight(d, c1, o, ky, kx) : 0;
                                    *w++ = cpuk_pair(w0, w1);
                                } else {
                                    *w++ = cpuk_conv_weight(d, cp, o, ky, kx);
                                }
                            }
            }
        }

    /* Channel pairs per chunk: the window one call reads (rows of the y-taps, the call's
     * columns plus the x-taps' reach, every input plane) fits L1_WINDOW_BYTES. */
    const size_t nplanes = (size_t)c->ay.nplanes * c->ax.nplanes;
    {
        const size_t per_cp = nplanes * (size_t)c->ring_rows * (COLS_PER_CALL + (size_t)wtaps) * sizeof(int32_t);
        size_t cpb = L1_WINDOW_BYTES / per_cp;
        if (cpb < 1) cpb = 1;
        c->cpb = cpb > (size_t)c->ncp ? (c->ncp > 0 ? c->ncp : 1) : (int)cpb;
    }
    c->ring_words = nplanes * c->ring_rows * c->row_words;
    c->ring = cpuk_alloc(c->ring_words * c->nthreads * sizeof(int32_t));
    if (d->out_bits == 16 && isa == CPUK_ISA_AVX512) {
        c->fused_rows = cpuk_alloc((size_t)c->nthreads * d->cout * d->wo * sizeof(int16_t));
        /* Zero-filled: words past wo and the high halves of an odd channel count are never
         * written, so they stay the zero squares the inverse GDN expects there. */
        c->sq_stride = (size_t)round16(d->wo);
        c->fused_sq_words = (size_t)((d->cout + 1) / 2) * c->sq_stride;
        c->fused_sq = cpuk_alloc((size_t)c->nthreads * c->fused_sq_words * sizeof(int32_t));
        if (!c->fused_rows || !c->fused_sq) {
            cpuk_set_err(err, cap, "out of memory for a conv's output rows");
            cpuk_conv_destroy(c);
            return NULL;
        }
    }
    if (!c->ring) {
        cpuk_set_err(err, cap, "out of memory for a conv's packed input rows");
        cpuk_conv_destroy(c);
        return NULL;
    }
    /* Bands: enough for the pool to balance (several per thread), few enough that the
     * rows re-packed at each band's start stay a small share. */
    c->nbands = c->ho < 8 * c->nthreads ? c->ho : 8 * c->nthreads;
    if (c->nbands < 1) c->nbands = 1;
    if (isa == CPUK_ISA_AMX && cpuk_amx_conv_init(c, d, err, cap) != 0) {
        cpuk_conv_destroy(c);
        return NULL;
    }
    /* A few-output transposed conv the tiles did not take: phase channels on tiles
     * (conv_phased.c) or x-phase pairs on the vector path (conv_xpair.c). With the input split into
     * bytes the pairs measured faster for int_hyper's 128 -> 3 (docs/cpu-kernels.md §2.7, §3.3);
     * an int8 input keeps the one-pass tiles. */
    const int split_x = d->in_lo < -128 || d->in_hi > 127;
    if (!c->amx && split_x && cpuk_xpair_init(c, d, err, cap) != 0) {
        cpuk_conv_destroy(c);
        return NULL;
    }
    if (isa == CPUK_ISA_AMX && !c->amx && !c->xp) {
        const int rc = cpuk_phased_init(c, d, c->nthreads, err, cap);
        if (rc < 0) { cpuk_conv_destroy(c); return NULL; }
        if (rc == 0) { cpuk_free(c->ring); c->ring = NULL; }  /* the inner conv packs its own rows */
    }
    if (!c->amx && !c->phased && !c->xp && cpuk_xpair_init(c, d, err, cap) != 0) {
        cpuk_conv_destroy(c);
        return NULL;
    }
    return c;
}

/* ---- run ---- */

/* Interleaves two int16 channel rows into pair words; compiled once per ISA so the
 * compiler widens it to that ISA's vectors. */
CPUK_INLINE void pair_row(int32_t *dst, const int16_t *r0, const int16_t *r1, int len) {
    for (int j = 0; j < len; j++)
        dst[j] = (int32_t)((uint32_t)(uint16_t)r0[j] | ((uint32_t)(uint16_t)r1[j] << 16));
}
static void pair_row_generic(int32_t *dst, const int16_t *r0, const int16_t *r1, int len) { pair_row(dst, r0, r1, len); }
#if CPUK_X86
__attribute__((target("avx2")))
static void pair_row_avx2(int32_t *dst, const int16_t *r0, const int16_t *r1, int len) { pair_row(dst, r0, r1, len); }
CPUK_TARGET_512("avx512f,avx512bw")
static void pair_row_avx512(int32_t *dst, const int16_t *r0, const int16_t *r1, int len) { pair_row(dst, r0, r1, len); }
#endif

static void pair_row_isa(cpuk_isa isa, int32_t *dst, const int16_t *r0, const int16_t *r1, int len) {
#if CPUK_X86
    if (isa == CPUK_ISA_AVX512) { pair_row_avx512(dst, r0, r1, len); return; }
    if (isa == CPUK_ISA_AVX2) { pair_row_avx2(dst, r0, r1, len); return; }
#endif
    (void)isa;
    pair_row_generic(dst, r0, r1, len);
}

/* Packs padded row r of every input plane into ring slot r mod R. A row of the top or
 * bottom padding is zeros; the padding columns are never written, so they stay zero. */
static void pack_row(const cpuk_conv *c, int32_t *ring, int r) {
    const int npx = c->ax.nplanes;
    const size_t hw = (size_t)c->h * c->w;
    for (int ey = 0; ey < c->ay.nplanes; ey++) {
        const int b = r - c->ay.pad_lo;                        /* row within plane ey */
        const int real = b >= 0 && b < c->ay.plane_len[ey];
        const int a = ey + c->ay.plane_step * b;               /* source row */
        for (int ex = 0; ex < npx; ex++) {
            const int len = c->ax.plane_len[ex], xs = c->ax.plane_step;
            int32_t *dst = ring + ((size_t)(ey * npx + ex) * c->ring_rows + (size_t)(r % c->ring_rows)) * c->row_words
                         + c->ax.pad_lo;
            if (!real) {
                for (int cp = 0; cp < c->ncp; cp++, dst += c->wp) memset(dst, 0, (size_t)len * sizeof(int32_t));
                continue;
            }
            const size_t src0 = (size_t)a * c->w + ex;
            /* The next row of this plane: its channels' rows lie hw apart, so a row is
             * dozens of short streams the hardware prefetchers do not follow; fetching it
             * into L2 while this one is packed hides the memory latency. */
            const int next = b + 1 < c->ay.plane_len[ey] && xs == 1;
            if (c->mode == CPUK_MODE_PAIR16) {
                const int16_t *in = c->run_in;
                for (int cp = 0; cp < c->ncp; cp++, dst += c->wp) {
                    const int16_t *r0 = in + (size_t)(2 * cp) * hw + src0;
                    if (next)
                        for (int j = 0; j < len; j += 32) {
                            __builtin_prefetch(r0 + (size_t)c->ay.plane_step * c->w + j, 0, 2);
                            if (2 * cp + 1 < c->cin) __builtin_prefetch(r0 + hw + (size_t)c->ay.plane_step * c->w + j, 0, 2);
                        }
                    if (2 * cp + 1 < c->cin && xs == 1) {
                        pair_row_isa(c->isa, dst, r0, r0 + hw, len);
                    } else if (2 * cp + 1 < c->cin) {
                        const int16_t *r1 = r0 + hw;
                        for (int j = 0; j < len; j++) dst[j] = cpuk_pair(r0[(size_t)j * xs], r1[(size_t)j * xs]);
                    } else {
                        for (int j = 0; j < len; j++) dst[j] = cpuk_pair(r0[(size_t)j * xs], 0);
                    }
                }
            } else {
                const int32_t *in = c->run_in;
                for (int cp = 0; cp < c->ncp; cp++, dst += c->wp) {
                    const int32_t *r0 = in + (size_t)cp * hw + src0;
                    if (xs == 1) memcpy(dst, r0, (size_t)len * sizeof(int32_t));
                    else for (int j = 0; j < len; j++) dst[j] = r0[(size_t)j * xs];
                }
            }
        }
    }
}

/* Output row i, every output channel, from the rows in the ring. */
static void compute_row(const cpuk_conv *c, int tid, const int32_t *ring, int i) {
    const int py = c->row_phase[i], m = c->row_m[i];
    int32_t *rowbuf = c->rowbuf + (size_t)tid * c->rowbuf_words;
    const int nphx = c->ax.nphases;
    ptrdiff_t off[MAX_PH][MAX_TAPS * MAX_TAPS];
    for (int px = 0; px < nphx; px++) {
        const phase2 *P = &c->ph[py * nphx + px];
        for (int t = 0; t < P->ntaps; t++)
            off[px][t] = (ptrdiff_t)(((size_t)P->tap_plane[t] * c->ring_rows + (size_t)((m + P->tap_dy[t]) % c->ring_rows))
                                     * c->row_words) + P->tap_dx[t];
    }
    /* Cache blocking: a group of up to COLS_PER_CALL columns and a chunk of c->cpb channel
     * pairs of the input window stay in L1 while every block of output channels reads them;
     * the partial sums wait in the row buffer (all output channels of the row) between
     * chunks. Summing the chunks in this order is exact: the certificate bounds every
     * partial sum (docs/integer-ops.md §5, conv rule). */
    for (int px = 0; px < nphx; px++) {
        if (c->xp && c->xp[py].ntaps) { cpuk_xpair_row(c, ring, py, m, rowbuf); break; }
        const phase2 *P = &c->ph[py * nphx + px];
        const int blocks = (c->ax.ph[px].count + CPUK_BLK - 1) / CPUK_BLK;
        const int ncp = P->ntaps ? c->ncp : 0;
        cpuk_mk_args a;
        a.tap_off = off[px];
        a.ntaps = P->ntaps;
        a.cp_stride = c->wp;
        a.ldo = c->ldo;
        for (int k = 0; k < blocks; k += COLS_PER_CALL / CPUK_BLK) {
            const int nb = blocks - k < COLS_PER_CALL / CPUK_BLK ? blocks - k : COLS_PER_CALL / CPUK_BLK;
            for (int cp0 = 0; cp0 < ncp || cp0 == 0; cp0 += c->cpb) {
                a.ncp = ncp - cp0 < c->cpb ? ncp - cp0 : c->cpb;
                a.accumulate = cp0 > 0;
                a.x = ring + (size_t)cp0 * c->wp + k * CPUK_BLK;
                for (int ob = 0; ob < c->nob; ob++) {
                    const int ocb = c->cout - ob * CPUK_OCB < CPUK_OCB ? c->cout - ob * CPUK_OCB : CPUK_OCB;
                    a.w = P->w + (size_t)ob * CPUK_OCB * c->ncp * P->ntaps + (size_t)cp0 * P->ntaps * ocb;
                    a.bias = c->bias + ob * CPUK_OCB;
                    a.out = rowbuf + ((size_t)px * c->nob * CPUK_OCB + (size_t)ob * CPUK_OCB) * c->ldo + k * CPUK_BLK;
                    cpuk_mk(c->isa, c->mode, ocb, nb, &a);
                }
                if (ncp == 0) break;
            }
        }
    }
    /* A fused inverse GDN that squares int16 pairs gets them from this epilogue, while the
     * row's values are in registers, instead of reading the row back to square it. */
    const int sq_q = c->next && c->fused_sq ? cpuk_igdn_pair_squares(c->next) : -1;
    for (int ob = 0; ob < c->nob; ob++) {
        const int ocb = c->cout - ob * CPUK_OCB < CPUK_OCB ? c->cout - ob * CPUK_OCB : CPUK_OCB;
        for (int oi = 0; oi < ocb; oi++) {
            const int o = ob * CPUK_OCB + oi;
            cpuk_epi_row e;
            e.sq = sq_q >= 0 ? c->fused_sq + (size_t)tid * c->fused_sq_words + (size_t)(o / 2) * c->sq_stride : NULL;
            e.sq_hi = o & 1;
            e.sq_q = sq_q;
            e.nph = nphx;
            e.step = c->ax.step;
            for (int px = 0; px < nphx; px++) {
                e.src[px] = rowbuf + ((size_t)px * c->nob * CPUK_OCB + (size_t)o) * c->ldo;
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
            if (c->next && c->fused_rows) e.out = c->fused_rows + ((size_t)tid * c->cout + o) * c->wo;
            if (c->isa == CPUK_ISA_AVX512) cpuk_epi_conv_avx512(&e);
            else if (c->isa == CPUK_ISA_AVX2) cpuk_epi_conv_avx2(&e);
            else cpuk_epi_conv_generic(&e);
        }
    }
}

/* One task = one band of consecutive output rows. The rows a phase reads, m + dy over its
 * taps, never move up as the output row moves down, so each input row is packed once per
 * band, when the first output row needing it comes. */
static void band_task(void *ctx, int tid, size_t task) {
    const cpuk_conv *c = ctx;
    if (c->amx) { cpuk_amx_band(c, tid, task); return; }
    int32_t *ring = c->ring + (size_t)tid * c->ring_words;
    const int i0 = (int)((size_t)c->ho * task / (size_t)c->nbands);
    const int i1 = (int)((size_t)c->ho * (task + 1) / (size_t)c->nbands);
    int packed_hi = -(1 << 30);
    const int tiles = c->next && cpuk_igdn_uses_tiles(c->next);
    const int sq_q = c->next && c->fused_sq ? cpuk_igdn_pair_squares(c->next) : -1;
    if (tiles) cpuk_amx_tiles_on();
    for (int i = i0; i < i1; i++) {
        const row_window *wnd = &c->win[c->row_phase[i]];
        if (wnd->any) {
            const int m = c->row_m[i];
            const int lo = m + wnd->lo, hi = m + wnd->hi;
            for (int r = lo > packed_hi + 1 ? lo : packed_hi + 1; r <= hi; r++) pack_row(c, ring, r);
            if (hi > packed_hi) packed_hi = hi;
        }
        compute_row(c, tid, ring, i);
        if (c->next && c->fused_rows && sq_q >= 0)
            cpuk_igdn_positions_sq(c->next, tid, (size_t)i * c->wo, (size_t)c->wo,
                                   c->fused_rows + (size_t)tid * c->cout * c->wo, (size_t)c->wo,
                                   c->fused_sq + (size_t)tid * c->fused_sq_words, c->sq_stride);
        else if (c->next && c->fused_rows)
            cpuk_igdn_positions_rows(c->next, tid, (size_t)i * c->wo, (size_t)c->wo,
                                     c->fused_rows + (size_t)tid * c->cout * c->wo, (size_t)c->wo);
        else if (c->next) cpuk_igdn_positions(c->next, tid, (size_t)i * c->wo, (size_t)c->wo);
    }
    if (tiles) cpuk_amx_tiles_off();
}

/* Where the inverse GDN runs on tiles, or on AVX-512 with the conv's int16 output row handed
 * over in a per-thread buffer (the intermediate tensor is never written). Measured on a
 * Sapphire Rapids class Xeon: fused on tiles ~5% faster; AVX-512 VNNI whole g_s 0.70 ->
 * 0.73 of the vpdpwssd peak; on AVX2 the fused run is no faster than two passes (the
 * vector inverse GDN's packed gamma and squares evict the conv's L1 window). */
int cpuk_conv_igdn_fusable(const cpuk_conv *c, const cpuk_igdn *g) {
    return !c->phased && (cpuk_igdn_uses_tiles(g) || (c->isa == CPUK_ISA_AVX512 && c->fused_rows)) && cpuk_igdn_fits(g, c->cout, (size_t)c->ho * c->wo, c->out_bits, c->nthreads);
}

void cpuk_conv_igdn_run(cpuk_conv *c, cpuk_igdn *g, cpuk_pool *pool, const void *in, void *mid, void *out) {
    cpuk_igdn_bind(g, mid, out);
    c->next = g;
    cpuk_conv_run(c, pool, in, mid);
    c->next = NULL;
    cpuk_igdn_bind(g, NULL, NULL);
}

void cpuk_conv_run(cpuk_conv *c, cpuk_pool *pool, const void *in, void *out) {
    if (c->phased) { cpuk_phased_run(c, pool, in, out); return; }
    c->run_in = in;
    c->run_out = out;
    cpuk_pool_run(pool, (size_t)c->nbands, band_task, c);
    c->run_in = NULL;
    c->run_out = NULL;
}
