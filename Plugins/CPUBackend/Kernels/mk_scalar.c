/* Portable inner loops: the same packed layouts as the SIMD paths, plain C arithmetic. */
#include "kernels_internal.h"

void cpuk_mk_scalar(int mode, int ocb, int nb, const cpuk_mk_args *a) {
    const int width = nb * CPUK_BLK;
    for (int oi = 0; oi < ocb; oi++) {
        int32_t *out = a->out + oi * a->ldo;
        if (!a->accumulate) for (int n = 0; n < width; n++) out[n] = a->bias[oi];
    }
    const int32_t *w = a->w;
    for (int cp = 0; cp < a->ncp; cp++) {
        const int32_t *xc = a->x + cp * a->cp_stride;
        for (int t = 0; t < a->ntaps; t++) {
            const int32_t *xt = xc + a->tap_off[t];
            for (int oi = 0; oi < ocb; oi++) {
                int32_t *out = a->out + oi * a->ldo;
                const uint32_t wv = (uint32_t)w[oi];
                if (mode == CPUK_MODE_PAIR16) {
                    const int32_t wl = cpuk_lo16(wv), wh = cpuk_hi16(wv);
                    for (int n = 0; n < width; n++) {
                        const uint32_t xv = (uint32_t)xt[n];
                        out[n] += cpuk_lo16(xv) * wl + cpuk_hi16(xv) * wh;
                    }
                } else {
                    const int32_t wi = (int32_t)wv;
                    for (int n = 0; n < width; n++) out[n] += xt[n] * wi;
                }
            }
            w += ocb;
        }
    }
}

/* The x-phase pair microkernel's arithmetic in C (the layout of cpuk_mkx_args). */
void cpuk_mkx_scalar(int ocb, int nb, const cpuk_mkx_args *a) {
    const int width = nb * CPUK_BLK;
    for (int p = 0; p < 2; p++)
        for (int oi = 0; oi < ocb; oi++) {
            int32_t *out = a->out + p * a->phase_stride + oi * a->ldo;
            if (!a->accumulate) for (int n = 0; n < width; n++) out[n] = a->bias[oi];
        }
    const int ntaps = a->n_both + a->n_first + a->n_second;
    const int32_t *w = a->w;
    for (int cp = 0; cp < a->ncp; cp++) {
        const int32_t *xc = a->x + cp * a->cp_stride;
        for (int t = 0; t < ntaps; t++) {
            const int32_t *xt = xc + a->tap_off[t];
            const int p0 = t < a->n_both + a->n_first ? 0 : 1, p1 = t < a->n_both ? 1 : p0;
            for (int p = p0; p <= p1; p++)
                for (int oi = 0; oi < ocb; oi++) {
                    int32_t *out = a->out + p * a->phase_stride + oi * a->ldo;
                    const uint32_t wv = (uint32_t)*w++;
                    const int32_t wl = cpuk_lo16(wv), wh = cpuk_hi16(wv);
                    for (int n = 0; n < width; n++) {
                        const uint32_t xv = (uint32_t)xt[n];
                        out[n] = (int32_t)((uint32_t)out[n] + (uint32_t)(cpuk_lo16(xv) * wl + cpuk_hi16(xv) * wh));
                    }
                }
        }
    }
}
