/* warp (docs/integer-ops.md §4.10): trilinear over x, y and scale, border padding, one
 * rounding. Plain exact C, one pool task per output row. Everything is int32: the verified
 * certificate (§5) puts the coordinates, every term and partial sum of acc and acc plus
 * the rounding bias inside int32, and the weights are non-negative products of at most
 * 2^30. No `>>` of a negative value is left to the compiler (cpuk_asr). */
#include "kernels_internal.h"

typedef struct warp_ctx {
    const void *vol; const void *flow; void *out;
    int vol_bits, flow_bits, out_bits;
    int c, s, h, w, f;
} warp_ctx;

static int32_t clampi(int32_t v, int32_t lo, int32_t hi) { return v < lo ? lo : (v > hi ? hi : v); }

static void warp_task(void *raw, int tid, size_t task) {
    (void)tid;
    const warp_ctx *k = raw;
    const int i = (int)task, W = k->w, H = k->h, S = k->s, C = k->c, F = k->f;
    const int32_t E = (int32_t)1 << F;
    const size_t hw = (size_t)H * W;
    const int shift = 3 * F;
    const int32_t bias = cpuk_rnd_const(shift);
    for (int j = 0; j < W; j++) {
        const size_t at = (size_t)i * W + j;
        /* Clamp the coordinate, then split it: never a blend past the border. */
        const int32_t X = clampi(j * E + cpuk_load(k->flow, k->flow_bits, at), 0, (W - 1) * E);
        const int32_t Y = clampi(i * E + cpuk_load(k->flow, k->flow_bits, hw + at), 0, (H - 1) * E);
        const int32_t Z = clampi(cpuk_load(k->flow, k->flow_bits, 2 * hw + at), 0, (S - 1) * E);
        const int x0 = X >> F, y0 = Y >> F, z0 = Z >> F;   /* X, Y, Z >= 0 */
        const int32_t ax = X - x0 * E, ay = Y - y0 * E, az = Z - z0 * E;
        const int xs[2] = { x0, x0 + 1 < W ? x0 + 1 : W - 1 };
        const int ys[2] = { y0, y0 + 1 < H ? y0 + 1 : H - 1 };
        const int zs[2] = { z0, z0 + 1 < S ? z0 + 1 : S - 1 };
        const int32_t wx[2] = { E - ax, ax }, wy[2] = { E - ay, ay }, wz[2] = { E - az, az };
        int32_t weight[8];
        size_t offset[8];
        for (int r = 0; r < 2; r++)
            for (int q = 0; q < 2; q++)
                for (int p = 0; p < 2; p++) {
                    weight[(r * 2 + q) * 2 + p] = wz[r] * wy[q] * wx[p];
                    offset[(r * 2 + q) * 2 + p] = (size_t)zs[r] * C * hw + (size_t)ys[q] * W + (size_t)xs[p];
                }
        for (int ch = 0; ch < C; ch++) {
            const size_t base = (size_t)ch * hw;
            int32_t acc = 0;
            for (int t = 0; t < 8; t++)
                if (weight[t] != 0) acc += weight[t] * cpuk_load(k->vol, k->vol_bits, base + offset[t]);
            const int32_t y = cpuk_asr(acc + bias, shift);
            if (k->out_bits == 16) ((int16_t *)k->out)[base + at] = (int16_t)y;
            else ((int32_t *)k->out)[base + at] = y;
        }
    }
}

void cpuk_warp(cpuk_pool *pool, const void *vol, int vol_bits, const void *flow, int flow_bits,
               void *out, int out_bits, int c, int s, int h, int w, int frac_bits) {
    warp_ctx k = { vol, flow, out, vol_bits, flow_bits, out_bits, c, s, h, w, frac_bits };
    cpuk_pool_run(pool, (size_t)h, warp_task, &k);
}
