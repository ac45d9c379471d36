/* Both x-phases of a stride-2 transposed conv in one microkernel call (docs/cpu-kernels.md
 * §3, "x-phase pairs").
 *
 * The plain plan (conv.c) runs each x-phase on its own: phase px's output n is
 * Σ x[n + d]·w over its taps' offsets d. The two phases' offsets mostly coincide (5x5 at
 * stride 2: phase 0 reads d ∈ {1, 0, −1}, phase 1 d ∈ {1, 0}), so per channel pair and
 * shared offset one vector load serves the accumulators of both phases: twice the output
 * channels per load for the same registers. That is what makes few-output layers (int_hyper's
 * 128 → 3: 3 channels x 6 blocks, a load per 3 vpdpwssd, most of them split across cache
 * lines) and narrow rows (its 192 → 128: 3 blocks per phase) load-bound in the plain plan.
 * Every output is the same sum of the same products, only grouped differently; the
 * accumulators wrap exactly as the plain plan's, and the certificate bounds every partial
 * sum (docs/integer-ops.md §5, conv rule), so every partial stays in int32 anyway. */
#include "conv_plan.h"

#include <stdlib.h>

void cpuk_xpair_free(cpuk_conv *c) {
    if (!c->xp) return;
    for (int py = 0; py < c->ay.nphases; py++) cpuk_free(c->xp[py].w);
    free(c->xp);
    c->xp = NULL;
}

/* Measured per layer of int_hyper's g_s against the plain plan (docs/cpu-kernels.md §3.3):
 * it pays where the plain call is narrow or has few output channels; with 4 outputs and
 * 6 blocks per phase the plain call already has 24 accumulators. */
static int pays(const cpuk_conv *c) {
    const int blocks = (c->ax.ph[0].count + CPUK_BLK - 1) / CPUK_BLK;
    return c->cout < CPUK_OCB || blocks < 6;
}

int cpuk_xpair_init(cpuk_conv *c, const cpuk_conv_desc *d, char *err, size_t cap) {
    /* AVX2's 16 registers hold the pairs' accumulators for up to 3 outputs only. */
    const int avx2 = c->isa == CPUK_ISA_AVX2 && c->cout < CPUK_OCB;
    if ((c->isa != CPUK_ISA_AVX512 && !avx2) || c->mode != CPUK_MODE_PAIR16 || !d->transposed) return 0;
    if (c->ax.nphases != 2 || c->ax.step != 2 || c->ax.nplanes != 1) return 0;
    const axis_phase *X0 = &c->ax.ph[0], *X1 = &c->ax.ph[1];
    if ((X0->count + CPUK_BLK - 1) / CPUK_BLK != (X1->count + CPUK_BLK - 1) / CPUK_BLK) return 0;
    if (!pays(c)) return 0;
    xpair_phase *xp = calloc((size_t)c->ay.nphases, sizeof *xp);
    if (!xp) { cpuk_set_err(err, cap, "out of memory for a conv's x-phase pairs"); return -1; }
    c->xp = xp;
    int any_shared = 0;
    for (int py = 0; py < c->ay.nphases; py++) {
        const axis_phase *Y = &c->ay.ph[py];
        xpair_phase *P = &xp[py];
        /* kx per tap of each phase (-1: that phase has no tap at this offset), in the
         * order both, phase 0 only, phase 1 only. */
        int ky[XPAIR_MAX_TAPS], kx0[XPAIR_MAX_TAPS], kx1[XPAIR_MAX_TAPS];
        for (int pass = 0; pass < 3; pass++)
            for (int ty = 0; ty < Y->ntaps; ty++) {
                for (int t0 = 0; t0 < X0->ntaps && pass < 2; t0++) {
                    int t1 = -1;
                    for (int u = 0; u < X1->ntaps; u++) if (X1->taps[u].d == X0->taps[t0].d) t1 = u;
                    if ((pass == 0) != (t1 >= 0)) continue;
                    const int t = P->ntaps++;
                    ky[t] = Y->taps[ty].k;
                    kx0[t] = X0->taps[t0].k;
                    kx1[t] = t1 >= 0 ? X1->taps[t1].k : -1;
                    P->tap_dx[t] = c->ax.pad_lo + X0->taps[t0].d;
                    P->tap_dy[t] = c->ay.pad_lo + Y->taps[ty].d;
                    P->tap_plane[t] = 0;
                    if (pass == 0) P->n_both++; else P->n_first++;
                }
                for (int t1 = 0; t1 < X1->ntaps && pass == 2; t1++) {
                    int shared = 0;
                    for (int u = 0; u < X0->ntaps; u++) if (X0->taps[u].d == X1->taps[t1].d) shared = 1;
                    if (shared) continue;
                    const int t = P->ntaps++;
                    ky[t] = Y->taps[ty].k;
                    kx0[t] = -1;
                    kx1[t] = X1->taps[t1].k;
                    P->tap_dx[t] = c->ax.pad_lo + X1->taps[t1].d;
                    P->tap_dy[t] = c->ay.pad_lo + Y->taps[ty].d;
                    P->tap_plane[t] = 0;
                }
            }
        if (P->n_both) any_shared = 1;
        P->entries = 2 * P->n_both + (P->ntaps - P->n_both);
        P->w = cpuk_alloc((size_t)c->nob * CPUK_OCB * c->ncp * (P->entries ? P->entries : 1) * sizeof(int32_t));
        if (!P->w) {
            cpuk_xpair_free(c);
            cpuk_set_err(err, cap, "out of memory for a conv's x-phase pair weights");
            return -1;
        }
        int32_t *w = P->w;
        for (int ob = 0; ob < c->nob; ob++) {
            const int ocb = d->cout - ob * CPUK_OCB < CPUK_OCB ? d->cout - ob * CPUK_OCB : CPUK_OCB;
            for (int cp = 0; cp < c->ncp; cp++)
                for (int t = 0; t < P->ntaps; t++)
                    for (int ph = 0; ph < 2; ph++) {
                        const int kx = ph == 0 ? kx0[t] : kx1[t];
                        if (kx < 0) continue;
                        for (int oi = 0; oi < ocb; oi++) {
                            const int o = ob * CPUK_OCB + oi, c0 = 2 * cp, c1 = 2 * cp + 1;
                            const int32_t w0 = cpuk_conv_weight(d, c0, o, ky[t], kx);
                            const int32_t w1 = c1 < d->cin ? cpuk_conv_weight(d, c1, o, ky[t], kx) : 0;
                            *w++ = cpuk_pair(w0, w1);
                        }
                    }
        }
    }
    if (!any_shared) cpuk_xpair_free(c);     /* nothing shared: the plain plan is as good */
    return 0;
}

void cpuk_xpair_row(const cpuk_conv *c, const int32_t *ring, int py, int m, int32_t *rowbuf) {
    const xpair_phase *P = &c->xp[py];
    ptrdiff_t off[XPAIR_MAX_TAPS];
    for (int t = 0; t < P->ntaps; t++)
        off[t] = (ptrdiff_t)(((size_t)P->tap_plane[t] * c->ring_rows + (size_t)((m + P->tap_dy[t]) % c->ring_rows))
                             * c->row_words) + P->tap_dx[t];
    const int blocks = (c->ax.ph[0].count + CPUK_BLK - 1) / CPUK_BLK;
    const int span = cpuk_mkx_nb_for_ocb[c->cout < CPUK_OCB ? c->cout : CPUK_OCB];
    cpuk_mkx_args a;
    a.tap_off = off;
    a.n_both = P->n_both;
    a.n_first = P->n_first;
    a.n_second = P->ntaps - P->n_both - P->n_first;
    a.cp_stride = c->wp;
    a.ldo = c->ldo;
    a.phase_stride = (ptrdiff_t)c->nob * CPUK_OCB * c->ldo;
    /* As compute_row: a chunk of channel pairs of the window stays in L1 while every block
     * of output channels reads it; the partial sums wait in the row buffer. */
    const int cpb = c->cpb;
    for (int k = 0; k < blocks; k += span) {
        const int nb = blocks - k < span ? blocks - k : span;
        for (int cp0 = 0; cp0 < c->ncp; cp0 += cpb) {
            a.ncp = c->ncp - cp0 < cpb ? c->ncp - cp0 : cpb;
            a.accumulate = cp0 > 0;
            a.x = ring + (size_t)cp0 * c->wp + k * CPUK_BLK;
            for (int ob = 0; ob < c->nob; ob++) {
                const int ocb = c->cout - ob * CPUK_OCB < CPUK_OCB ? c->cout - ob * CPUK_OCB : CPUK_OCB;
                a.w = P->w + (size_t)ob * CPUK_OCB * c->ncp * P->entries + (size_t)cp0 * P->entries * ocb;
                a.bias = c->bias + ob * CPUK_OCB;
                a.out = rowbuf + (size_t)ob * CPUK_OCB * c->ldo + k * CPUK_BLK;
                if (c->isa == CPUK_ISA_AVX512) cpuk_mkx_avx512(ocb, nb, &a);
                else cpuk_mkx_avx2(ocb, nb, &a);
            }
        }
    }
}
