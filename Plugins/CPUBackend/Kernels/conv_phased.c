/* A transposed conv with few output channels as a stride-1 conv over its phases
 * (docs/cpu-kernels.md §2.7).
 *
 * conv_transpose2d with stride s, kernel k and pad p sums y[o][i] = b[o] + Σ x[c][a]·w[c][o][u]
 * over i = s·a − p + u (per axis). Writing i = s·m + φ (0 ≤ φ < s) and a = m − δ gives
 * u = s·δ + φ + p: output row s·m + φ reads input rows m − δ for the δ with 0 ≤ u < k, the
 * same window for every φ. So the op is, term for term, a stride-1 conv2d over the input with
 * kernel K = δmax − δmin + 1, pad δmax and cout·s² output channels (o, φy, φx), whose weight
 * at tap P − δ is w[c][o][s·δ + φ + p] or 0 where that u lies outside the kernel, followed by
 * depth_to_space (channel o·s² + φy·s + φx lands at row s·m + φy, column s·n + φx). The
 * added terms are zero products, so every output is the same integer; the tile path's
 * exactness (§2.3–2.4) depends on K = taps × cin only, which the inner conv checks.
 *
 * It pays where the plain plan leaves the tiles: with 3 outputs (int_hyper's last layer) a
 * 16-row tile would be 3/16 used; as 12 (o, φ) channels it is 12/16 used, against 25 of 36
 * taps non-zero. The requantize or clamp is per output channel o, so it is fused into the
 * inner conv with o's parameters on each of its s² phase channels. */
#include "conv_plan.h"

#include <stdlib.h>
#include <string.h>

/* The δ window of one axis, or 0 when its phases cannot share one stride-1 window with
 * the symmetric pad conv2d has (the output length must be s times the window's). */
static int phase_window(int len, int out_len, int k, int s, int p, int *dmin, int *dmax) {
    if (s < 2 || out_len % s != 0) return 0;
    int lo = 1 << 30, hi = -(1 << 30);
    for (int phi = 0; phi < s; phi++)
        for (int u = 0; u < k; u++) {
            const int t = u - phi - p;           /* s·δ */
            if (t % s != 0) continue;
            const int dl = t / s;
            if (dl < lo) lo = dl;
            if (dl > hi) hi = dl;
        }
    if (lo > hi) return 0;
    /* conv2d of kernel K = hi-lo+1, pad hi, stride 1: len + 2·hi − K + 1 outputs. */
    if (len + hi + lo != out_len / s || hi < 0 || hi - lo + 1 > MAX_TAPS) return 0;
    *dmin = lo;
    *dmax = hi;
    return 1;
}

int cpuk_phased_init(cpuk_conv *c, const cpuk_conv_desc *d, int nthreads, char *err, size_t cap) {
    const int s = d->stride, r2 = s * s;
    if (!d->transposed || d->in_bits != 16 || d->cout >= AMX_MIN_COUT) return 1;
    if ((int64_t)d->cout * r2 < AMX_MIN_COUT || d->cout * r2 > 64) return 1;
    int ylo, yhi, xlo, xhi;
    if (!phase_window(d->h, d->ho, d->kh, s, d->pad, &ylo, &yhi)) return 1;
    if (!phase_window(d->w, d->wo, d->kw, s, d->pad, &xlo, &xhi)) return 1;
    if (yhi != xhi) return 1;                    /* one pad for both axes */
    const int P = yhi, KH = yhi - ylo + 1, KW = xhi - xlo + 1, cv = d->cout * r2;
    int16_t *w = calloc((size_t)cv * d->cin * KH * KW, sizeof *w);
    int32_t *bias = malloc((size_t)cv * sizeof *bias);
    int32_t *mult = malloc((size_t)cv * sizeof *mult), *shift = malloc((size_t)cv * sizeof *shift);
    int rc = -1;
    if (!w || !bias || !mult || !shift) { cpuk_set_err(err, cap, "out of memory for a phased conv"); goto done; }
    for (int o = 0; o < d->cout; o++)
        for (int fy = 0; fy < s; fy++)
            for (int fx = 0; fx < s; fx++) {
                const int ov = o * r2 + fy * s + fx;
                bias[ov] = d->bias[o];
                mult[ov] = d->post.kind == CPUK_POST_REQUANTIZE ? d->post.multiplier[o] : 0;
                shift[ov] = d->post.kind == CPUK_POST_REQUANTIZE ? d->post.shift[o] : 0;
                for (int ch = 0; ch < d->cin; ch++)
                    for (int ky = 0; ky < KH; ky++)
                        for (int kx = 0; kx < KW; kx++) {
                            const int uy = s * (P - ky) + fy + d->pad, ux = s * (P - kx) + fx + d->pad;
                            if (uy < 0 || uy >= d->kh || ux < 0 || ux >= d->kw) continue;
                            w[(((size_t)ov * d->cin + ch) * KH + ky) * KW + kx] =
                                d->weights[(((size_t)ch * d->cout + o) * d->kh + uy) * d->kw + ux];
                        }
            }
    cpuk_conv_desc v = *d;
    v.transposed = 0;
    v.cout = cv;
    v.ho = d->ho / s;
    v.wo = d->wo / s;
    v.kh = KH;
    v.kw = KW;
    v.stride = 1;
    v.pad = P;
    v.output_pad = 0;
    v.weights = w;
    v.bias = bias;
    v.post.multiplier = mult;
    v.post.shift = shift;
    cpuk_conv *inner = cpuk_conv_create(&v, CPUK_ISA_AMX, nthreads, err, cap);
    if (!inner) goto done;
    if (!inner->amx) { cpuk_conv_destroy(inner); rc = 1; goto done; }  /* not on tiles: no gain */
    c->phased_out = cpuk_alloc((size_t)cv * v.ho * v.wo * (size_t)(d->out_bits / 8));
    if (!c->phased_out) {
        cpuk_conv_destroy(inner);
        cpuk_set_err(err, cap, "out of memory for a phased conv's output");
        goto done;
    }
    c->phased = inner;
    c->phased_s = s;
    rc = 0;
done:
    free(w); free(bias); free(mult); free(shift);
    return rc;
}

void cpuk_phased_run(cpuk_conv *c, cpuk_pool *pool, const void *in, void *out) {
    const cpuk_conv *v = c->phased;
    cpuk_conv_run(c->phased, pool, in, c->phased_out);
    cpuk_depth_to_space(pool, c->phased_out, c->out_bits, out, c->out_bits, c->cout, v->ho, v->wo, c->phased_s);
}

const char *cpuk_phased_name(const cpuk_conv *c) {
    static const char *const names[4] = { "amx 1x1 phased", "amx 2x1 phased", "amx 1x2 phased", "amx 2x2 phased" };
    const char *n = cpuk_conv_kernel_name(c->phased);
    for (int k = 0; k < 4; k++) if (strncmp(n, names[k], 7) == 0) return names[k];
    return n;
}
